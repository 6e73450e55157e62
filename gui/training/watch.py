"""Watching a run started elsewhere — from the command line, under torchrun, on a share or a folder
synced from a GPU server — from its folder alone: its metrics log, followed through
:meth:`engine.records.runs.RunFolder.follow` in a worker every half second, feeds a :class:`RunRecord`, so
its curves and attention snapshots grow in the Train tab like the app's own runs (read only; a torn
last line waits for the next read).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path

from PySide6.QtCore import QObject, QTimer, Signal

from engine.records import LogLines, RunFolder, RunPhase, RunSpec
from engine.training import FinishedEvent, LogRead, StepEvent, ValidationEvent
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
    described: bool  # these lines hold the run's description (its start line)
    request: RunSpec | None  # what it asks for, when this version reads it
    offset: int  # where the next read starts
    identity: int  # the log file's inode
    restarted: bool  # read from the start again (the log was replaced)
    steps_ahead: int = 0  # about how many step lines the log holds beyond these (0 at its end)
    damaged: LogRead = LogRead([], 0)  # damaged lines skipped among these (engine.training.metrics_log), records left out


def _chunk(events: list, described: bool, request: RunSpec | None, offset: int, identity: int, restarted: bool,
           damaged: LogRead = LogRead([], 0)) -> LogChunk:
    steps = [event for event in events if isinstance(event, StepEvent)]
    others = tuple(event for event in events if not isinstance(event, StepEvent))
    return LogChunk(StepBlock.from_events(steps), others, described, request, offset, identity, restarted, 0,
                    damaged)


def _steps_ahead(steps: int, consumed_bytes: int, unread_bytes: int) -> int:
    """About how many step lines ``unread_bytes`` hold, at the size of the lines just read."""
    if steps == 0 or unread_bytes <= 0:
        return 0
    return round(unread_bytes * steps / consumed_bytes)


@dataclass
class _ChunkRead:
    """The lines of one chunk, gathered a turn at a time."""

    offset: int
    events: list = field(default_factory=list)
    described: bool = False
    request: RunSpec | None = None
    lines: int = 0
    damage: LogRead = LogRead([], 0)
    restarted: bool = False  # the log was replaced: these lines come from its start (engine.records.runs)
    inode: int = 0

    def take(self, lines: LogLines) -> None:
        self.restarted, self.inode = self.restarted or lines.restarted, lines.inode
        self.events += lines.events
        if lines.described and not self.described:
            self.described, self.request = True, lines.request
        self.offset, self.lines = lines.offset, self.lines + lines.count
        self.damage = LogRead([], lines.offset, self.damage.skipped + lines.damage.skipped,
                              self.damage.problem or lines.damage.problem)


def _read_chunk(run: RunFolder, offset: int, known: int | None = None) -> _ChunkRead:
    """Up to READ_CHUNK lines from ``offset``: their events, the run's request if among them, the
    next offset and how many lines were read. The interpreter lock is offered to the window
    every LINES_PER_TURN lines: a thread that runs Python without pause holds it for 5 ms at a
    time, and the window needs it several times for every event it handles (each call from Qt
    into Python), so a timer tick in the window would wait 20–35 ms beside a busy reader (measured;
    under 8 ms with these pauses, for a third more parsing time)."""
    read = _ChunkRead(offset)
    while read.lines < READ_CHUNK:
        want = min(LINES_PER_TURN, READ_CHUNK - read.lines)
        lines = run.follow(read.offset, want, known if read.lines == 0 else None)  # a replaced log: said by the engine
        read.take(lines)
        time.sleep(0)  # the window's turn for the interpreter lock
        if lines.count < want:
            break
    return read


def read_more(folder: Path, offset: int, identity: int | None,
              may_go_on: threading.Event | None = None) -> Iterator[LogChunk]:
    """The log's lines from ``offset`` on, parsed in the worker, READ_CHUNK lines at a time. A log
    replaced since the last read (a resumed run rewrites it without the steps it repeats) is read
    again from its start: the engine says so (engine.records.runs.RunFolder.follow, given the
    ``identity`` of the log read before).

    A long log (a finished run of 100,000 steps) comes in chunks, and after each the reader waits
    until the window has taken it in (``may_go_on``, set by the watcher; at most
    READER_WAIT_SECONDS). Parsing is Python and holds the interpreter lock; so does drawing the
    curves (pyqtgraph), so the two running side by side make each wait for the other at every
    switch: the window would stall for hundreds of milliseconds at a time. Taking turns, the
    window redraws between chunks and the curves fill in as they come."""
    run = RunFolder(folder)
    log = run.log_identity()
    if log is None:
        yield _chunk([], False, None, offset, identity or 0, False)
        return
    known = identity
    while True:
        read = _read_chunk(run, offset, known)
        start = 0 if read.restarted else offset
        offset, known = read.offset, read.inode
        chunk = _chunk(read.events, read.described, read.request, offset, read.inode, read.restarted, read.damage)
        if read.lines == READ_CHUNK:  # more may follow: say about how much
            chunk = replace(chunk, steps_ahead=_steps_ahead(len(chunk.steps), offset - start, log.size - offset))
        yield chunk
        if read.lines < READ_CHUNK:
            return
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
        self.damaged.emit(self.tr("Cannot read the log of %1: %2").replace("%1", str(self.folder)).replace("%2", message))

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
        pending = self._since_restart(pending)
        self.offset, self.identity = pending[-1].offset, pending[-1].identity
        self.record.steps_ahead = pending[-1].steps_ahead
        self._count_damaged([chunk.damaged for chunk in pending])
        self._apply_request(pending)
        for chunk in pending:
            self._apply_chunk(chunk)
        finished = [event for chunk in pending for event in chunk.events if isinstance(event, FinishedEvent)]
        redrawn = self._end(finished[-1]) if finished else self._announce_in_time()
        if not self._pending:
            self._release_reader(redrawn)

    def _since_restart(self, pending: list[LogChunk]) -> list[LogChunk]:
        """The chunks from the last one read after the log was replaced (the record forgets what it had)."""
        starts = [i for i, chunk in enumerate(pending) if chunk.restarted]
        if not starts:
            return pending
        self.record.clear_history()
        self.skipped = LogRead([], 0)
        return pending[starts[-1]:]

    def _apply_request(self, pending: list[LogChunk]) -> None:
        """What the run asks for, from its description among these chunks (a description no run of
        this version wrote keeps the settings the record had)."""
        described = next((chunk for chunk in pending if chunk.described), None)
        if described is None:
            return
        if described.request is not None:
            self.record.settings = RunSettings.of_request(described.request, self.record.name)
        self._unannounced["changed"] = True

    def _apply_chunk(self, chunk: LogChunk) -> None:
        record = self.record
        if len(chunk.steps):
            record.add_step_block(chunk.steps)
            self._unannounced["changed"] = True
            if record.phase in (RunPhase.WATCHING, RunPhase.WAITING):
                record.enter(RunPhase.TRAINING)
        for event in chunk.events:
            if isinstance(event, ValidationEvent):
                record.add_validation(event)
                self._unannounced["validated"] = self._unannounced["changed"] = True

    def _end(self, finished: FinishedEvent) -> bool:
        """The log says the run ended: no more reads; the window hears of everything (True: a redraw)."""
        self.record.finished = finished
        self.record.enter(RunPhase.of_finish(finished.reason))
        self.stop()
        self._announce(final=True)
        self.ended.emit(self.record)
        return True

    def _announce_in_time(self) -> bool:
        """Tell the window, unless a backlog is coming in and it was told less than CATCH_UP_REDRAW_MS ago."""
        redraw_due = time.perf_counter() - self._last_announced >= CATCH_UP_REDRAW_MS / 1000
        return self._announce() if not self.catching_up() or redraw_due else False

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
