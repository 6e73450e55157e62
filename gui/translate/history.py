"""This session's translation history, newest first, offered as a menu of the Translate tab."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QCoreApplication
from PySide6.QtWidgets import QMenu

from gui.common.examples import menu_text

HISTORY_LIMIT = 30


class History:
    """Sentences translated this session, newest first, without repeats."""

    def __init__(self, limit: int = HISTORY_LIMIT) -> None:
        self._items: list[str] = []
        self._limit = limit

    def add(self, text: str) -> None:
        text = text.strip()
        if not text:
            return
        if text in self._items:
            self._items.remove(text)
        self._items.insert(0, text)
        del self._items[self._limit :]

    def items(self) -> list[str]:
        return list(self._items)


def fill_history_menu(menu: QMenu, history: History, pick: Callable[[str], None]) -> None:
    """Fill ``menu`` with the history's inputs, each calling ``pick`` with its text."""
    menu.clear()
    items = history.items()
    if not items:
        menu.addAction(QCoreApplication.translate("History", "Nothing translated yet")).setEnabled(False)
        return
    for text in items:
        action = menu.addAction(menu_text(text))
        action.triggered.connect(lambda _checked=False, text=text: pick(text))
