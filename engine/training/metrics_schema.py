"""The metrics log's lines (engine.training.metrics_log): their schemas, and events to lines and back.

An event line is its event's dataclass (engine.training.events) as JSON: its kind, then each field in
field order. Each field says once how the log holds it (``field(metadata=logged(...))``: its range,
whether a float is written as null when not finite, what a line of an older version that lacks it
reads as); from those facts and the fields' types come the lines' schemas (:func:`record_spec`), the
writer (:func:`event_record`) and the reader (:func:`record_event`), so a new field is one field.

A line is used only when it fits its kind's schema (engine.files.schema: types, ranges, finite numbers)
and its parts agree: a validation's attention snapshot is a matrix of one row per output token and
one column per source token. The trainer writes non-finite numbers as ``null``; a reader never sees
``Infinity`` or ``NaN`` in a line it accepts. The ``start`` line describes the run (its settings'
sections from their dataclasses) and reads as a dict.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import fields, is_dataclass, replace
from enum import Enum
from functools import cache, partial
from types import UnionType
from typing import Any, Union, get_args, get_origin, get_type_hints

import numpy as np

from engine.files.schema import (
    Anything,
    Bool,
    Choice,
    Int,
    ListOf,
    Num,
    Obj,
    SchemaError,
    Spec,
    Str,
    dataclass_spec,
    validate,
)
from engine.settings.config import ModelConfig, TrainConfig
from engine.training.checkpoint_schema import REQUEST
from engine.training.events import (
    IN_EVERY_LINE,
    FinishedEvent,
    Logged,
    StepEvent,
    ValidationEvent,
    log_facts,
)

START = Obj({
    "kind": Choice(("start",)), "source_language": Str(max_length=32), "target_language": Str(max_length=32),
    "model": dataclass_spec(ModelConfig, nullable=True), "train_config": dataclass_spec(TrainConfig, nullable=True),
    "request": replace(REQUEST, nullable=True), "data": Anything(kinds=(dict, type(None))),
    "task": Str(max_length=64, nullable=True), "corpus_path": Str(max_length=4096, nullable=True),
    "command": Str(max_length=100_000),
}, required=frozenset({"kind"}), extra=Anything())

EVENTS: dict[str, type] = {"step": StepEvent, "validation": ValidationEvent, "finished": FinishedEvent}
RECORD_KINDS = ("start", *EVENTS)


def _parts(kind: Any) -> tuple[Any, tuple[Any, ...], bool]:
    """A field's type as (its base, the base's arguments, whether it may be None)."""
    arguments = get_args(kind)
    if isinstance(kind, UnionType) or get_origin(kind) is Union:
        others = [argument for argument in arguments if argument is not type(None)]
        return others[0], get_args(others[0]), len(others) < len(arguments)
    return get_origin(kind) or kind, arguments, False


def _spec(kind: Any, facts: Logged) -> Spec:
    """The schema of one field's value, from its type and its :class:`Logged` facts."""
    base, arguments, nullable = _parts(kind)
    if base is bool:
        return Bool(nullable=nullable)
    if base is int:
        return Int(low=0 if facts.low is None else int(facts.low), high=None if facts.high is None else int(facts.high),
                   nullable=nullable)
    if base is float:
        return Num(facts.low, facts.high, nullable=nullable or facts.nan_as_null)
    if base is str:
        return Str(max_length=facts.max_length, nullable=nullable)
    if isinstance(base, type) and issubclass(base, Enum):
        return Choice(tuple(member.value for member in base), nullable=nullable)
    if base is np.ndarray:
        row = ListOf(Num(facts.low, facts.high), max_items=facts.max_items)
        return ListOf(row, max_items=facts.max_items, nullable=nullable)
    if base is tuple:
        item, composite = arguments[0], is_dataclass(arguments[0])
        items = record_spec(item) if composite else _spec(item, replace(facts, max_items=None))
        return ListOf(items, max_items=facts.max_items, nullable=nullable)
    raise TypeError(f"a metrics log field cannot be of type {kind!r}")


@cache
def log_fields(cls: type) -> tuple[tuple[str, Any, Logged], ...]:
    """(name, type, :class:`Logged` facts) of each field of the event class ``cls``, in field order."""
    hints = get_type_hints(cls)
    return tuple((item.name, hints[item.name], log_facts(item)) for item in fields(cls))


@cache
def record_spec(cls: type, kind: str = "") -> Obj:
    """The schema of a line (``kind`` given) or of a part of one written from ``cls``: a key per field,
    each field required unless lines of an older version may lack it (its ``absent``)."""
    specs: dict[str, Spec] = {"kind": Choice((kind,))} if kind else {}
    specs.update((name, _spec(field_type, facts)) for name, field_type, facts in log_fields(cls))
    required = {name for name, _, facts in log_fields(cls) if facts.absent is IN_EVERY_LINE}
    return Obj(specs, required=frozenset(required | ({"kind"} if kind else set())))


