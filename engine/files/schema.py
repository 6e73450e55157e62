"""A small typed schema for the JSON the engine stores: every value a reader acts on is checked for
type, range, allowed keys and finiteness before it is used.

Specs are frozen dataclasses that check a parsed document and raise :class:`SchemaError` naming the
place in the document and what was expected (the valid choices where there is a list of them). Every
number is finite unless its spec says otherwise (``Num(finite=False)``): JSON written by Python may
hold ``NaN`` and ``Infinity``, and a value of ``1e999`` parses as infinity, so finiteness is a rule of
the schema rather than of the parser. ``Anything`` is for descriptive sections that are shown but not
acted on: any JSON value, its numbers finite, its nesting bounded.

The checks are plain Python type tests (a metrics log of 100,000 step lines is checked line by
line as it is read, so they must be cheap); :mod:`engine.files.stored` applies them to files.
"""

from __future__ import annotations

import math
import re
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields
from functools import cached_property
from typing import Any

MAX_DEPTH = 64
Path_ = tuple[str | int, ...]


class SchemaError(ValueError):
    """A document does not fit its schema; ``str()`` is one line: where, then what."""

    def __init__(self, path: Path_, message: str) -> None:
        self.path, self.message = path, message
        where = "/".join(str(part) for part in path) or "the top level"
        super().__init__(f"{where}: {message}")


