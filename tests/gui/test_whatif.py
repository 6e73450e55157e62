"""What-if decoding in the Translate view: pick a candidate, type a correction, set attention."""

from __future__ import annotations

import numpy as np
import pytest

from gui.translate.whatif_state import WhatIf
from tests.gui.test_translate_support import install_models, open_window, wait_for_model, wait_run_end

pytestmark = pytest.mark.slow  # trains a model, opens the real window, runs a subprocess or fuzzes many cases

SENTENCE = "29 Nov 2026"


def test_the_what_if_state_keeps_prefixes_and_toggles_attention_positions():
    state = WhatIf().with_attention(2, 1).with_attention(2, 3, add=True)
    assert state.overrides == {2: (1, 3)} and state.override_weights() == {2: {1: 1.0, 3: 1.0}}
    assert state.with_attention(2, 3, add=True).overrides == {2: (1,)}
    assert state.with_attention(2, 5).overrides == {2: (5,)}  # a plain click replaces
    picked = state.with_alternative([7, 8, 9], 1, 42)
    assert picked.prefix_ids == (7, 42) and picked.overrides == state.overrides
    assert picked.with_prefix_text("abc").prefix_ids is None
    assert "step 2 attends to b, d" in state.describe(["a", "b", "c", "d"])
    assert not WhatIf().active and WhatIf().describe(["a"]) == ""


def _translate(qtbot, window, text: str = SENTENCE) -> None:
    tab = window.translate_tab
    tab.translate_text(text)
    wait_run_end(qtbot, window)


def _redecoded(qtbot, window, action) -> None:
    with qtbot.waitSignal(window.translate_tab.controller.runFinished, timeout=30000):
        action()
    wait_run_end(qtbot, window)


def _translated(qtbot, dates_models):
    """A window with the additive dates model that has translated SENTENCE."""
    install_models(dates_models, ("additive",))
    window = open_window(qtbot)
    wait_for_model(qtbot, window, "additive")
    window.translate_tab.view.attention_panel.set_word_view(False)  # the model's pieces: cells are (step, position)
    _translate(qtbot, window)
    return window


def test_picking_a_candidate_makes_the_model_continue_from_it_and_undo_returns(qtbot, dates_models):
    window = _translated(qtbot, dates_models)
    tab, panel = window.translate_tab, window.translate_tab.view.attention_panel
    own = list(panel.target_tokens())
    second = panel.record.step(1)
    alternative = next(a for a in second.alternatives if a.token_id != second.token_id)
    _redecoded(qtbot, window, lambda: panel.inspector.alternativeChosen.emit(1, alternative.token_id))
    steps = panel.record.steps
    assert steps[1].token_id == alternative.token_id and steps[0].forced and steps[1].forced
    assert not steps[-1].forced and tab.view.whatif_bar.undo_button.isEnabled()
    assert "first 2 tokens are given" in tab.view.whatif_bar.summary.text()
    assert any(label.startswith("✎") for label in panel._row_labels())
    _redecoded(qtbot, window, tab.view.whatif_bar.undo_button.click)
    assert list(panel.target_tokens()) == own and not tab.view.whatif_bar.undo_button.isEnabled()


def test_a_typed_correction_and_attention_set_by_hand_steer_the_decode(qtbot, dates_models):
    window = _translated(qtbot, dates_models)
    tab, panel = window.translate_tab, window.translate_tab.view.attention_panel
    bar = tab.view.whatif_bar
    bar.prefix_input.setText("1999")
    _redecoded(qtbot, window, lambda: bar.prefix_input.returnPressed.emit())
    assert "".join(panel.target_tokens()).replace("\u2581", "").startswith("1999")
    bar.attend_button.setChecked(True)
    last = len(panel.source_tokens()) - 1
    _redecoded(qtbot, window, lambda: panel.heatmap.cellClicked.emit(0, last, False))
    step = panel.record.step(0)
    assert step.overridden and step.attention[last] == 1.0 and np.isclose(step.attention.sum(), 1.0)
    panel.select_step(0)
    assert "α set by hand" in panel.inspector.alternatives.text()
    assert "step 0 attends to" in bar.summary.text() and "start with" in bar.summary.text()


def test_the_fixed_context_scorer_offers_no_attention_to_set(qtbot, dates_models):
    install_models(dates_models, ("none",))
    window = open_window(qtbot)
    wait_for_model(qtbot, window, "none")
    bar = window.translate_tab.view.whatif_bar
    assert not bar.attend_button.isEnabled() and "fixed context" in bar.attend_button.toolTip()


def test_attention_set_in_the_words_view_is_the_weight_the_word_shows_and_the_hint_says_so(qtbot, dates_models):
    window = _translated(qtbot, dates_models)
    tab, panel = window.translate_tab, window.translate_tab.view.attention_panel
    panel.set_word_view(True)
    bar = tab.view.whatif_bar
    before = panel.hover_label.text()
    bar.attend_button.setChecked(True)
    assert panel.hover_label.text() != before and "click a cell" in panel.hover_label.text()  # the mode's hint
    units = panel.units()
    row = next(r for r in range(len(units.target.words)) if len(units.row_pieces(r)) > 1)  # a word of 2+ pieces
    column = len(units.source.words) - 1
    steps, positions = list(units.row_pieces(row)), list(units.column_pieces(column))
    _redecoded(qtbot, window, lambda: panel.heatmap.cellClicked.emit(row, column, False))
    for step in steps:  # every piece of the word, not its first only
        record = panel.record.step(step)
        assert record.overridden and np.isclose(record.attention[positions].sum(), 1.0)
    units = panel.units()
    if list(units.row_pieces(row)) == steps:  # the same word again: its row shows the 1.0 given (not ~0.55)
        assert np.isclose(units.matrix(panel.record.attention())[row, column], 1.0)
    bar.attend_button.setChecked(False)
    assert panel.hover_label.text() == before
