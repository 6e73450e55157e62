"""Watching a run started elsewhere — from the command line, under torchrun, on a share or a folder
synced from a GPU server — from its folder alone: its metrics log (engine.metrics_log), read in a
worker every half second, feeds a :class:`RunRecord`, so its curves and attention snapshots grow in
the Train tab like the app's own runs (read only; a torn last line waits for the next read).
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator
from pathlib import Path

from PySide6.QtCore import QObject, QTimer, Signal

from engine.errors import ConfigError
from engine.events import FinishedEvent, StepEvent, ValidationEvent
from engine.metrics_log import METRICS_FILE, events_from_records, read_records, run_description
from gui.training.records import RunRecord
from gui.training.settings import RunSettings
from gui.workers import JobStarter

POLL_MS = 500  # how far behind the watched run the curves may be
READ_CHUNK = 2_000  # log lines parsed per item
CHUNK_PAUSE_SECONDS = 0.005
APPLY_INTERVAL_MS = 33  # chunks that arrive meanwhile are applied together (≈30 redraws a second)


def read_more(folder: Path, offset: int, identity: int | None) -> Iterator[tuple[list, dict | None, int, int, bool]]:
    """(events, the run's description if these lines hold it, the next offset, the log's identity,
    whether it was read from the start again), parsed in the worker, READ_CHUNK lines at a time. A
    log replaced since the last read (a resumed run rewrites it without the steps it repeats) is
    read again from its start.

    A long log (a finished run of 100,000 steps) comes in chunks with a short sleep between them:
    parsing holds the interpreter lock, and one pass over the whole file would keep the window from
    running for seconds; this way it redraws between chunks and the curves fill in as they come."""
    try:
        stat = (Path(folder) / METRICS_FILE).stat()
    except OSError:
        yield [], None, offset, identity or 0, False
        return
    restarted = identity is not None and (stat.st_ino != identity or stat.st_size < offset)
    offset = 0 if restarted else offset
    while True:
        records, offset = read_records(folder, offset, READ_CHUNK)
        yield events_from_records(records), run_description(records), offset, stat.st_ino, restarted
        if len(records) < READ_CHUNK:
            return
        restarted = False
        time.sleep(CHUNK_PAUSE_SECONDS)  # the window's turn


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
        self._pending: list[tuple] = []
        self._apply_timer = QTimer(self)
        self._apply_timer.setSingleShot(True)
        self._apply_timer.setInterval(APPLY_INTERVAL_MS)
        self._apply_timer.timeout.connect(self._apply_pending)

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
        if self._job is not None and self._job.is_running():
            return
        folder, offset, identity = self.folder, self.offset, self.identity
        self._job = self.jobs.start(lambda: read_more(folder, offset, identity), f"watch {folder.name}")
        self._job.yielded.connect(lambda _id, result: self._take(result))

    def _take(self, chunk: tuple) -> None:
        self._pending.append(chunk)
        if not self._apply_timer.isActive():
            self._apply_timer.start()

    def _apply_pending(self) -> None:
        """Every chunk read since the last application, as one: their events in order, the newest
        offset; a restart drops what came before it."""
        pending, self._pending = self._pending, []
        if not pending:
            return
        starts = [i for i, chunk in enumerate(pending) if chunk[4]]
        if starts:
            pending = pending[starts[-1]:]
        events = [event for chunk in pending for event in chunk[0]]
        description = next((chunk[1] for chunk in pending if chunk[1] is not None), None)
        self._apply(events, description, pending[-1][2], pending[-1][3], bool(starts))

    def _apply(self, events: list, description: dict | None, offset: int, identity: int, restarted: bool) -> None:
        self.offset, self.identity = offset, identity
        record = self.record
        if restarted:
            record.clear_history()
        if description is not None:
            with contextlib.suppress(ConfigError):  # a description no run of this version wrote: keep what we had
                record.settings = RunSettings.describing(description, record.name)
        steps = [e for e in events if isinstance(e, StepEvent)]
        if steps:
            record.add_steps(steps)
            if record.status in ("watching", "waiting"):
                record.status = "training (watched)"
        validations = [event for event in events if isinstance(event, ValidationEvent)]
        for event in validations:
            record.add_validation(event)
        if validations:  # once per read: opening a long log must not redraw once per validation in it
            self.validated.emit(record)
        for event in events:
            if isinstance(event, FinishedEvent):
                record.finished = event
                record.status = f"{event.reason} (watched)"
                self.stop()
                self.ended.emit(record)
        if events or description is not None:
            self.changed.emit(record)
