"""The run's metrics log: ``<run folder>/metrics.jsonl``, one JSON object per line, append-only.

The trainer appends one line per step, one per validation (with the fixed validation sentence's
attention snapshot) and one when the run ends, each with a single ``write`` on a file opened for
appending, the line and its newline together. A reader takes only complete lines: a line without
its newline (a write in progress, a copy cut short) is left for the next read, which starts at the
byte offset the last one returned. So any process — the app watching a run started elsewhere, a
script — can follow a run while it trains, from the file alone.

Every line is checked before it is used (engine.training.metrics_schema: its kind's fields typed, numbers
finite, an attention snapshot of the shape its tokens give); a damaged line is skipped and counted
(:class:`LogRead`), so one bad line never hides the others. Readers stream the file: resuming a run
or finding how it ended holds one line at a time, whatever the log's size. Only a regular file is
read (engine.files.safe_open): a pipe or device where the log should be is refused in one line
(StoredFileError), and an overlong line is skipped no further than the log's size when it was opened.

Lines are the engine's events as plain JSON (``kind``: ``step``, ``validation``, ``finished``), written
and read by the events' own field descriptions (engine.training.metrics_schema);
:func:`events_from_records` turns them back into :mod:`engine.training.events` objects.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

from engine.files.atomic import atomic_writer
from engine.files.safe_open import open_regular
from engine.files.schema import SchemaError
from engine.settings.errors import StoredFileError
from engine.training.events import FinishReason, TrainEvent
from engine.training.metrics_schema import RECORD_KINDS, check_record, event_record, record_event

METRICS_FILE = "metrics.jsonl"
__all__ = ["METRICS_FILE", "RECORD_KINDS", "LogRead", "MetricsLog", "events_from_records", "last_finish_reason",
           "read_description", "read_log", "read_records", "run_description"]
MAX_LINE_BYTES = 8 * 1024 * 1024  # a validation line with a 200×200 attention snapshot is ~400 KB


class MetricsLog:
    """Appends events to a run folder's metrics log."""

    def __init__(self, run_folder: Path) -> None:
        self.path = Path(run_folder) / METRICS_FILE

    def append(self, event: TrainEvent) -> None:
        self._write(event_record(event))

    def _write(self, record: dict[str, Any]) -> None:
        line = _line(record)
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

    def truncate_after(self, step: int, start: dict[str, Any] | None = None) -> LogRead:
        """Keep the lines up to ``step`` (a resumed run repeats the steps after its checkpoint, and
        its log must not hold them twice); with ``start``, the run's description is replaced by it (a
        resume's own options, so that the next bare ``--resume`` keeps them). Damaged lines are
        dropped and counted. The log is streamed into its replacement, which takes its place
        atomically: memory stays bounded by one line whatever the log's size."""
        kept, skipped, problem = 0, 0, ""
        with atomic_writer(self.path) as out:
            if start is not None:
                out.write(_line({"kind": "start", **start}))
                kept += 1
            for where, line in _complete_lines(self.path, 0):
                record, reason = _parse(line)
                if record is None:
                    skipped, problem = skipped + 1, problem or f"byte {where:,}: {reason}"
                    continue
                kind = record["kind"]
                if kind == "start" and start is None or kind in ("step", "validation") and record["step"] <= step:
                    out.write(line)
                    kept += 1
        return LogRead([], kept, skipped, problem)


@dataclass(frozen=True)
class LogRead:
    """What a read of the log found: its valid lines as dicts, where to read on from, and how many
    complete lines were damaged and skipped (with the first one's place and reason)."""

    records: list[dict[str, Any]]
    offset: int
    skipped: int = 0
    problem: str = ""

    def skipped_note(self, run_folder: Path) -> str:
        """'<log>: 2 damaged lines skipped (the first at byte 1,234: …)', or "" when none was."""
        if not self.skipped:
            return ""
        plural = "line" if self.skipped == 1 else "lines"
        return f"{Path(run_folder) / METRICS_FILE}: {self.skipped:,} damaged {plural} skipped (the first at {self.problem})"


def _line(record: dict[str, Any]) -> bytes:
    return (json.dumps(record, ensure_ascii=False, allow_nan=False) + "\n").encode("utf-8")


def _parse(line: bytes) -> tuple[dict[str, Any] | None, str]:
    """A line as a record when it is one (engine.training.metrics_schema), else None and the reason (b"" is
    an overlong line, see _complete_lines)."""
    if not line:
        return None, f"a line longer than {MAX_LINE_BYTES:,} bytes"
    try:
        record = json.loads(line)
    except (ValueError, RecursionError) as error:
        return None, f"not JSON ({str(error)[:80]})"
    try:
        check_record(record)
    except SchemaError as error:
        return None, str(error)[:200]
    except RecursionError:
        return None, "nested too deep"
    return record, ""


def _open_log(path: Path) -> BinaryIO | None:
    """The log opened for reading, None when there is none yet; StoredFileError (one line) when
    something else than a regular file stands there (a pipe would block, a device never end)."""
    try:
        return open_regular(path, StoredFileError)
    except StoredFileError:
        if not path.exists() and not path.is_symlink():
            return None
        raise


