"""What the lesson asks of the window: ``LessonHost``, and the events it listens to.

gui/lesson/ imports no tab: the main window implements this protocol (gui/window_lesson.py) with the
same calls the user's clicks make — a direction chosen in its box, a sentence translated as from the
examples menu, a step pinned as by a click on its output token — so Show me has no side door.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QWidget

from gui.lesson.chapter import Action

# What ``perform`` gives back: a test that says when the action has taken effect (a model loaded, a
# decode finished), or None when it took effect at once.
Settled = Callable[[], bool] | None


class LessonEvents(QObject):
    """The window's events a Try it can check (gui/lesson/checks.py lists the kinds and their data)."""

    happened = Signal(str, object)  # kind, dict of plain values
    modelsChanged = Signal()  # the models on offer changed: a chapter's missing model may be there now


class ActionError(RuntimeError):
    """An action that cannot be carried out now (its model is missing, no decode to pick a step from)."""


class LessonHost(Protocol):
    """The window as the lesson sees it."""

    events: LessonEvents

    def perform(self, action: Action) -> Settled:
        """Carry out ``action`` (gui/lesson/schema.ACTIONS); ActionError says why it cannot."""

    def has_model(self, name: str) -> bool | None:
        """Whether the model ``<direction>-<scorer>`` is on offer (None: the models are still being looked for)."""

    def widget(self, name: str) -> QWidget | None:
        """The visible widget with objectName ``name`` (None when there is none on screen)."""

    def state(self) -> dict[str, Any]:
        """Where the app stands, as plain values (the tests compare it with what Show me promised)."""
