"""Running an engine generator in a QThread, one yielded item at a time (after superqt's
GeneratorWorker): pause, single-step, a per-item delay, and abort are honoured at every yield.
This is the app's one worker lifecycle: every background job — decoding, loading, scanning,
comparing, reading a corpus, training — is a :class:`Job` started by a :class:`JobSet`.

Two kinds of stop. *Abort* ends the generator at its next yield (decoding, loading: nothing to
save). A job started with a *run control* (training: the engine's ``RunSteering``, e.g.
``TrainControl``, which the generator reads too) is first asked through it to end on its own, so
that it can checkpoint, and only aborted if it has not ended in time. Likewise such a job pauses
through its control — the trainer holds between two batches and stops its own clock — instead of
being held at a yield, and the control tells the worker when the pause has taken hold.

Items cross to the GUI thread through queued signals; they must be immutable (the engine's frozen
dataclasses with numpy copies are). Errors become the ``failed`` signal, never a silent death.
Shutdown is cooperative and bounded: :meth:`WorkerHandle.stop` asks the worker to abort, then
waits for the thread; it never calls ``QThread.terminate()``.

Controllers take their job starter (:class:`JobStarter`; a :class:`JobSet` unless given), so a
test can hand them a fake that runs each generator in the test's own thread, one item at a time
(``tests/inline_jobs.py``), and check their decisions in milliseconds without a thread.
"""

from __future__ import annotations

import contextlib
import threading
import traceback
import weakref
from collections.abc import Callable, Generator, Iterator
from typing import TYPE_CHECKING, Any, Protocol

from PySide6.QtCore import QObject, Qt, QThread, Signal, Slot

if TYPE_CHECKING:
    from engine.training import RunSteering

GRACEFUL_SHARE = 0.8  # of a stop's wait, given to a graceful stop before the worker is aborted


class GeneratorWorker(QObject):
    """Iterates ``factory()`` in its thread and emits each item. With ``control`` (a run control the
    generator reads itself), pause, resume and stop go through it."""

    yielded = Signal(object)  # one item from the generator
    returned = Signal(object)  # the generator's return value (StopIteration.value)
    failed = Signal(str, str)  # one-line message, full traceback
    finished = Signal()  # always last, after returned/failed or an abort
    held = Signal()  # a pause took hold: every item before it has been sent, none follows until resumed

    def __init__(self, factory: Callable[[], Iterator[Any]], control: RunSteering | None = None) -> None:
        super().__init__()
        self._factory = factory
        self.control = control
        self._abort = threading.Event()
        self._running = threading.Event()
        self._running.set()
        self._step_once = threading.Event()
        self._wake = threading.Event()
        self._delay_seconds = 0.0
        if control is not None:
            control.listen_held(self.held.emit)  # from the generator's thread, after its last item

    # -- requests from any thread -----------------------------------------------------------
    def abort(self) -> None:
        self._abort.set()
        if self.control is not None:
            self.control.request_stop()
        self._running.set()
        self._wake.set()

    def pause(self) -> None:
        if self.control is not None:
            self.control.pause()
            return
        self._running.clear()

    def resume(self) -> None:
        if self.control is not None:
            self.control.resume()
            return
        self._running.set()
        self._wake.set()

    def step(self) -> None:
        """While paused: let exactly one more item through."""
        self._step_once.set()
        self._wake.set()

    def set_delay(self, seconds: float) -> None:
        """Seconds to wait after each item (0 = as fast as possible); takes effect at once."""
        self._delay_seconds = max(0.0, float(seconds))
        self._wake.set()

    @property
    def aborted(self) -> bool:
        return self._abort.is_set()

    @property
    def paused(self) -> bool:
        return not self._running.is_set()

    # -- the thread's side ------------------------------------------------------------------
    def _wait_for_turn(self) -> None:
        """Block while paused (unless a single step was requested) and during the delay."""
        if self._delay_seconds > 0:
            self._wake.clear()
            self._wake.wait(self._delay_seconds)
        announced = False
        while not self._running.is_set() and not self._abort.is_set():
            if self._step_once.is_set():
                self._step_once.clear()
                return
            if not announced:
                self.held.emit()
                announced = True
            self._wake.clear()
            self._wake.wait(0.05)

    @Slot()
    def run(self) -> None:
        generator: Generator | Iterator | None = None
        try:
            generator = self._factory()
            while not self._abort.is_set():
                try:
                    item = next(generator)
                except StopIteration as stop:
                    if not self._abort.is_set():
                        self.returned.emit(stop.value)
                    break
                if self._abort.is_set():
                    break
                self.yielded.emit(item)
                self._wait_for_turn()
        except Exception as error:  # reported to the GUI, which shows it
            self.failed.emit(f"{type(error).__name__}: {error}" if str(error) else type(error).__name__,
                             traceback.format_exc())
        finally:
            if generator is not None and hasattr(generator, "close"):
                with contextlib.suppress(Exception):
                    generator.close()
            self.finished.emit()


