"""The schema of the metrics log's lines (engine.training.metrics_log), one per kind of record.

A line is used only when it fits its kind's schema (engine.files.schema: types, ranges, finite numbers)
and its parts agree: a validation's attention snapshot is a matrix of one row per output token and
one column per source token. The trainer writes non-finite numbers as ``null``; a reader never sees
``Infinity`` or ``NaN`` in a line it accepts.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from engine.files.schema import (
    Anything,
    Bool,
    Choice,
    Int,
    ListOf,
    Num,
    Obj,
    SchemaError,
    Str,
    dataclass_spec,
    validate,
)
from engine.settings.config import ModelConfig, TrainConfig
from engine.training.checkpoint_schema import REQUEST
from engine.training.events import FinishReason

COUNT = Int(low=0)
TEXT = Str(max_length=100_000)
TOKENS = ListOf(Str(max_length=1_000), max_items=10_000)


def _kind(name: str) -> Choice:
    return Choice((name,))


START = Obj({
    "kind": _kind("start"), "source_language": Str(max_length=32), "target_language": Str(max_length=32),
    "model": dataclass_spec(ModelConfig, nullable=True), "train_config": dataclass_spec(TrainConfig, nullable=True),
    "request": replace(REQUEST, nullable=True), "data": Anything(kinds=(dict, type(None))),
    "task": Str(max_length=64, nullable=True), "corpus_path": Str(max_length=4096, nullable=True),
    "command": Str(max_length=100_000),
}, required=frozenset({"kind"}), extra=Anything())

STEP = Obj({
    "kind": _kind("step"), "step": COUNT, "epoch": COUNT, "batch": COUNT, "batches_per_epoch": COUNT,
    "loss": Num(nullable=True), "tokens_per_second": Num(low=0, nullable=True),
    "learning_rate": Num(low=0, nullable=True), "skipped_steps": COUNT, "elapsed_seconds": Num(low=0),  # a clock: never null
    "eta_seconds": Num(nullable=True), "target_tokens": COUNT,  # not in logs written before it was
}, required=frozenset({"kind", "step", "epoch", "batch", "batches_per_epoch", "loss", "tokens_per_second",
                       "learning_rate", "skipped_steps", "elapsed_seconds"}))

SAMPLE = Obj({
    "source": TEXT, "reference": TEXT, "hypothesis": TEXT, "source_tokens": TOKENS, "tokens": TOKENS,
    "attention": ListOf(ListOf(Num(0, 1), max_items=10_000), max_items=10_000, nullable=True),
}, required=frozenset({"source", "reference", "hypothesis", "source_tokens", "tokens"}))

VALIDATION = Obj({
    "kind": _kind("validation"), "step": COUNT, "epoch": COUNT, "valid_loss": Num(nullable=True), "bleu": Num(),
    "chrf": Num(), "exact_match": Num(), "is_best": Bool(), "best_bleu": Num(), "learning_rate": Num(low=0),
    "elapsed_seconds": Num(low=0), "long_bleu": Num(nullable=True), "samples": ListOf(SAMPLE, max_items=64),
}, required=frozenset({"kind", "step", "epoch", "valid_loss", "bleu", "chrf", "exact_match", "is_best",
                       "best_bleu", "learning_rate", "elapsed_seconds"}))

FINISHED = Obj({
    "kind": _kind("finished"), "reason": Choice(tuple(reason.value for reason in FinishReason)),
    "best_bleu": Num(), "best_epoch": COUNT, "steps": COUNT, "epochs_completed": COUNT, "seconds": Num(low=0),
    "tokens_per_second": Num(low=0), "skipped_steps": COUNT, "model_folder": Str(max_length=4096),
}, required=frozenset({"kind", "reason", "best_bleu", "best_epoch", "steps", "epochs_completed", "seconds",
                       "tokens_per_second", "skipped_steps", "model_folder"}))

RECORDS = {"start": START, "step": STEP, "validation": VALIDATION, "finished": FINISHED}
RECORD_KINDS = tuple(RECORDS)


def check_record(record: Any) -> None:
    """Raise SchemaError unless ``record`` is a line of one of the known kinds, whole and consistent."""
    if type(record) is not dict:
        raise SchemaError((), "a line must be a JSON object")
    kind = record.get("kind")
    spec = RECORDS.get(kind) if isinstance(kind, str) else None
    if spec is None:
        raise SchemaError(("kind",), f"must be one of {', '.join(RECORD_KINDS)}")
    validate(spec, record)
    if spec is VALIDATION:
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


