"""What the learner has done, remembered between sessions (QSettings, read through
gui/stored_settings.py so that a hand-edited value never stops the app): per chapter, how many of its
Try it checks are met, and which chapter was open last."""

from __future__ import annotations

from PySide6.QtCore import QSettings

from gui.stored_settings import stored_int, stored_text

PREFIX = "lesson"


def met(key: str, checks: int) -> int:
    """How many of chapter ``key``'s ``checks`` checks the learner has met (0 … checks)."""
    return stored_int(QSettings(), f"{PREFIX}/{key}/met", 0, 0, max(0, checks))


def remember(key: str, count: int) -> None:
    """Store that the learner has met ``count`` of chapter ``key``'s checks."""
    QSettings().setValue(f"{PREFIX}/{key}/met", int(count))


def reset(key: str) -> None:
    """Forget the learner's progress in chapter ``key``."""
    QSettings().remove(f"{PREFIX}/{key}")


def last_chapter() -> str | None:
    """The chapter the learner last had open (None before any)."""
    return stored_text(QSettings(), f"{PREFIX}/chapter")


def remember_chapter(key: str) -> None:
    """Store chapter ``key`` as the one the learner has open."""
    QSettings().setValue(f"{PREFIX}/chapter", key)
