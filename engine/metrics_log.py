"""The run's metrics log: ``<run folder>/metrics.jsonl``, one JSON object per line, append-only.

The trainer appends one line per step, one per validation (with the fixed validation sentence's
attention snapshot) and one when the run ends, each with a single ``write`` on a file opened for
appending, the line and its newline together. A reader takes only complete lines: a line without
its newline (a write in progress, a copy cut short) is left for the next read, which starts at the
byte offset the last one returned. So any process — the app watching a run started elsewhere, a
script — can follow a run while it trains, from the file alone.

Lines are the engine's events as plain JSON (``kind``: ``step``, ``validation``, ``finished``);
:func:`events_from_records` turns them back into :mod:`engine.events` objects.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from dataclasses import asdict
from pathlib import Path
from typing import Any

import numpy as np

from engine.atomic import write_bytes_atomic
from engine.events import FinishedEvent, FinishReason, SampleTranslation, StepEvent, TrainEvent, ValidationEvent

METRICS_FILE = "metrics.jsonl"
RECORD_KINDS = ("start", "step", "validation", "finished")
MAX_LINE_BYTES = 8 * 1024 * 1024  # a validation line with a 200×200 attention snapshot is ~400 KB


def _finite(value: float | None) -> float | None:
    return None if value is None or value != value or value in (float("inf"), float("-inf")) else float(value)


def event_record(event: TrainEvent) -> dict[str, Any]:
    """One event as a JSON-ready dict (NaN → null; the first sample's attention as nested lists)."""
    if isinstance(event, StepEvent):
        record = {"kind": "step", **asdict(event)}
        for key in ("loss", "tokens_per_second", "learning_rate", "elapsed_seconds", "eta_seconds"):
            record[key] = _finite(record[key])
        return record
    if isinstance(event, ValidationEvent):
        samples = []
        for sample in event.samples[:1]:
            samples.append({
                "source": sample.source, "reference": sample.reference, "hypothesis": sample.hypothesis,
                "source_tokens": list(sample.source_tokens), "tokens": list(sample.tokens),
                "attention": None if sample.attention is None else np.round(sample.attention.astype(float), 4).tolist(),
            })
        return {"kind": "validation", "step": event.step, "epoch": event.epoch, "valid_loss": _finite(event.valid_loss),
                "bleu": event.bleu, "chrf": event.chrf, "exact_match": event.exact_match, "is_best": event.is_best,
                "best_bleu": event.best_bleu, "learning_rate": event.learning_rate,
                "elapsed_seconds": event.elapsed_seconds, "long_bleu": event.long_bleu, "samples": samples}
    return {"kind": "finished", **{k: (str(v) if k == "reason" else v) for k, v in asdict(event).items()}}


class MetricsLog:
    """Appends events to a run folder's metrics log."""

    def __init__(self, run_folder: Path) -> None:
        self.path = Path(run_folder) / METRICS_FILE

    def append(self, event: TrainEvent) -> None:
        self._write(event_record(event))

    def _write(self, record: dict[str, Any]) -> None:
        line = (json.dumps(record, ensure_ascii=False, allow_nan=False) + "\n").encode("utf-8")
        descriptor = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o666)
        try:
            os.write(descriptor, line)  # one write: line and newline together
        finally:
            os.close(descriptor)

    def clear(self) -> None:
        """A new run in this folder starts a new log."""
        self.path.unlink(missing_ok=True)

    def start(self, description: dict[str, Any]) -> None:
        """The log's first line: what the run is (languages, corpus or task, model, training config),
        so that a reader can show it before any checkpoint or model exists."""
        self._write({"kind": "start", **description})

    def truncate_after(self, step: int) -> None:
        """Keep the lines up to ``step`` (a resumed run repeats the steps after its checkpoint, and
        its log must not hold them twice); the file is replaced atomically."""
        records, _ = read_records(self.path.parent)
        kept = [r for r in records if r.get("kind") != "finished" and int(r.get("step", 0) or 0) <= step]
        text = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in kept)
        write_bytes_atomic(self.path, text.encode("utf-8"))


