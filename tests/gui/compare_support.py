"""What the Compare tab's tests share (the tab itself is the ``compare`` fixture, tests/gui/conftest.py)."""

from __future__ import annotations

from tests.gui.test_translate_support import RUN_MS

DIRECTION = "dates-src-iso"


def run(qtbot, tab, text: str, reference: str = "") -> None:
    with qtbot.waitSignal(tab.controller.runFinished, timeout=RUN_MS):
        tab.set_sentence(text, reference)
    qtbot.waitUntil(lambda: not tab.scheduler.pending, timeout=RUN_MS)  # the maps are drawn one panel at a time