def record_specs() -> dict[str, Spec]:
    """Each kind of line's schema, by kind."""
    return {"start": START, **{kind: record_spec(cls, kind) for kind, cls in EVENTS.items()}}


def check_record(record: Any) -> None:
    """Raise SchemaError unless ``record`` is a line of one of the known kinds, whole and consistent."""
    if type(record) is not dict:
        raise SchemaError((), "a line must be a JSON object")
    kind = record.get("kind")
    if not isinstance(kind, str) or kind != "start" and kind not in EVENTS:
        raise SchemaError(("kind",), f"must be one of {', '.join(('start', *EVENTS))}")
    validate(START if kind == "start" else record_spec(EVENTS[kind], kind), record)
    if kind == "validation":
        for index, sample in enumerate(record.get("samples", ())):
            _check_attention(sample, ("samples", index, "attention"))


def _check_attention(sample: dict[str, Any], path: tuple) -> None:
    """The snapshot's matrix is len(tokens) rows of len(source_tokens) weights each."""
    attention = sample.get("attention")
    if attention is None:
        return
    rows, columns = len(sample["tokens"]), len(sample["source_tokens"])
    if len(attention) != rows or any(len(row) != columns for row in attention):
        shape = f"{len(attention)}×{len(attention[0]) if attention else 0}"
        raise SchemaError(path, f"is {shape}; {rows} output tokens × {columns} source tokens expected")




# -- events to lines and back, by the event classes' fields -----------------------------------------------

def _finite(value: float | None) -> float | None:
    return None if value is None or value != value or value in (float("inf"), float("-inf")) else float(value)


def kind_of(event: Any) -> str:
    """The kind of line ``event`` is written as."""
    for kind, cls in EVENTS.items():
        if type(event) is cls:
            return kind
    raise TypeError(f"not an event of the metrics log: {type(event).__name__}")


def event_record(event: Any) -> dict[str, Any]:
    """One event as a JSON-ready dict: its kind, then each field in order (see :func:`_written`)."""
    return {"kind": kind_of(event), **_record(event)}


def _record(instance: Any) -> dict[str, Any]:
    return {name: _written(getattr(instance, name), kind, facts) for name, kind, facts in log_fields(instance.__class__)}


def _written(value: Any, kind: Any, facts: Logged) -> Any:
    """A field's value as the log holds it: a float that may be null written as a float or, when not finite,
    null; an enum as its value; a tuple as a list (of its ``first`` items); a matrix as nested lists
    (rounded to ``decimals``); anything else as it is."""
    if value is None:
        return None
    base, arguments, nullable = _parts(kind)
    if base is float and (nullable or facts.nan_as_null):
        return _finite(value)
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, np.ndarray):
        matrix = value.astype(float)
        return (matrix if facts.decimals is None else np.round(matrix, facts.decimals)).tolist()
    if base is tuple:
        items = value[:facts.first]
        return [_record(item) for item in items] if is_dataclass(arguments[0]) else list(items)
    return value


def record_event(record: dict[str, Any]) -> Any:
    """A line (already checked: :func:`check_record`) as the event it was written from; a field that a
    line of an older version lacks reads as its ``absent`` value."""
    return _instance(EVENTS[record["kind"]], record)


def _instance(cls: type, record: dict[str, Any]) -> Any:
    values = {}
    for name, read, absent in _readers(cls):
        if name in record:
            values[name] = read(record[name])
        elif absent is IN_EVERY_LINE:
            raise KeyError(name)
        else:
            values[name] = absent
    return cls(**values)


@cache
def _readers(cls: type) -> tuple[tuple[str, Callable[[Any], Any], Any], ...]:
    """(name, how its value is read, what it reads as when absent) of each field of ``cls``, chosen once
    per class (a log of 100,000 lines is read line by line)."""
    return tuple((name, _reader(kind, facts), facts.absent) for name, kind, facts in log_fields(cls))


def _reader(kind: Any, facts: Logged) -> Callable[[Any], Any]:
    """How a field's value is read from the log: null as None (NaN for a float written so), numbers as the
    field's type, a list as a tuple (of events' parts when the items are), a matrix as float32."""
    base, arguments, nullable = _parts(kind)
    read: Callable[[Any], Any] = base
    composite = base is tuple and is_dataclass(arguments[0])
    if base is np.ndarray:
        read = partial(np.asarray, dtype=np.float32)
    elif composite:
        read = partial(_parts_of, arguments[0])
    if nullable:
        return partial(_or_none, read)
    if facts.nan_as_null:
        return partial(_or_nan, read)
    return read


def _parts_of(cls: type, value: list[dict[str, Any]]) -> tuple[Any, ...]:
    return tuple(_instance(cls, part) for part in value)


def _or_none(read: Callable[[Any], Any], value: Any) -> Any:
    return None if value is None else read(value)


def _or_nan(read: Callable[[Any], Any], value: Any) -> Any:
    return float("nan") if value is None else read(value)