def read_records(run_folder: Path, offset: int = 0, limit: int | None = None) -> tuple[list[dict[str, Any]], int]:
    """The complete lines from byte ``offset`` on (at most ``limit`` records), as dicts, and the
    offset to read from next time. A torn last line is left unread; a line that is not JSON (or too
    long) is skipped."""
    path = Path(run_folder) / METRICS_FILE
    records: list[dict[str, Any]] = []
    try:
        with path.open("rb") as handle:
            handle.seek(offset)
            while True:
                line = handle.readline(MAX_LINE_BYTES + 1)
                if not line.endswith(b"\n"):
                    if len(line) > MAX_LINE_BYTES:  # an overlong line: skip to its end
                        while (rest := handle.readline(1 << 20)) and not rest.endswith(b"\n"):
                            pass
                        offset = handle.tell()
                        continue
                    break  # a torn tail (or the end): read it next time
                offset += len(line)
                try:
                    record = json.loads(line)
                except ValueError:
                    continue
                if isinstance(record, dict) and record.get("kind") in RECORD_KINDS:
                    records.append(record)
                    if limit is not None and len(records) >= limit:
                        break
    except FileNotFoundError:
        return [], offset
    return records, offset


def run_description(records: Iterable[dict[str, Any]]) -> dict[str, Any] | None:
    """The run's own description (the log's ``start`` line), if the records hold it."""
    return next((r for r in records if r.get("kind") == "start"), None)


def events_from_records(records: Iterable[dict[str, Any]]) -> list[TrainEvent]:
    """The log's lines as engine events (the start line and lines of an unknown shape are skipped)."""
    events: list[TrainEvent] = []
    for record in records:
        if record.get("kind") == "start":
            continue
        try:
            events.append(_event(record))
        except (KeyError, TypeError, ValueError):
            continue
    return events


def _number(value: Any) -> float:
    return float("nan") if value is None else float(value)


def _event(record: dict[str, Any]) -> TrainEvent:
    kind = record["kind"]
    if kind == "step":
        return StepEvent(
            step=int(record["step"]), epoch=int(record["epoch"]), batch=int(record["batch"]),
            batches_per_epoch=int(record["batches_per_epoch"]), loss=_number(record["loss"]),
            tokens_per_second=_number(record["tokens_per_second"]), learning_rate=_number(record["learning_rate"]),
            skipped_steps=int(record["skipped_steps"]), elapsed_seconds=_number(record["elapsed_seconds"]),
            eta_seconds=None if record.get("eta_seconds") is None else float(record["eta_seconds"]))
    if kind == "validation":
        samples = tuple(SampleTranslation(
            source=str(s["source"]), reference=str(s["reference"]), hypothesis=str(s["hypothesis"]),
            source_tokens=tuple(s["source_tokens"]), tokens=tuple(s["tokens"]),
            attention=None if s.get("attention") is None else np.asarray(s["attention"], dtype=np.float32),
        ) for s in record.get("samples", []))
        return ValidationEvent(
            step=int(record["step"]), epoch=int(record["epoch"]), valid_loss=_number(record["valid_loss"]),
            bleu=float(record["bleu"]), chrf=float(record["chrf"]), exact_match=float(record["exact_match"]),
            samples=samples, is_best=bool(record["is_best"]), best_bleu=float(record["best_bleu"]),
            learning_rate=float(record["learning_rate"]), elapsed_seconds=float(record["elapsed_seconds"]),
            long_bleu=None if record.get("long_bleu") is None else float(record["long_bleu"]))
    if kind == "finished":
        return FinishedEvent(
            reason=FinishReason(record["reason"]), best_bleu=float(record["best_bleu"]),
            best_epoch=int(record["best_epoch"]), steps=int(record["steps"]),
            epochs_completed=int(record["epochs_completed"]), seconds=float(record["seconds"]),
            tokens_per_second=float(record["tokens_per_second"]), skipped_steps=int(record["skipped_steps"]),
            model_folder=str(record["model_folder"]))
    raise ValueError(f"unknown kind {kind!r}")


def last_finish_reason(run_folder: Path) -> FinishReason | None:
    """How the run in ``run_folder`` last ended, when its log's last line is a finished event (a run
    still going, killed or never started: None). Reads the log in bounded chunks."""
    offset, last = 0, None
    while True:
        records, offset = read_records(run_folder, offset, limit=1000)
        if not records:
            break
        last = records[-1]
    if last is None or last.get("kind") != "finished":
        return None
    try:
        return FinishReason(last.get("reason"))
    except ValueError:
        return None
