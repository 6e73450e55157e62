"""Watching a run started elsewhere — from the command line, under torchrun, on a share or a folder
synced from a GPU server — from its folder alone: its metrics log (engine.metrics_log), read in a
worker every half second, feeds a :class:`RunRecord`, so its curves and attention snapshots grow in
the Train tab like the app's own runs (read only; a torn last line waits for the next read).
"""

from __future__ import annotations

import contextlib
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


def read_more(folder: Path, offset: int, identity: int | None) -> Iterator[tuple[list, dict | None, int, int, bool]]:
    """(events, the run's description if these lines hold it, the next offset, the log's identity,
    whether it was read from the start again), parsed in the worker. A log replaced since the last
    read (a resumed run rewrites it without the steps it repeats) is read again from its start."""
    try:
        stat = (Path(folder) / METRICS_FILE).stat()
    except OSError:
        yield [], None, offset, identity or 0, False
        return
    restarted = identity is not None and (stat.st_ino != identity or stat.st_size < offset)
    records, offset = read_records(folder, 0 if restarted else offset)
    yield events_from_records(records), run_description(records), offset, stat.st_ino, restarted


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
        self._job.yielded.connect(lambda _id, result: self._apply(*result))

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
        for event in events:
            if isinstance(event, ValidationEvent):
                record.add_validation(event)
                self.validated.emit(record)
            elif isinstance(event, FinishedEvent):
                record.finished = event
                record.status = f"{event.reason} (watched)"
                self.stop()
                self.ended.emit(record)
        if events or description is not None:
            self.changed.emit(record)
