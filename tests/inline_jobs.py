"""A fake job starter for controller tests: each job's generator runs in the test's own thread,
when and as far as the test says, with the signals of :class:`gui.workers.Job` (which a controller
connects after ``start``, exactly as with the real one). No thread, no waiting: a controller's
decisions — superseded runs, pauses, failures, queues — are checked in milliseconds.

``scripts`` replaces the generator of the jobs whose name starts with a key (a model load can
yield a fake model instead of reading a folder).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, Signal

if TYPE_CHECKING:
    from engine.training import RunSteering


class InlineWorker(QObject):
    """The parts of :class:`gui.workers.GeneratorWorker` a controller touches. With a run control,
    pause, resume and abort go through it, as in the real worker (and the job still holds at its
    next item while paused, which a real trainer does inside its generator)."""

    held = Signal()

    def __init__(self, control: RunSteering | None = None) -> None:
        super().__init__()
        self.control = control
        self.delay = 0.0
        self.aborted = False
        self.paused = False
        self.steps_allowed = 0

    def abort(self) -> None:
        self.aborted = True
        if self.control is not None:
            self.control.request_stop()

    def pause(self) -> None:
        self.paused = True
        if self.control is not None:
            self.control.pause()

    def resume(self) -> None:
        self.paused = False
        if self.control is not None:
            self.control.resume()

    def step(self) -> None:
        self.steps_allowed += 1

    def set_delay(self, seconds: float) -> None:
        self.delay = seconds


class InlineJob(QObject):
    """A job whose generator advances only in :meth:`run`."""

    yielded = Signal(int, object)
    returned = Signal(int, object)
    failed = Signal(int, str, str)
    done = Signal(int)
    held = Signal(int)
    released = Signal(object)

    def __init__(self, job_id: int, factory: Callable[[], Iterator[Any]], name: str,
                 control: RunSteering | None = None) -> None:
        super().__init__()
        self.id, self.name, self._factory = job_id, name, factory
        self.worker = InlineWorker(control)
        self.worker.held.connect(lambda: self.held.emit(self.id))
        self._items: Iterator[Any] | None = None
        self.ended = False
        self.delivered = 0

    def start(self) -> None:
        """Nothing runs until the test calls :meth:`run`."""

    def cancel(self) -> None:
        self.worker.abort()

    def stop(self, timeout_ms: int) -> bool:
        if self.worker.control is not None and not self.worker.aborted:
            self.worker.control.request_stop()
            self.run()  # a graceful stop lets the generator end on its own
        if not self.ended:
            self.cancel()
            self.run()
        return True

    def is_running(self) -> bool:
        return not self.ended

    def run(self, limit: int | None = None, late: bool = False) -> int:
        """Advance up to ``limit`` items (all when None): stop at a pause (``held``) or the end
        (``returned`` or ``failed``, then ``done`` and ``released``). An aborted job ends at its
        next item — unless ``late``, which delivers its items anyway, as a worker thread may have
        sent them before it saw the abort. Returns the number of items delivered."""
        count = 0
        while not self.ended and (limit is None or count < limit):
            if self.worker.aborted and not late:
                self._end()
                break
            if self.worker.paused and not self.worker.aborted:
                if not self.worker.steps_allowed:
                    self.worker.held.emit()
                    break
                self.worker.steps_allowed -= 1
            try:
                if self._items is None:
                    self._items = iter(self._factory())
                item = next(self._items)
            except StopIteration as stop:
                if not self.worker.aborted:
                    self.returned.emit(self.id, stop.value)
                self._end()
                break
            except Exception as error:  # as the real worker: reported, never raised into the GUI
                self.failed.emit(self.id, f"{type(error).__name__}: {error}", "")
                self._end()
                break
            self.yielded.emit(self.id, item)
            count += 1
            self.delivered += 1
        return count

    def _end(self) -> None:
        self.ended = True
        if self._items is not None and hasattr(self._items, "close"):
            self._items.close()  # as the real worker does: the generator's cleanup runs now
        self.done.emit(self.id)
        self.released.emit(self)


class InlineJobs(QObject):
    """A :class:`gui.workers.JobStarter` whose jobs run only when the test runs them."""

    def __init__(self, scripts: dict[str, Callable[[], Iterator[Any]]] | None = None) -> None:
        super().__init__()
        self.scripts = dict(scripts or {})
        self.started: list[InlineJob] = []

    def start(self, factory: Callable[[], Iterator[Any]], name: str,
              configure: Callable[[InlineWorker], None] | None = None,
              control: RunSteering | None = None) -> InlineJob:
        script = next((s for prefix, s in self.scripts.items() if name.startswith(prefix)), None)
        job = InlineJob(len(self.started) + 1, script or factory, name, control)
        if configure is not None:
            configure(job.worker)
        self.started.append(job)
        return job

    def running(self) -> list[InlineJob]:
        return [job for job in self.started if job.is_running()]

    def stop_all(self, timeout_ms: int) -> bool:
        return all([job.stop(timeout_ms) for job in self.running()])

    def named(self, prefix: str) -> list[InlineJob]:
        """The jobs started so far whose name starts with ``prefix``, oldest first."""
        return [job for job in self.started if job.name.startswith(prefix)]

    def run_all(self) -> None:
        """Run every job that can move (jobs that start meanwhile too) until all have ended or wait
        on a pause."""
        moved = True
        while moved:
            moved = False
            for job in list(self.running()):
                before = (job.delivered, job.ended)
                job.run()
                moved = moved or (job.delivered, job.ended) != before
