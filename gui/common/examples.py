"""Example sentences (``resources/examples.json``), offered as a menu by the Translate and Compare
tabs."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from PySide6.QtWidgets import QMenu

EXAMPLES_FILE = Path(__file__).resolve().parents[2] / "resources" / "examples.json"
MENU_TEXT_LIMIT = 70  # characters of a sentence shown in a menu entry
# Menu sections, in order: (the examples' "length", section title).
EXAMPLE_GROUPS = (("short", "Short sentences"), ("long", "Long sentences"),
                  ("paragraph", "Several sentences (one input)"))

log = logging.getLogger("attention_studio")


@dataclass(frozen=True)
class Example:
    text: str
    length: str  # one of EXAMPLE_GROUPS: "short", "long" or "paragraph" (several sentences)
    reference: str = ""  # a reference translation, when the file gives one


def load_examples(path: Path = EXAMPLES_FILE) -> dict[str, list[Example]]:
    """Examples by source language; an unreadable file gives none (and a log line), never a crash."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        return {
            language: [Example(str(item["text"]), str(item.get("length", "short")), str(item.get("reference", "")))
                       for item in items]
            for language, items in data.items()
            if isinstance(items, list)
        }
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as error:
        log.warning("cannot read the example sentences %s: %s", path, error)
        return {}


def menu_text(text: str) -> str:
    """``text`` on one line, cut to MENU_TEXT_LIMIT characters, as a menu entry shows it."""
    one_line = " ".join(text.split())
    shown = one_line if len(one_line) <= MENU_TEXT_LIMIT else one_line[: MENU_TEXT_LIMIT - 1] + "…"
    return shown.replace("&", "&&")  # a lone & would become a keyboard accelerator


def fill_examples_menu(menu: QMenu, examples: list[Example], pick: Callable[[str], None]) -> None:
    """Short examples, long examples, then inputs of several sentences, each group in its section."""
    menu.clear()
    if not examples:
        menu.addAction("No examples for this direction").setEnabled(False)
        return
    for length, title in EXAMPLE_GROUPS:
        group = [e for e in examples if e.length == length]
        if group and not menu.isEmpty():
            menu.addSeparator()
        if group:
            menu.addSection(title)
        for example in group:
            action = menu.addAction(menu_text(example.text))
            action.setToolTip(example.text)
            action.triggered.connect(lambda _checked=False, text=example.text: pick(text))
