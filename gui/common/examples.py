"""The example sentences (engine.corpus.examples), offered as a menu by the Translate and Compare tabs."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication
from PySide6.QtWidgets import QMenu

from engine.corpus import EXAMPLE_LENGTHS, Example, load_examples

__all__ = ["EXAMPLE_GROUPS", "Example", "fill_examples_menu", "load_examples", "menu_text"]

MENU_TEXT_LIMIT = 70  # characters of a sentence shown in a menu entry
# Menu sections, in order: (the examples' "length", section title).
# (English, marked for translation: shown through QCoreApplication.translate("Examples", title).)
EXAMPLE_GROUPS = tuple(zip(EXAMPLE_LENGTHS, (QT_TRANSLATE_NOOP("Examples", "Short sentences"),
                                             QT_TRANSLATE_NOOP("Examples", "Long sentences"),
                                             QT_TRANSLATE_NOOP("Examples", "Several sentences (one input)")), strict=True))


def menu_text(text: str) -> str:
    """``text`` on one line, cut to MENU_TEXT_LIMIT characters, as a menu entry shows it."""
    one_line = " ".join(text.split())
    shown = one_line if len(one_line) <= MENU_TEXT_LIMIT else one_line[: MENU_TEXT_LIMIT - 1] + "…"
    return shown.replace("&", "&&")  # a lone & would become a keyboard accelerator


def fill_examples_menu(menu: QMenu, examples: list[Example], pick: Callable[[str], None]) -> None:
    """Short examples, long examples, then inputs of several sentences, each group in its section."""
    menu.clear()
    if not examples:
        menu.addAction(QCoreApplication.translate("Examples", "No examples for this direction")).setEnabled(False)
        return
    for length, title in EXAMPLE_GROUPS:
        group = [e for e in examples if e.length == length]
        if group and not menu.isEmpty():
            menu.addSeparator()
        if group:
            menu.addSection(QCoreApplication.translate("Examples", title))
        for example in group:
            action = menu.addAction(menu_text(example.text))
            action.setToolTip(example.text)
            action.triggered.connect(lambda _checked=False, text=example.text: pick(text))
