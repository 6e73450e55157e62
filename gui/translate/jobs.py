"""Background jobs of the Translate view: a generator run on a :class:`WorkerHandle`, tagged
with an id, its signals delivered in the GUI thread.

A job is kept alive (by its :class:`JobSet`) until its thread has really ended, so cancelling is
non-blocking: the old job is asked to abort and forgotten by the controller, whose id check
drops anything it still delivers.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from PySide6.QtCore import QObject, Signal, Slot

from gui.workers import GeneratorWorker, WorkerHandle


class Job(QObject):
    """One generator on its own thread. Lives in the GUI thread, so its slots run there."""

    yielded = Signal(int, object)  # job id, item
    returned = Signal(int, object)  # job id, the generator's return value
    failed = Signal(int, str, str)  # job id, message, traceback
    done = Signal(int)  # job id; after returned/failed or an abort
    released = Signal(object)  # this job: its thread has ended

    def __init__(self, job_id: int, factory: Callable[[], Iterator[Any]], name: str,
                 parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.id = job_id
        self.worker = GeneratorWorker(factory)
        self.handle = WorkerHandle(self.worker, name)
        self.worker.yielded.connect(self._on_yielded)
        self.worker.returned.connect(self._on_returned)
        self.worker.failed.connect(self._on_failed)
        self.worker.finished.connect(self._on_done)
        self.handle.thread.finished.connect(self._on_released)

    def start(self) -> None:
        self.handle.start()

    def cancel(self) -> None:
        """Ask the job to stop at its next yield; returns at once."""
        self.worker.abort()

    def stop(self, timeout_ms: int) -> bool:
        """Ask the job to stop and wait up to ``timeout_ms``; True if its thread has ended."""
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
    def _on_released(self) -> None:
        self.released.emit(self)


class JobSet(QObject):
    """Holds jobs until their threads end; stops them all on shutdown."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._jobs: set[Job] = set()
        self._next_id = 0

    def start(self, factory: Callable[[], Iterator[Any]], name: str,
              configure: Callable[[GeneratorWorker], None] | None = None) -> Job:
        """A new started job (connect to its signals before the event loop runs again);
        ``configure`` sets up its worker (delay, pause) before the thread starts."""
        self._next_id += 1
        job = Job(self._next_id, factory, name)
        if configure is not None:
            configure(job.worker)
        self._jobs.add(job)
        job.released.connect(self._release)
        job.start()
        return job

    def running(self) -> list[Job]:
        return [job for job in self._jobs if job.is_running()]

    def stop_all(self, timeout_ms: int) -> bool:
        """Abort every job and wait (bounded); True when all threads have ended."""
        for job in list(self._jobs):
            job.cancel()
        ended = all([job.stop(timeout_ms) for job in list(self._jobs)])  # wait for each, no short cut
        for job in [j for j in self._jobs if not j.is_running()]:
            self._release(job)
        return ended

    @Slot(object)
    def _release(self, job: Job) -> None:
        if job in self._jobs and not job.is_running():
            self._jobs.discard(job)  # Python owns the job: it goes when the last reference does
