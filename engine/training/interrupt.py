"""Signals as run controls for the command line.

- Ctrl-C (SIGINT) and SIGTERM: a clean stop. The first asks the run to stop at the next batch (it
  then writes a checkpoint there); a second Ctrl-C quits at once.
- SIGUSR1 (POSIX): pause, and resume on the next SIGUSR1. A paused run holds its place between two
  batches and its time budget (``--max-minutes``) does not run, so a long training can make room
  for other work on the machine: ``kill -USR1 <pid>``.

Only the main thread may install signal handlers; elsewhere (the app's worker threads, which stop
through their own controls) :func:`stop_on_signals` changes nothing.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from engine.training.events import RunSteering

STOP_SIGNALS = tuple(s for s in (getattr(signal, "SIGINT", None), getattr(signal, "SIGTERM", None)) if s)
PAUSE_SIGNAL = getattr(signal, "SIGUSR1", None)  # None on Windows


@contextmanager
def stop_on_signals(control: RunSteering, on_first: Callable[[], None] = lambda: None,
                    on_pause: Callable[[bool], None] = lambda paused: None) -> Iterator[None]:
    """While inside, SIGINT / SIGTERM request a stop from ``control``; a repeated SIGINT raises
    KeyboardInterrupt; SIGUSR1 toggles a pause (``on_pause(paused)`` is told). The previous
    handlers are restored on leaving."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def handle(signum, frame) -> None:
        if control.stop_requested:
            if signum == signal.SIGINT:
                raise KeyboardInterrupt
            return
        control.request_stop()
        on_first()

    def toggle_pause(signum, frame) -> None:
        if control.paused:
            control.resume()
        else:
            control.pause()
        on_pause(control.paused)

    previous = {s: signal.signal(s, handle) for s in STOP_SIGNALS}
    if PAUSE_SIGNAL is not None:
        previous[PAUSE_SIGNAL] = signal.signal(PAUSE_SIGNAL, toggle_pause)
    try:
        yield
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)