class WorkerHandle(QObject):
    """Owns a worker and its thread; start once, stop cooperatively with a bounded wait."""

    instances: weakref.WeakSet[WorkerHandle] = weakref.WeakSet()  # lets tests find leaked threads

    def __init__(self, worker: GeneratorWorker, name: str = "worker", parent: QObject | None = None) -> None:
        super().__init__(parent)
        WorkerHandle.instances.add(self)
        self.worker = worker
        self.thread = QThread()
        self.thread.setObjectName(name)
        worker.moveToThread(self.thread)
        self.thread.started.connect(worker.run)
        # Directly, from the worker's thread (QThread.quit is thread-safe): queued to the GUI thread, the
        # quit waited for a GUI thread blocked in stop()'s wait, so a graceful stop always ran out its time.
        worker.finished.connect(self.thread.quit, Qt.ConnectionType.DirectConnection)

    def start(self) -> None:
        self.thread.start()

    def is_running(self) -> bool:
        return self.thread.isRunning()

    def stop(self, timeout_ms: int = 2000) -> bool:
        """Stop the worker and wait up to ``timeout_ms``; True if the thread has ended. A worker
        with a run control gets most of the time to end on its own before it is aborted."""
        control = self.worker.control
        if control is not None and self.thread.isRunning():
            control.request_stop()
            graceful_ms = max(int(timeout_ms * GRACEFUL_SHARE), 1)
            if self.thread.wait(graceful_ms):
                return True
            timeout_ms = max(timeout_ms - graceful_ms, 1)
        self.worker.abort()
        if not self.thread.isRunning():
            return True
        self.thread.quit()
        return self.thread.wait(timeout_ms)


class Job(QObject):
    """One generator on its own thread, tagged with an id. Lives in the GUI thread, so its slots
    run there. A job is kept alive (by its :class:`JobSet`) until its thread has really ended, so
    cancelling is non-blocking: the old job is asked to stop and forgotten by its controller,
    whose id check drops anything it still delivers."""

    yielded = Signal(int, object)  # job id, item
    returned = Signal(int, object)  # job id, the generator's return value
    failed = Signal(int, str, str)  # job id, message, traceback
    done = Signal(int)  # job id; after returned/failed or an abort
    held = Signal(int)  # job id; its pause took hold (everything it sent before has arrived)
    released = Signal(object)  # this job: its thread has ended

    def __init__(self, job_id: int, factory: Callable[[], Iterator[Any]], name: str,
                 parent: QObject | None = None, control: RunSteering | None = None) -> None:
        super().__init__(parent)
        self.id = job_id
        self.name = name
        self.worker = GeneratorWorker(factory, control)
        self.handle = WorkerHandle(self.worker, name)
        self.worker.yielded.connect(self._on_yielded)
        self.worker.returned.connect(self._on_returned)
        self.worker.failed.connect(self._on_failed)
        self.worker.finished.connect(self._on_done)
        self.worker.held.connect(self._on_held)
        self.handle.thread.finished.connect(self._on_released)

    def start(self) -> None:
        self.handle.start()

    def cancel(self) -> None:
        """Ask the job to stop at its next yield; returns at once."""
        self.worker.abort()

    def stop(self, timeout_ms: int) -> bool:
        """Stop the job (gracefully first when it can) and wait up to ``timeout_ms``; True if its
        thread has ended."""
        return self.handle.stop(timeout_ms)

    def is_running(self) -> bool:
        return self.handle.is_running()

    @Slot(object)
    def _on_yielded(self, item: object) -> None:
        self.yielded.emit(self.id, item)

    @Slot(object)
    def _on_returned(self, value: object) -> None:
        self.returned.emit(self.id, value)

    @Slot(str, str)
    def _on_failed(self, message: str, details: str) -> None:
        self.failed.emit(self.id, message, details)

    @Slot()
    def _on_done(self) -> None:
        self.done.emit(self.id)

    @Slot()
    def _on_held(self) -> None:
        self.held.emit(self.id)

    @Slot()
    def _on_released(self) -> None:
        self.released.emit(self)


class JobStarter(Protocol):
    """What a controller needs to run background jobs: :class:`JobSet`, or a test's fake."""

    def start(self, factory: Callable[[], Iterator[Any]], name: str,
              configure: Callable[[GeneratorWorker], None] | None = None,
              control: RunSteering | None = None) -> Job: ...

    def running(self) -> list[Job]: ...

    def stop_all(self, timeout_ms: int) -> bool: ...


class JobSet(QObject):
    """Holds jobs until their threads end; stops them all on shutdown."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._jobs: set[Job] = set()
        self._next_id = 0

    def start(self, factory: Callable[[], Iterator[Any]], name: str,
              configure: Callable[[GeneratorWorker], None] | None = None,
              control: RunSteering | None = None) -> Job:
        """A new started job (connect to its signals before the event loop runs again);
        ``configure`` sets up its worker (a delay, a pause) before the thread starts; ``control`` is the
        run control its generator reads (pause, resume and a graceful stop then go through it)."""
        self._next_id += 1
        job = Job(self._next_id, factory, name, control=control)
        if configure is not None:
            configure(job.worker)
        self._jobs.add(job)
        job.released.connect(self._release)
        job.start()
        return job

    def running(self) -> list[Job]:
        return [job for job in self._jobs if job.is_running()]

    def stop_all(self, timeout_ms: int) -> bool:
        """Stop every job and wait (bounded); True when all threads have ended. Jobs without a
        run control are aborted at once; the others get their share of the time first."""
        for job in list(self._jobs):
            if job.worker.control is None:
                job.cancel()
        ended = all([job.stop(timeout_ms) for job in list(self._jobs)])  # wait for each, no short cut
        for job in [j for j in self._jobs if not j.is_running()]:
            self._release(job)
        return ended

    @Slot(object)
    def _release(self, job: Job) -> None:
        if job in self._jobs and not job.is_running():
            self._jobs.discard(job)  # Python owns the job: it goes when the last reference does