def _next_line(handle: BinaryIO, size: int) -> bytes | None:
    """The next complete line; b"" for an overlong one, skipped to its end (bounded by ``size``, the log's
    size when opened); None at a torn tail or the end (read it next time)."""
    line = handle.readline(MAX_LINE_BYTES + 1)
    if line.endswith(b"\n"):
        return line
    if len(line) <= MAX_LINE_BYTES:
        return None  # a torn tail (or the end)
    rest = b""
    while handle.tell() < size and (rest := handle.readline(1 << 20)) and not rest.endswith(b"\n"):
        pass  # an overlong line: skipped to its end
    return b"" if rest.endswith(b"\n") else None  # None: its end is not written yet


def _complete_lines(path: Path, offset: int, stop: list[int] | None = None) -> Iterator[tuple[int, bytes]]:
    """(byte offset, line) of each complete line from ``offset`` on; an overlong line is yielded as
    b"" (damaged). A torn tail is not yielded; ``stop``, when given, receives the offset after the
    last complete line."""
    handle = _open_log(path)
    if handle is None:
        return
    with handle:
        size = os.fstat(handle.fileno()).st_size  # an overlong line is skipped up to here at most
        handle.seek(offset)
        while (line := _next_line(handle, size)) is not None:
            where = offset
            offset = offset + len(line) if line else handle.tell()
            if stop is not None:
                stop[0] = offset
            yield where, line


def read_log(run_folder: Path, offset: int = 0, limit: int | None = None) -> LogRead:
    """The valid complete lines from byte ``offset`` on (at most ``limit`` records), as dicts, the
    offset to read from next time, and the damaged lines skipped on the way. A torn last line is
    left unread."""
    records: list[dict[str, Any]] = []
    skipped, problem = 0, ""
    end = [offset]
    for where, line in _complete_lines(Path(run_folder) / METRICS_FILE, offset, end):
        record, reason = _parse(line)
        if record is None:
            skipped, problem = skipped + 1, problem or f"byte {where:,}: {reason}"
            continue
        records.append(record)
        if limit is not None and len(records) >= limit:
            break
    return LogRead(records, end[0], skipped, problem)


def read_records(run_folder: Path, offset: int = 0, limit: int | None = None) -> tuple[list[dict[str, Any]], int]:
    """The valid complete lines from byte ``offset`` on (at most ``limit``) and the offset to read
    from next time (see :func:`read_log`, which also counts the damaged lines skipped)."""
    read = read_log(run_folder, offset, limit)
    return read.records, read.offset


def read_description(run_folder: Path) -> dict[str, Any] | None:
    """The run's description (the log's start line) without reading the rest of the log."""
    return run_description(read_log(run_folder, 0, limit=1).records)


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
            events.append(record_event(record))
        except (KeyError, TypeError, ValueError, OverflowError):
            continue
    return events


def last_finish_reason(run_folder: Path) -> FinishReason | None:
    """How the run in ``run_folder`` last ended, when its log's last valid line is a finished event
    (a run still going, killed or never started: None). Reads the log backwards from its end, so a
    log of any size costs about its last line. A finished line needs only a known reason here: one
    written by another version, with other figures beside it, still says how its run ended."""
    for line in _lines_from_end(Path(run_folder) / METRICS_FILE):
        record, _ = _parse(line)
        if record is not None:
            return FinishReason(record["reason"]) if record["kind"] == "finished" else None
        reason = _finish_reason(line)
        if reason is not None:
            return reason
    return None


def _finish_reason(line: bytes) -> FinishReason | None:
    """The reason of a finished line that is JSON with a known reason, whatever else it holds."""
    try:
        record = json.loads(line) if line else None
    except (ValueError, RecursionError):
        return None
    if type(record) is not dict or record.get("kind") != "finished" or type(record.get("reason")) is not str:
        return None
    return FinishReason(record["reason"]) if record["reason"] in FinishReason._value2member_map_ else None


def _lines_from_end(path: Path, block_size: int = 1 << 16) -> Iterator[bytes]:
    """The complete lines of ``path``, last first, each with its newline (an overlong line as b"", a
    torn tail left out), read backwards a block at a time: memory bounded by one line."""
    handle = _open_log(path)
    if handle is None:
        return
    with handle:
        state, pending = "tail", b""  # what ``pending`` ends: the torn tail, a known line end, an overlong line
        for block in _blocks_from_end(handle, block_size):
            if b"\n" not in block:
                if state == "line":
                    state, pending = _line_start(block + pending)
                continue
            parts = block.split(b"\n")
            if state != "tail":
                yield _ended(state, parts[-1] + pending)
            for line in reversed(parts[1:-1]):
                yield _bounded(line)
            state, pending = _line_start(parts[0])
        if state != "tail":
            yield _ended(state, pending)


def _blocks_from_end(handle: BinaryIO, block_size: int) -> Iterator[bytes]:
    """The file's bytes in blocks of ``block_size``, the last block first."""
    position = handle.seek(0, os.SEEK_END)
    while position > 0:
        size = min(block_size, position)
        position -= size
        handle.seek(position)
        yield handle.read(size)


def _line_start(pending: bytes) -> tuple[str, bytes]:
    """The end of a line read so far: ("line", it), or ("overlong", b"") once no line may be that long."""
    return ("overlong", b"") if len(pending) > MAX_LINE_BYTES else ("line", pending)


def _ended(state: str, pending: bytes) -> bytes:
    """A line whose start has been reached: itself with its newline, b"" when overlong."""
    return _bounded(pending) if state == "line" else b""


def _bounded(line: bytes) -> bytes:
    return line + b"\n" if len(line) <= MAX_LINE_BYTES else b""
