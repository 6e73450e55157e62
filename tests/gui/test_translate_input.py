"""Input handling of the Translate view: empty and long input, examples and history."""

from __future__ import annotations

import pytest

from engine.settings.config import MAX_INPUT_CHARS, MAX_SOURCE_TOKENS
from tests.gui.test_translate_support import (
    install_models,
    open_window,
    type_and_translate,
    wait_for_model,
    wait_run_end,
)

pytestmark = pytest.mark.slow  # trains a model, opens the real window, runs a subprocess or fuzzes many cases


@pytest.fixture
def window(qtbot, dates_models):
    install_models(dates_models, ("additive",))
    window = open_window(qtbot)
    wait_for_model(qtbot, window, "additive")
    return window


def test_empty_input_disables_translate_with_a_hint(qtbot, window):
    view = window.translate_tab.view
    assert view.source_input.text() == ""
    assert not view.translate_button.isEnabled()
    assert "Type a sentence" in view.hint_label.text()
    qtbot.keyClicks(view.source_input, "   ")
    assert not view.translate_button.isEnabled()
    assert "only spaces" in view.hint_label.text()
    assert view.translate_button.toolTip()
    qtbot.keyClick(view.source_input, "\r")
    assert not window.translate_tab.controller.running
    qtbot.keyClicks(view.source_input, "29 Nov 2026")
    assert view.translate_button.isEnabled()
    assert view.hint_label.text() == ""


def test_long_input_is_truncated_with_a_visible_notice(qtbot, window):
    view = window.translate_tab.view
    text = "29 Nov 2026, " * 120  # 1,560 characters
    view.source_input.setText(text)
    assert view.translate_button.isEnabled()
    assert "truncated" in view.hint_label.text() and f"{MAX_INPUT_CHARS:,}" in view.hint_label.text()
    assert view.hint_label.isVisibleTo(window)
    view.translate_button.click()
    wait_run_end(qtbot, window)
    panel = view.attention_panel
    assert len(panel.source_tokens()) == MAX_SOURCE_TOKENS
    assert panel.attention().shape == (len(panel.target_tokens()), MAX_SOURCE_TOKENS)
    assert "truncated" in view.hint_label.text()
    x_range = panel.heatmap.plot.getViewBox().viewRange()[0]
    columns = len(panel.heatmap._labels["top"])  # words (the default view) or pieces
    assert columns > 40 and x_range == [-0.5, columns - 0.5], "a long input opens fitted, never cropped"
    shown = [index for index, _ in panel.heatmap.shown_labels("top")]
    assert shown[1] > 1 and shown == list(range(0, columns, shown[1]))  # labels thinned evenly


def test_examples_and_history(qtbot, window):
    tab = window.translate_tab
    actions = [a for a in tab.view.examples_menu.actions() if a.isEnabled() and not a.isSeparator() and a.text()]
    texts = [a.toolTip() for a in actions]
    assert "29 Nov 2026" in texts and any("二〇二六" in t for t in texts)
    example = next(a for a in actions if a.toolTip() == "11/29/26")
    example.trigger()
    wait_run_end(qtbot, window)
    assert tab.view.source_input.text() == "11/29/26"
    assert tab.view.attention_panel.target_tokens()
    type_and_translate(qtbot, window, "29 Nov 2026")
    wait_run_end(qtbot, window)
    assert tab.history.items() == ["29 Nov 2026", "11/29/26"]
    tab.view.history_menu.aboutToShow.emit()
    assert [a.text() for a in tab.view.history_menu.actions()] == ["29 Nov 2026", "11/29/26"]


def test_hovering_a_cell_highlights_its_tokens(qtbot, window):
    tab = window.translate_tab
    type_and_translate(qtbot, window, "29 Nov 2026")
    wait_run_end(qtbot, window)
    panel = tab.view.attention_panel
    panel.set_word_view(False)  # the model's pieces: map cells are (step, source position)
    panel.heatmap.cellHovered.emit(1, 2)
    assert "α(" in panel.hover_label.text() and f"{panel.attention()[1, 2]:.4f}" in panel.hover_label.text()
    assert tab.view.source_tokens.extraSelections()  # source token 2 highlighted
    tab.view.target_output.tokenHovered.emit(3)
    assert panel.inspector.shown_index == 3
    assert "Top-5" in panel.inspector.alternatives.text()
    assert "tanh" in panel.inspector.formula.text()
    assert panel.inspector.weights.rowCount() == len(panel.source_tokens())
    tab.view.target_output.tokenHovered.emit(-1)
    assert panel.inspector.shown_index == len(panel.target_tokens()) - 1


def test_a_paste_longer_than_the_field_reports_the_pasted_length(qtbot, window):
    from PySide6.QtGui import QGuiApplication

    view = window.translate_tab.view
    pasted = "29 Nov 2026, " * 4000  # 52,000 characters: more than the field's 32,767
    QGuiApplication.clipboard().setText(pasted)
    view.source_input.setFocus()
    view.source_input.paste()
    assert len(view.source_input.text()) == view.source_input.maxLength()
    assert f"{len(pasted):,} characters" in view.hint_label.text()
    assert f"first {view.source_input.maxLength():,}" in view.hint_label.text()
