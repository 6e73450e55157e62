"""Watching a run started elsewhere — from the command line, under torchrun, on a share or a folder
synced from a GPU server — from its folder alone: its metrics log (engine.metrics_log), read in a
worker every half second, feeds a :class:`RunRecord`, so its curves and attention snapshots grow in
the Train tab like the app's own runs (read only; a torn last line waits for the next read).
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path

from PySide6.QtCore import QObject, QTimer, Signal

from engine.errors import ConfigError
from engine.events import FinishedEvent, StepEvent, ValidationEvent
from engine.metrics_log import METRICS_FILE, LogRead, events_from_records, read_log, run_description
from gui.training.records import RunRecord, StepBlock
from gui.training.settings import RunSettings
from gui.workers import JobStarter

POLL_MS = 500  # how far behind the watched run the curves may be
READ_CHUNK = 2_000  # log lines parsed per item
LINES_PER_TURN = 200  # lines parsed between two offers of the interpreter lock to the window
READER_WAIT_SECONDS = 0.5  # the longest the reader waits for the window to take in its last chunk
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
    steps_ahead: int = 0  # about how many step lines the log holds beyond these (0 at its end)
    damaged: LogRead = LogRead([], 0)  # damaged lines skipped among these (engine.metrics_log), records left out


def _chunk(events: list, description: dict | None, offset: int, identity: int, restarted: bool,
           damaged: LogRead = LogRead([], 0)) -> LogChunk:
    steps = [event for event in events if isinstance(event, StepEvent)]
    others = tuple(event for event in events if not isinstance(event, StepEvent))
    return LogChunk(StepBlock.from_events(steps), others, description, offset, identity, restarted, 0, damaged)


def _steps_ahead(steps: int, consumed_bytes: int, unread_bytes: int) -> int:
    """About how many step lines ``unread_bytes`` hold, at the size of the lines just read."""
    if steps == 0 or unread_bytes <= 0:
        return 0
    return round(unread_bytes * steps / consumed_bytes)


def _read_chunk(folder: Path, offset: int) -> tuple[list, dict | None, int, int, LogRead]:
    """Up to READ_CHUNK lines from ``offset``: their events, the run's description if among them,
    the next offset and how many lines were read. The interpreter lock is offered to the window
    every LINES_PER_TURN lines: a thread that runs Python without pause holds it for 5 ms at a
    time, and the window needs it several times for every event it handles (each call from Qt
    into Python), so a timer tick in the window would wait 20–35 ms beside a busy reader (measured;
    under 8 ms with these pauses, for a third more parsing time)."""
    events: list = []
    description = None
    lines = skipped = 0
    problem = ""
    while lines < READ_CHUNK:
        want = min(LINES_PER_TURN, READ_CHUNK - lines)
        read = read_log(folder, offset, want)
        records, offset = read.records, read.offset
        skipped, problem = skipped + read.skipped, problem or read.problem
        lines += len(records)
        events += events_from_records(records)
        description = description or run_description(records)
        time.sleep(0)  # the window's turn for the interpreter lock
        if len(records) < want:
            break
    return events, description, offset, lines, LogRead([], offset, skipped, problem)


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
        start = offset
        events, description, offset, lines, damaged = _read_chunk(folder, offset)
        chunk = _chunk(events, description, offset, stat.st_ino, restarted, damaged)
        if lines == READ_CHUNK:  # more may follow: say about how much
            chunk = replace(chunk, steps_ahead=_steps_ahead(len(chunk.steps), offset - start, stat.st_size - offset))
        yield chunk
        if lines < READ_CHUNK:
            return
        restarted = False
        if may_go_on is not None:  # the window's turn
            may_go_on.wait(READER_WAIT_SECONDS)
            may_go_on.clear()


class RunWatcher(QObject):
    changed = Signal(object)  # RunRecord: new steps, status or settings
    validated = Signal(object)  # RunRecord with a new validation (and attention snapshot)
    ended = Signal(object)  # RunRecord: its log says the run finished
    damaged = Signal(str)  # damaged lines of the log were skipped (or it could not be read): what and where

    def __init__(self, folder: Path, record: RunRecord, jobs: JobStarter, parent: QObject | None = None,
                 window_busy: Callable[[], bool] = lambda: False) -> None:
        """``window_busy``: True while the window still has drawing queued (the plots draw one a
        turn); the reader waits for it after a redraw."""
        super().__init__(parent)
        self.window_busy = window_busy
        self.folder, self.record, self.jobs = Path(folder), record, jobs
        self.offset = 0
        self.identity: int | None = None  # the log file's inode when last read
        self._reading = False  # a reader is at work (until its last chunk has been delivered)
        self.timer = QTimer(self)
        self.timer.setInterval(POLL_MS)
        self.timer.timeout.connect(self.poll)
        # The reader and the window take turns (see read_more): the reader waits after each chunk
        # until the window has applied it — and, when that application redrew the curves, until
        # every plot has been drawn and painted — so parsing never runs beside a redraw.
        self._pending: list[LogChunk] = []
        self._apply_timer = QTimer(self)
        self._apply_timer.setSingleShot(True)
        self._apply_timer.setInterval(0)
        self._apply_timer.timeout.connect(self._apply_pending)
        self._reader_may_go_on = threading.Event()  # set once the window has taken in the last chunk
        self._idle_check = QTimer(self)  # see _when_idle
        self._idle_check.setSingleShot(True)
        self._idle_check.setInterval(0)
        self._idle_check.timeout.connect(self._check_idle)
        self._idle_turns = 0
        self._idle_action: Callable[[], None] | None = None
        # What the last applications changed and nobody has been told yet (a backlog defers it).
        self._unannounced = {"changed": False, "validated": False}
        self._last_announced = 0.0
        self.skipped = LogRead([], 0)  # the damaged lines skipped so far (their count, the first one's reason)

    @staticmethod
    def can_watch(folder: Path) -> str:
        """Why ``folder`` cannot be watched ("" when it can)."""
        if not Path(folder).is_dir():
            return f"{folder} is not a folder"
        if not (Path(folder) / METRICS_FILE).is_file():
            return f"{folder} has no {METRICS_FILE}: not a training run's folder (or one from an older version)"
        return ""

    def start(self) -> None:
        """Read the log (its first lines once the window has drawn the run's first appearance), and
        again every POLL_MS."""
        self._when_idle(self._first_poll)

    def _first_poll(self) -> None:
        self.poll()
        self.timer.start()

    def stop(self) -> None:
        """No more reads: the poll stops, and a first read or a reader's release still waiting for
        an idle turn is dropped (a reader then waits at most READER_WAIT_SECONDS, or is stopped)."""
        self.timer.stop()
        self._idle_check.stop()
        self._idle_action = None

    def poll(self) -> None:
        if self.catching_up():  # the next read starts where the lines read so far end
            return
        folder, offset, identity, may_go_on = self.folder, self.offset, self.identity, self._reader_may_go_on
        may_go_on.clear()
        self._reading = True
        job = self.jobs.start(lambda: read_more(folder, offset, identity, may_go_on), f"watch {folder.name}")
        job.yielded.connect(lambda _id, result: self._take(result))
        job.done.connect(lambda _id: self._reader_done())
        job.failed.connect(lambda _id, message, _details: self._reader_failed(message))

    def _reader_failed(self, message: str) -> None:
        """The log could not be read this time (a share gone, no permission): say so; the next poll
        tries again."""
        self._reading = False
        self.damaged.emit(f"Cannot read the log of {self.folder}: {message}")

    def _take(self, chunk: LogChunk) -> None:
        self._pending.append(chunk)
        if not self._apply_timer.isActive():
            self._apply_timer.start()

    def _reader_done(self) -> None:
        """The reader's last chunk has arrived (a job's end follows its items): once it is applied,
        the backlog is in and the window hears of everything held back."""
        self._reading = False
        if not self._pending:
            self._announce(final=True)

    def catching_up(self) -> bool:
        """Read lines are waiting to be applied, or the reader is still at work."""
        return bool(self._pending) or self._reading

    def _release_reader(self, redrawn: bool) -> None:
        """The reader's turn: at once, or once the window has drawn and painted the redraw this turn
        asked for."""
        if redrawn:
            self._when_idle(self._reader_may_go_on.set)
        else:
            self._reader_may_go_on.set()

    def _when_idle(self, action: Callable[[], None]) -> None:
        """``action`` once the window has had a whole turn with nothing left to draw (parsing beside
        a paint slows both: see read_more)."""
        self._idle_action, self._idle_turns = action, 0
        self._idle_check.start()

    def _check_idle(self) -> None:
        """Called by a zero-time timer until the window has nothing left to draw for two turns in a
        row: timers fire before the paints their slots post are handled, so one idle shot is not
        enough — the second comes after those paints."""
        self._idle_turns = 0 if self.window_busy() else self._idle_turns + 1
        if self._idle_turns < 2:
            self._idle_check.start()
        elif self._idle_action is not None:
            action, self._idle_action = self._idle_action, None
            action()

    def _apply_pending(self) -> None:
        """The oldest chunks read (at most APPLY_CHUNKS), as one: their events in order, the newest
        offset; a restart drops what came before it. The rest waits for the next turn. While a
        backlog comes in, the curves redraw at most every CATCH_UP_REDRAW_MS, always in the window's
        turn (the reader waits), never beside the parsing."""
        pending, self._pending = self._pending[:APPLY_CHUNKS], self._pending[APPLY_CHUNKS:]
        if self._pending:
            self._apply_timer.start()
        if not pending:
            return
        record = self.record
        starts = [i for i, chunk in enumerate(pending) if chunk.restarted]
        if starts:
            pending = pending[starts[-1]:]
            record.clear_history()
            self.skipped = LogRead([], 0)
        self.offset, self.identity = pending[-1].offset, pending[-1].identity
        record.steps_ahead = pending[-1].steps_ahead
        description = next((chunk.description for chunk in pending if chunk.description is not None), None)
        self._count_damaged([chunk.damaged for chunk in pending])
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
        redraw_due = time.perf_counter() - self._last_announced >= CATCH_UP_REDRAW_MS / 1000
        if finished:
            record.finished = finished[-1]
            record.status = f"{finished[-1].reason} (watched)"
            self.stop()
            self._announce(final=True)
            self.ended.emit(record)
            redrawn = True
        elif not self.catching_up() or redraw_due:
            redrawn = self._announce()
        else:
            redrawn = False
        if not self._pending:
            self._release_reader(redrawn)

    def _count_damaged(self, reads: list[LogRead]) -> None:
        """Damaged lines among those just applied: counted, and told with the total so far."""
        new = sum(read.skipped for read in reads)
        if new:
            first = self.skipped.problem or next(read.problem for read in reads if read.skipped)
            self.skipped = LogRead([], 0, self.skipped.skipped + new, first)
            self.damaged.emit(self.skipped.skipped_note(self.folder))

    def _announce(self, final: bool = False) -> bool:
        """Tell the window what changed since it was last told: one signal, one redraw (``validated``
        also redraws what ``changed`` would); True if it was told anything. While a backlog is
        taken in, new validations only move the curves; the attention snapshots (a map to lay out
        and label) follow once it is in."""
        self._last_announced = time.perf_counter()
        if self._unannounced["validated"] and (final or not self.catching_up()):
            self.validated.emit(self.record)
            self._unannounced = {"changed": False, "validated": False}
            return True
        if self._unannounced["changed"]:
            self.changed.emit(self.record)
            self._unannounced["changed"] = False
            return True
        return False
