"""Switching the interface's language in the real window keeps what is on screen: the decode (its output,
its attention matrix, the step selected), the typed input, the model in use and the choices — only the
words change. The Language menu's choice is remembered and read at the next start."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import QSettings

from gui.i18n import LANGUAGE_KEY, current_language, set_language
from tests.gui.test_translate_support import (
    install_models,
    open_window,
    type_and_translate,
    wait_for_model,
    wait_run_end,
)

pytestmark = pytest.mark.slow  # trains the dates models, opens the real window


@pytest.fixture(autouse=True)
def english_afterwards():
    yield
    set_language("en", remember=False)


def test_switching_language_keeps_the_decode_and_rewrites_the_words(qtbot, dates_models):
    install_models(dates_models, ("additive",))
    window = open_window(qtbot)
    wait_for_model(qtbot, window)
    tab = window.translate_tab
    view, panel = tab.view, tab.view.attention_panel
    type_and_translate(qtbot, window, "29 Nov 2026")
    wait_run_end(qtbot, window)
    panel.select_step(2)
    before = (view.source_input.text(), tuple(panel.target_tokens()), panel.attention().copy(),
              tab.controller.bundle, view.choice_bar.current_direction(), view.choice_bar.current_scorer())
    english = (view.translate_button.text(), window.tabs.tabText(0), view.transport.pause_button.text())
    assert english == ("Translate", "Translate", "Pause")

    window.language_button.choose("zh_CN")
    assert current_language() == "zh_CN" and QSettings().value(LANGUAGE_KEY) == "zh_CN"
    assert (view.translate_button.text(), window.tabs.tabText(0), view.transport.pause_button.text()) == (
        "翻译", "翻译", "暂停")
    # made again from their parts on LanguageChange: the direction's name and the status line
    qtbot.waitUntil(lambda: view.choice_bar.direction_combo.currentText() == "日期 → ISO 8601")
    qtbot.waitUntil(lambda: "个参数" in tab.status.label.text())
    after = (view.source_input.text(), tuple(panel.target_tokens()), panel.attention(), tab.controller.bundle,
             view.choice_bar.current_direction(), view.choice_bar.current_scorer())
    assert after[:2] == before[:2] and np.array_equal(after[2], before[2]) and after[3:] == before[3:]
    assert not tab.controller.running  # nothing was decoded again

    window.language_button.choose("en")
    assert (view.translate_button.text(), window.tabs.tabText(0), view.transport.pause_button.text()) == english
    qtbot.waitUntil(lambda: "parameters" in tab.status.label.text())
    assert tuple(panel.target_tokens()) == before[1] and np.array_equal(panel.attention(), before[2])