def describe(value: Any) -> str:
    """A value's kind in words, for messages (the value itself when it is short)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return f"a boolean ({value})".lower()
    if isinstance(value, int):
        return f"an integer ({value})" if abs(value) < 10**12 else "an integer"
    if isinstance(value, float):
        return f"a number ({value})"
    if isinstance(value, str):
        return f"a string ({value[:20]!r})"
    return "a list" if isinstance(value, list) else "an object" if isinstance(value, dict) else type(value).__name__


class Spec:
    nullable: bool = False

    def check(self, value: Any, path: Path_ = ()) -> None:
        raise NotImplementedError

    @cached_property
    def accepts(self) -> Callable[[Any], bool]:
        """The same test as :meth:`check` as a predicate, compiled once (a metrics log is checked line
        by line as it is read): True when ``value`` fits. :meth:`check` then says what is wrong."""
        def accepts(value: Any) -> bool:
            try:
                self.check(value)
            except SchemaError:
                return False
            return True
        return accepts


def _range(value: float, low: float | None, high: float | None, path: Path_) -> None:
    if (low is not None and value < low) or (high is not None and value > high):
        bounds = f"between {low} and {high}" if low is not None and high is not None else (
            f"at least {low}" if low is not None else f"at most {high}")
        raise SchemaError(path, f"must be {bounds}; got {value}")


LARGEST_INT = 2**53  # beyond it an integer no longer survives a float (the plots hold them as floats)


@dataclass(frozen=True)
class Int(Spec):
    low: int | None = None
    high: int | None = None
    nullable: bool = False

    def check(self, value: Any, path: Path_ = ()) -> None:
        if value is None and self.nullable:
            return
        if type(value) is not int:
            raise SchemaError(path, f"expected an integer, got {describe(value)}")
        if not -LARGEST_INT <= value <= LARGEST_INT:
            raise SchemaError(path, f"is too large an integer ({describe(value)})")
        _range(value, self.low, self.high, path)

    @cached_property
    def accepts(self) -> Callable[[Any], bool]:
        low = -LARGEST_INT if self.low is None else max(self.low, -LARGEST_INT)
        high = LARGEST_INT if self.high is None else min(self.high, LARGEST_INT)
        nullable = self.nullable
        return lambda value: (type(value) is int and low <= value <= high) or (nullable and value is None)


@dataclass(frozen=True)
class Num(Spec):
    low: float | None = None
    high: float | None = None
    nullable: bool = False
    finite: bool = True  # False: NaN and ±infinity are allowed (and the range is not checked for them)

    def check(self, value: Any, path: Path_ = ()) -> None:
        if value is None and self.nullable:
            return
        kind = type(value)
        if kind is not float and kind is not int:
            raise SchemaError(path, f"expected a number, got {describe(value)}")
        if kind is float and not math.isfinite(value):
            if self.finite:
                raise SchemaError(path, f"must be a finite number; got {value}")
            return
        _range(value, self.low, self.high, path)

    @cached_property
    def accepts(self) -> Callable[[Any], bool]:
        low = -math.inf if self.low is None else self.low
        high = math.inf if self.high is None else self.high
        nullable, finite, isfinite = self.nullable, self.finite, math.isfinite

        def accepts(value: Any) -> bool:
            kind = type(value)
            if kind is int:
                return low <= value <= high
            if kind is float:
                return low <= value <= high if isfinite(value) else not finite
            return nullable and value is None
        return accepts


@dataclass(frozen=True)
class Str(Spec):
    max_length: int | None = None
    pattern: str | None = None  # a full match is required
    nullable: bool = False

    def check(self, value: Any, path: Path_ = ()) -> None:
        if value is None and self.nullable:
            return
        if type(value) is not str:
            raise SchemaError(path, f"expected a string, got {describe(value)}")
        if self.max_length is not None and len(value) > self.max_length:
            raise SchemaError(path, f"is {len(value):,} characters long; at most {self.max_length:,}")
        if self.pattern is not None and re.fullmatch(self.pattern, value) is None:
            raise SchemaError(path, f"{value[:40]!r} is not of the form {self.pattern}")

    @cached_property
    def accepts(self) -> Callable[[Any], bool]:
        longest = math.inf if self.max_length is None else self.max_length
        pattern = None if self.pattern is None else re.compile(self.pattern)
        nullable = self.nullable

        def accepts(value: Any) -> bool:
            if type(value) is not str:
                return nullable and value is None
            return len(value) <= longest and (pattern is None or pattern.fullmatch(value) is not None)
        return accepts


SHA256 = Str(pattern="[0-9a-f]{64}")


@dataclass(frozen=True)
class Bool(Spec):
    nullable: bool = False

    def check(self, value: Any, path: Path_ = ()) -> None:
        if value is None and self.nullable:
            return
        if type(value) is not bool:
            raise SchemaError(path, f"expected true or false, got {describe(value)}")

    @cached_property
    def accepts(self) -> Callable[[Any], bool]:
        nullable = self.nullable
        return lambda value: type(value) is bool or (nullable and value is None)


@dataclass(frozen=True)
class Choice(Spec):
    values: tuple[Any, ...]
    nullable: bool = False

    def check(self, value: Any, path: Path_ = ()) -> None:
        if value is None and self.nullable:
            return
        if type(value) not in (str, int) or value not in self.values:
            raise SchemaError(path, f"{describe(value)} is not one of {', '.join(map(str, self.values))}")

    @cached_property
    def accepts(self) -> Callable[[Any], bool]:
        values, nullable = frozenset(self.values), self.nullable
        return lambda value: (type(value) in (str, int) and value in values) or (nullable and value is None)


@dataclass(frozen=True)
class ListOf(Spec):
    item: Spec
    min_items: int = 0
    max_items: int | None = None
    nullable: bool = False

    def check(self, value: Any, path: Path_ = ()) -> None:
        if value is None and self.nullable:
            return
        if type(value) is not list:
            raise SchemaError(path, f"expected a list, got {describe(value)}")
        if len(value) < self.min_items or (self.max_items is not None and len(value) > self.max_items):
            count = (f"exactly {self.min_items}" if self.min_items == self.max_items else
                     f"{self.min_items} to {self.max_items}" if self.max_items is not None else
                     f"at least {self.min_items}")
            raise SchemaError(path, f"must hold {count} items; holds {len(value)}")
        check = self.item.check
        for index, item in enumerate(value):
            check(item, (*path, index))

    @cached_property
    def accepts(self) -> Callable[[Any], bool]:
        test, nullable = self.item.accepts, self.nullable
        low, high = self.min_items, math.inf if self.max_items is None else self.max_items

        def accepts(value: Any) -> bool:
            if type(value) is not list:
                return nullable and value is None
            return low <= len(value) <= high and all(map(test, value))
        return accepts


@dataclass(frozen=True)
class Obj(Spec):
    """An object with known keys (``fields``), of which ``required`` must be present. Other keys are
    refused, unless ``extra`` gives a spec for them."""

    fields: Mapping[str, Spec]
    required: frozenset[str] = frozenset()
    extra: Spec | None = None
    nullable: bool = False

    def check(self, value: Any, path: Path_ = ()) -> None:
        if value is None and self.nullable:
            return
        if type(value) is not dict:
            raise SchemaError(path, f"expected an object, got {describe(value)}")
        for key in sorted(self.required):
            if key not in value:
                raise SchemaError(path, f"{key!r} is missing")
        known = self.fields
        for key, item in value.items():
            spec = known.get(key, self.extra)
            if spec is None:
                raise SchemaError(path, f"unexpected key {key!r} (allowed: {', '.join(sorted(known))})")
            spec.check(item, (*path, key))

    @cached_property
    def accepts(self) -> Callable[[Any], bool]:
        from engine.files.schema_compile import compile_object

        return compile_object(self)


@dataclass(frozen=True)
class MapOf(Spec):
    """An object whose keys match ``key_pattern`` and whose values are all ``value``."""

    value: Spec
    key_pattern: str = ".*"
    max_items: int | None = None

    def check(self, value: Any, path: Path_ = ()) -> None:
        if type(value) is not dict:
            raise SchemaError(path, f"expected an object, got {describe(value)}")
        if self.max_items is not None and len(value) > self.max_items:
            raise SchemaError(path, f"holds {len(value):,} entries; at most {self.max_items:,}")
        for key, item in value.items():
            if re.fullmatch(self.key_pattern, key) is None:
                raise SchemaError(path, f"key {key[:40]!r} is not of the form {self.key_pattern}")
            self.value.check(item, (*path, key))


# The kinds of JSON value in words, for messages.
_KIND_NAMES = {dict: "an object", list: "a list", str: "a string", int: "a number", float: "a number",
               bool: "a boolean", type(None): "null"}


@dataclass(frozen=True)
class Anything(Spec):
    """Any JSON value (of the ``kinds`` named), every number in it finite, nested at most ``max_depth``."""

    kinds: tuple[type, ...] = (dict, list, str, int, float, bool, type(None))
    max_depth: int = MAX_DEPTH

    def check(self, value: Any, path: Path_ = ()) -> None:
        if type(value) not in self.kinds:
            allowed = " or ".join(dict.fromkeys(_KIND_NAMES[k] for k in self.kinds))
            raise SchemaError(path, f"expected {allowed}, got {describe(value)}")
        self._check_inside(value, path)

    def _check_inside(self, value: Any, path: Path_) -> None:
        """Every number in ``value`` finite and its nesting within ``max_depth``, walked with a stack
        (a deep document never exhausts Python's recursion)."""
        stack: list[tuple[Any, Path_]] = [(value, path)]
        while stack:
            item, where = stack.pop()
            kind = type(item)
            if kind is float and not math.isfinite(item):
                raise SchemaError(where, f"must be a finite number; got {item}")
            if kind is dict or kind is list:
                if len(where) - len(path) >= self.max_depth:
                    raise SchemaError(where, f"nests deeper than {self.max_depth} levels")
                pairs = item.items() if kind is dict else enumerate(item)
                stack.extend((child, (*where, key)) for key, child in pairs)


OBJECT = Anything(kinds=(dict,))
SCALAR = Anything(kinds=(str, int, float, bool, type(None)))


def validate(spec: Spec, value: Any) -> None:
    """Raise SchemaError (where, and what is wrong) unless ``value`` fits ``spec``: the compiled
    predicate first, the precise check only for what it refuses."""
    if not spec.accepts(value):
        spec.check(value)
        raise SchemaError((), "does not fit its schema")  # the two tests disagree: never let it through


def dataclass_spec(cls: type, extra: Spec | None = SCALAR, nullable: bool = False) -> Obj:
    """The spec of a settings dataclass written with ``to_dict``: each field typed by its annotation
    (int, float, str, bool, or one of them or None; any other annotation: any JSON value, finite);
    none is required, since a missing one keeps its default. ``extra`` is for fields of another
    version (by default: any scalar)."""
    hints = typing.get_type_hints(cls)
    specs: dict[str, Spec] = {}
    for item in fields(cls):
        kinds = set(typing.get_args(hints[item.name])) or {hints[item.name]}
        optional = type(None) in kinds
        kinds.discard(type(None))
        base = kinds.pop() if len(kinds) == 1 else None
        simple = {int: Int(nullable=optional), float: Num(nullable=optional), str: Str(nullable=optional),
                  bool: Bool(nullable=optional)}
        specs[item.name] = simple.get(base, Anything()) if base is not None else Anything()
    return Obj(specs, extra=extra, nullable=nullable)


@dataclass(frozen=True)
class Either(Spec):
    """The first of ``options`` that fits (the message of the last one otherwise)."""

    options: tuple[Spec, ...] = field(default_factory=tuple)

    def check(self, value: Any, path: Path_ = ()) -> None:
        error: SchemaError | None = None
        for option in self.options:
            try:
                option.check(value, path)
                return
            except SchemaError as problem:
                error = problem
        if error is not None:
            raise error
