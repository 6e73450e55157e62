"""Running an engine generator in a QThread, one yielded item at a time (after superqt's
GeneratorWorker): pause, single-step, a per-item delay, and abort are honoured at every yield.

Items cross to the GUI thread through queued signals; they must be immutable (the engine's frozen
dataclasses with numpy copies are). Errors become the ``failed`` signal, never a silent death.
Shutdown is cooperative and bounded: :meth:`WorkerHandle.stop` asks the worker to abort, then
waits for the thread; it never calls ``QThread.terminate()``.
"""

from __future__ import annotations

import contextlib
import threading
import traceback
import weakref
from collections.abc import Callable, Generator, Iterator
from typing import Any

from PySide6.QtCore import QObject, QThread, Signal, Slot


class GeneratorWorker(QObject):
    """Iterates ``factory()`` in its thread and emits each item."""

    yielded = Signal(object)  # one item from the generator
    returned = Signal(object)  # the generator's return value (StopIteration.value)
    failed = Signal(str, str)  # one-line message, full traceback
    finished = Signal()  # always last, after returned/failed or an abort

    def __init__(self, factory: Callable[[], Iterator[Any]]) -> None:
        super().__init__()
        self._factory = factory
        self._abort = threading.Event()
        self._running = threading.Event()
        self._running.set()
        self._step_once = threading.Event()
        self._wake = threading.Event()
        self._delay_seconds = 0.0
        self.on_abort: Callable[[], None] | None = None  # e.g. TrainControl.request_stop

    # -- requests from any thread -----------------------------------------------------------
    def abort(self) -> None:
        self._abort.set()
        if self.on_abort is not None:
            self.on_abort()
        self._running.set()
        self._wake.set()

    def pause(self) -> None:
        self._running.clear()

    def resume(self) -> None:
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
        while not self._running.is_set() and not self._abort.is_set():
            if self._step_once.is_set():
                self._step_once.clear()
                return
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
        worker.finished.connect(self.thread.quit)

    def start(self) -> None:
        self.thread.start()

    def is_running(self) -> bool:
        return self.thread.isRunning()

    def stop(self, timeout_ms: int = 2000) -> bool:
        """Ask the worker to abort and wait up to ``timeout_ms``; True if the thread has ended."""
        self.worker.abort()
        if not self.thread.isRunning():
            return True
        self.thread.quit()
        return self.thread.wait(timeout_ms)
