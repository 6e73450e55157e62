"""Helpers shared by the Translate view's tests (this module holds no tests of its own)."""

from __future__ import annotations

import shutil
from pathlib import Path

from PySide6.QtCore import Qt

from engine.files import user_models_folder
from gui.app import create_window
from gui.main_window import MainWindow

LOAD_MS = 30000
RUN_MS = 30000


def install_models(dates_models: dict[str, Path], scorers: tuple[str, ...] = ("additive", "dot", "none")) -> Path:
    """Copy the test models into the user's model folder, where the catalog finds them."""
    root = user_models_folder()
    root.mkdir(parents=True, exist_ok=True)
    for scorer in scorers:
        target = root / f"dates-{scorer}"
        if not target.exists():
            shutil.copytree(dates_models[scorer], target, ignore=shutil.ignore_patterns("checkpoint*"))
    return root


def open_window(qtbot, argv: list[str] | None = None) -> MainWindow:
    window = create_window(argv or [])
    qtbot.addWidget(window)
    return window


def wait_for_model(qtbot, window: MainWindow, scorer: str | None = None) -> None:
    controller = window.translate_tab.controller

    def loaded() -> None:
        assert controller.bundle is not None and not controller.loading
        if scorer is not None:
            assert controller.bundle.scorer == scorer

    qtbot.waitUntil(loaded, timeout=LOAD_MS)


def type_and_translate(qtbot, window: MainWindow, text: str) -> None:
    """Replace the input like a person would (select all, type) and press Enter."""
    source = window.translate_tab.view.source_input
    source.setFocus()
    qtbot.keyClick(source, Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier)
    if text.isascii():
        qtbot.keyClicks(source, text)
    else:  # QTest types ASCII only; insert() is an edit like typing (textEdited is emitted)
        source.insert(text)
    qtbot.keyClick(source, Qt.Key.Key_Return)


def wait_run_end(qtbot, window: MainWindow) -> None:
    controller = window.translate_tab.controller
    qtbot.waitUntil(lambda: not controller.running, timeout=RUN_MS)


def test_the_examples_menu_offers_inputs_of_several_sentences_in_their_own_section(qtbot):
    from PySide6.QtWidgets import QMenu

    from gui.common.examples import fill_examples_menu, load_examples

    examples = load_examples()
    for language in ("zh", "en"):
        paragraphs = [e.text for e in examples[language] if e.length == "paragraph"]
        assert len(paragraphs) >= 3
        assert all(sum(e.text.count(mark) for mark in "。.!?？！") >= 2 for e in examples[language]
                   if e.length == "paragraph")
        menu = QMenu()
        picked = []
        fill_examples_menu(menu, examples[language], picked.append)
        sections = [a.text() for a in menu.actions() if a.isSeparator() and a.text()]
        assert sections == ["Short sentences", "Long sentences", "Several sentences (one input)"]
        [action] = [a for a in menu.actions() if a.toolTip() == paragraphs[0]]
        action.trigger()
        assert picked == [paragraphs[0]]
