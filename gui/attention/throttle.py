"""Coalesce redraws: run a callback at once, or at most ~30 times a second when asked faster."""

from __future__ import annotations

import time
from collections.abc import Callable

from PySide6.QtCore import QObject, QTimer

FRAME_SECONDS = 1 / 30


class FrameThrottle(QObject):
    """``request()`` redraws now if the last redraw is a frame old, else once at the frame's end."""

    def __init__(self, callback: Callable[[], None], parent: QObject | None = None,
                 frame_seconds: float = FRAME_SECONDS) -> None:
        super().__init__(parent)
        self._callback = callback
        self._frame = frame_seconds
        self._last = -1.0
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.timeout.connect(self._fire)

    @property
    def pending(self) -> bool:
        return self._timer.isActive()

    def request(self) -> None:
        """Redraw soon: now when steps arrive slowly, else coalesced with the next ones."""
        if self._timer.isActive():
            return
        wait = self._last + self._frame - time.perf_counter()
        if wait <= 0:
            self._fire()
        else:
            self._timer.start(max(1, int(wait * 1000)))

    def flush(self) -> None:
        """Redraw now if a redraw is pending (e.g. when the run ends)."""
        if self._timer.isActive():
            self._fire()

    def cancel(self) -> None:
        self._timer.stop()

    def _fire(self) -> None:
        self._timer.stop()
        self._last = time.perf_counter()
        self._callback()
