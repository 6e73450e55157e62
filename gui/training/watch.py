"""Watching a run started elsewhere — from the command line, under torchrun, on a share or a folder
synced from a GPU server — from its folder alone: its metrics log (engine.metrics_log), read in a
worker every half second, feeds a :class:`RunRecord`, so its curves and attention snapshots grow in
the Train tab like the app's own runs (read only; a torn last line waits for the next read).
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import QObject, QTimer, Signal

from engine.errors import ConfigError
from engine.events import FinishedEvent, StepEvent, ValidationEvent
from engine.metrics_log import METRICS_FILE, events_from_records, read_records, run_description
from gui.training.records import RunRecord, StepBlock
from gui.training.settings import RunSettings
from gui.workers import JobStarter

POLL_MS = 500  # how far behind the watched run the curves may be
READ_CHUNK = 2_000  # log lines parsed per item
READER_WAIT_SECONDS = 0.5  # the longest the reader waits for the window to take in its last chunk
DRAW_GRACE_MS = 40  # after a chunk is applied, time for the redraw it asked for before the reader goes on
APPLY_INTERVAL_MS = 33  # chunks that arrive meanwhile are applied together (≈30 redraws a second)
APPLY_CHUNKS = 4  # at most this many chunks per application: a backlog is taken a bounded bite at a time
CATCH_UP_REDRAW_MS = 300  # while a backlog is taken in, the curves redraw this often (each redraw costs
# as much as the points drawn: redrawing 100,000 points thirty times a second would hold the window)


@dataclass(frozen=True)
class LogChunk:
    """Lines of a metrics log, parsed in the worker: the steps as columns, the other events in order."""

    steps: StepBlock
    events: tuple  # validations and the finish, in the log's order
    description: dict | None  # the run's description, if these lines hold it
    offset: int  # where the next read starts
    identity: int  # the log file's inode
    restarted: bool  # read from the start again (the log was replaced)


def _chunk(events: list, description: dict | None, offset: int, identity: int, restarted: bool) -> LogChunk:
    steps = [event for event in events if isinstance(event, StepEvent)]
    others = tuple(event for event in events if not isinstance(event, StepEvent))
    return LogChunk(StepBlock.from_events(steps), others, description, offset, identity, restarted)


def read_more(folder: Path, offset: int, identity: int | None,
              may_go_on: threading.Event | None = None) -> Iterator[LogChunk]:
    """The log's lines from ``offset`` on, parsed in the worker, READ_CHUNK lines at a time. A log
    replaced since the last read (a resumed run rewrites it without the steps it repeats) is read
    again from its start.

    A long log (a finished run of 100,000 steps) comes in chunks, and after each the reader waits
    until the window has taken it in (``may_go_on``, set by the watcher; at most
    READER_WAIT_SECONDS). Parsing is Python and holds the interpreter lock; so does drawing the
    curves (pyqtgraph), so the two running side by side make each wait for the other at every
    switch: the window would stall for hundreds of milliseconds at a time. Taking turns, the
    window redraws between chunks and the curves fill in as they come."""
    try:
        stat = (Path(folder) / METRICS_FILE).stat()
    except OSError:
        yield _chunk([], None, offset, identity or 0, False)
        return
    restarted = identity is not None and (stat.st_ino != identity or stat.st_size < offset)
    offset = 0 if restarted else offset
    while True:
        records, offset = read_records(folder, offset, READ_CHUNK)
        yield _chunk(events_from_records(records), run_description(records), offset, stat.st_ino, restarted)
        if len(records) < READ_CHUNK:
            return
        restarted = False
        if may_go_on is not None:  # the window's turn
            may_go_on.wait(READER_WAIT_SECONDS)
            may_go_on.clear()


class RunWatcher(QObject):
    changed = Signal(object)  # RunRecord: new steps, status or settings
    validated = Signal(object)  # RunRecord with a new validation (and attention snapshot)
    ended = Signal(object)  # RunRecord: its log says the run finished

    def __init__(self, folder: Path, record: RunRecord, jobs: JobStarter, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.folder, self.record, self.jobs = Path(folder), record, jobs
        self.offset = 0
        self.identity: int | None = None  # the log file's inode when last read
        self._job = None
        self.timer = QTimer(self)
        self.timer.setInterval(POLL_MS)
        self.timer.timeout.connect(self.poll)
        # Chunks are applied together at most every APPLY_INTERVAL_MS: each application redraws the
        # curves with every point so far, so a long log applied chunk by chunk would redraw fifty
        # times in a row while its chunks queue up.
        self._pending: list[LogChunk] = []
        self._apply_timer = QTimer(self)
        self._apply_timer.setSingleShot(True)
        self._apply_timer.setInterval(APPLY_INTERVAL_MS)
        self._apply_timer.timeout.connect(self._apply_pending)
        self._reader_may_go_on = threading.Event()  # set once the window has taken in the last chunk
        # What the last applications changed and nobody has been told yet (a backlog defers it).
        self._unannounced = {"changed": False, "validated": False}
        self._last_announced = 0.0
        self._announce_timer = QTimer(self)
        self._announce_timer.setSingleShot(True)
        self._announce_timer.setInterval(CATCH_UP_REDRAW_MS)
        self._announce_timer.timeout.connect(self._announce)

    @staticmethod
    def can_watch(folder: Path) -> str:
        """Why ``folder`` cannot be watched ("" when it can)."""
        if not Path(folder).is_dir():
            return f"{folder} is not a folder"
        if not (Path(folder) / METRICS_FILE).is_file():
            return f"{folder} has no {METRICS_FILE}: not a training run's folder (or one from an older version)"
        return ""

    def start(self) -> None:
        self.poll()
        self.timer.start()

    def stop(self) -> None:
        self.timer.stop()

    def poll(self) -> None:
        if self.catching_up():  # the next read starts where the lines read so far end
            return
        folder, offset, identity, may_go_on = self.folder, self.offset, self.identity, self._reader_may_go_on
        may_go_on.clear()
        self._job = self.jobs.start(lambda: read_more(folder, offset, identity, may_go_on), f"watch {folder.name}")
        self._job.yielded.connect(lambda _id, result: self._take(result))

    def _take(self, chunk: LogChunk) -> None:
        self._pending.append(chunk)
        if not self._apply_timer.isActive():
            self._apply_timer.start()

    def catching_up(self) -> bool:
        """Read lines are waiting to be applied, or the reader is still at work."""
        return bool(self._pending) or (self._job is not None and self._job.is_running())

    def _apply_pending(self) -> None:
        """The oldest chunks read (at most APPLY_CHUNKS), as one: their events in order, the newest
        offset; a restart drops what came before it. The rest waits for the next turn."""
        pending, self._pending = self._pending[:APPLY_CHUNKS], self._pending[APPLY_CHUNKS:]
        if self._pending:
            self._apply_timer.start()
        else:
            QTimer.singleShot(DRAW_GRACE_MS, self._reader_may_go_on.set)
        if not pending:
            return
        record = self.record
        starts = [i for i, chunk in enumerate(pending) if chunk.restarted]
        if starts:
            pending = pending[starts[-1]:]
            record.clear_history()
        self.offset, self.identity = pending[-1].offset, pending[-1].identity
        description = next((chunk.description for chunk in pending if chunk.description is not None), None)
        if description is not None:
            with contextlib.suppress(ConfigError):  # a description no run of this version wrote: keep what we had
                record.settings = RunSettings.describing(description, record.name)
            self._unannounced["changed"] = True
        for chunk in pending:
            if len(chunk.steps):
                record.add_step_block(chunk.steps)
                self._unannounced["changed"] = True
                if record.status in ("watching", "waiting"):
                    record.status = "training (watched)"
            for event in chunk.events:
                if isinstance(event, ValidationEvent):
                    record.add_validation(event)
                    self._unannounced["validated"] = self._unannounced["changed"] = True
        finished = [event for chunk in pending for event in chunk.events if isinstance(event, FinishedEvent)]
        if finished:
            record.finished = finished[-1]
            record.status = f"{finished[-1].reason} (watched)"
            self.stop()
            self._announce(final=True)
            self.ended.emit(record)
        elif not self.catching_up() or time.perf_counter() - self._last_announced >= CATCH_UP_REDRAW_MS / 1000:
            self._announce()
        elif not self._announce_timer.isActive():
            self._announce_timer.start()

    def _announce(self, final: bool = False) -> None:
        """Tell the window what changed since it was last told: one signal, one redraw (``validated``
        also redraws what ``changed`` would). While a backlog is taken in, new validations only move
        the curves; the attention snapshots (a map to lay out and label) follow once it is in."""
        self._announce_timer.stop()
        self._last_announced = time.perf_counter()
        if self._unannounced["validated"] and (final or not self.catching_up()):
            self.validated.emit(self.record)
            self._unannounced = {"changed": False, "validated": False}
        elif self._unannounced["changed"]:
            self.changed.emit(self.record)
            self._unannounced["changed"] = False
        if self._unannounced["validated"]:  # the snapshots wait for the backlog: look again soon
            self._announce_timer.start()
