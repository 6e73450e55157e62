"""Show me: a chapter's actions carried out one after the other, each waiting for its effect.

The window performs an action at once and gives back a test that says when it has taken effect (a
model loaded, a decode finished; gui/lesson/host.py); the runner asks that test at every turn of a
short timer, never blocking the window, and goes on with the next action only then. ``finished``
carries how long the whole Show me took (bench/bench_lesson.py holds it under 300 ms once the models
are loaded); ``failed`` says in one line which action could not be done and why.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

from PySide6.QtCore import QObject, QTimer, Signal

from gui.lesson.chapter import Action
from gui.lesson.host import ActionError, LessonHost, Settled

POLL_MS = 10  # how often a waiting action's effect is looked for
ACTION_TIMEOUT_S = 120.0  # a model's first load on a slow machine stays well under this


class ShowMe(QObject):
    """Runs one chapter's Show me at a time; a new run replaces the one under way."""

    progressed = Signal(str)  # the action now waited for (its name)
    finished = Signal(float)  # milliseconds from the first action to the last one's effect
    failed = Signal(str)  # one line: which action, and why

    def __init__(self, host: LessonHost, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.host = host
        self._actions: list[Action] = []
        self._settled: Settled = None
        self._active = False  # from run() until finished, failed or cancelled (actions under way included)
        self._started = 0.0
        self._action_started = 0.0
        self._timer = QTimer(self)
        self._timer.setInterval(POLL_MS)
        self._timer.timeout.connect(self._poll)

    @property
    def running(self) -> bool:
        return self._active

    def run(self, actions: Sequence[Action]) -> None:
        self.cancel()
        self._actions = list(actions)
        self._active = True
        self._started = time.perf_counter()
        self._next()

    def cancel(self) -> None:
        self._timer.stop()
        self._actions = []
        self._settled = None
        self._active = False

    def _next(self) -> None:
        while self._actions:
            action = self._actions.pop(0)
            try:
                settled = self.host.perform(action)
            except (ActionError, ValueError) as error:
                self.cancel()
                self.failed.emit(f"{action.name}: {error}")
                return
            if settled is not None and not settled():
                self._settled = settled
                self._action_started = time.perf_counter()
                self.progressed.emit(action.name)
                self._timer.start()
                return
        self._timer.stop()
        self._settled = None
        self._active = False
        self.finished.emit((time.perf_counter() - self._started) * 1000.0)

    def _poll(self) -> None:
        settled = self._settled
        if settled is None:
            self._timer.stop()
            return
        try:
            done = settled()
        except ActionError as error:
            self.cancel()
            self.failed.emit(str(error))
            return
        if done:
            self._settled = None
            self._timer.stop()
            self._next()
        elif time.perf_counter() - self._action_started > ACTION_TIMEOUT_S:
            self.cancel()
            self.failed.emit(self.tr("an action did not take effect within %1 s").replace(
                "%1", str(int(ACTION_TIMEOUT_S))))
