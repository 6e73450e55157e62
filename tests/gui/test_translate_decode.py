"""Live decoding in the Translate view with real (tiny) dates models."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtWidgets import QApplication

from engine.models.bundle import load_model_folder
from engine.settings.config import DecodeConfig
from engine.settings.scorer_table import SCORER_NAMES
from tests.gui.test_translate_support import (
    RUN_MS,
    install_models,
    open_window,
    type_and_translate,
    wait_for_model,
    wait_run_end,
)

pytestmark = pytest.mark.slow  # trains a model, opens the real window, runs a subprocess or fuzzes many cases

SENTENCE = "29 Nov 2026"


@pytest.fixture
def window(qtbot, dates_models):
    install_models(dates_models)
    window = open_window(qtbot, ["--model", str(dates_models["additive"])])
    wait_for_model(qtbot, window, "additive")
    return window


def choose_scorer(window, scorer: str) -> None:
    combo = window.translate_tab.view.choice_bar.scorer_combo
    index = combo.findData(scorer)
    combo.setCurrentIndex(index)
    combo.activated.emit(index)


def test_steps_are_shown_in_order_with_growing_rows(qtbot, window):
    tab = window.translate_tab
    panel = tab.view.attention_panel
    seen = []

    def on_step(index: int) -> None:
        seen.append((index, panel.attention(), panel.target_tokens(), panel.source_tokens(),
                     tab.last_translation is None, tab.controller.running))

    panel.stepShown.connect(on_step)
    type_and_translate(qtbot, window, SENTENCE)
    wait_run_end(qtbot, window)
    assert [s[0] for s in seen] == list(range(len(seen)))
    assert len(seen) >= 3
    first = seen[0]
    assert first[4] and first[5], "the first row must appear before the run finishes"
    source = tab.controller.bundle.translator.prepare(SENTENCE).tokens
    for index, attention, targets, sources, _, _ in seen:
        assert tuple(sources) == source
        assert attention.shape == (index + 1, len(source)) == (len(targets), len(sources))
        np.testing.assert_allclose(attention.sum(axis=1), 1.0, atol=1e-4)
    final = panel.attention()
    assert final.shape == (len(panel.target_tokens()), len(panel.source_tokens()))
    assert panel.target_tokens()[-1] == "</s>"
    assert tab.view.target_output.text() == tab.last_translation.text
    assert tab.view.target_output.toPlainText() == tab.last_translation.text


def test_switching_scorer_redecodes_with_the_other_model(qtbot, window, dates_models):
    tab = window.translate_tab
    panel = tab.view.attention_panel
    type_and_translate(qtbot, window, SENTENCE)
    wait_run_end(qtbot, window)
    additive = panel.attention()
    sources = panel.source_tokens()
    with qtbot.waitSignal(panel.stepShown, timeout=RUN_MS):
        choose_scorer(window, "dot")
    wait_for_model(qtbot, window, "dot")
    wait_run_end(qtbot, window)
    assert panel.source_tokens() == sources
    dot = panel.attention()
    assert dot.shape[1] == additive.shape[1]
    assert dot.shape != additive.shape or not np.allclose(dot, additive)
    expected = load_model_folder(dates_models["dot"]).translator.translate(SENTENCE)
    np.testing.assert_allclose(dot, expected.attention, atol=1e-5)
    assert "Dot product" in tab.status.label.text()


def test_none_scorer_explains_the_fixed_context(qtbot, window):
    tab = window.translate_tab
    panel = tab.view.attention_panel
    choose_scorer(window, "none")
    wait_for_model(qtbot, window, "none")
    shown = []
    panel.stepShown.connect(shown.append)
    type_and_translate(qtbot, window, SENTENCE)
    wait_run_end(qtbot, window)
    assert shown == list(range(len(panel.target_tokens())))
    assert not panel.has_attention()
    assert panel.attention().shape == (0, len(panel.source_tokens()))
    assert panel.stack.currentWidget() is panel.note
    assert "same C" in panel.note.text()


def test_scorers_without_a_model_are_disabled_with_the_reason(window):
    combo = window.translate_tab.view.choice_bar.scorer_combo
    assert combo.count() == len(SCORER_NAMES)  # every mechanism of the registry, with a model or not
    labels = [combo.itemText(i) for i in range(combo.count())]
    assert labels[0] == "Additive (Bahdanau)" and "Bilinear" in labels[1]
    model = combo.model()
    bilinear = combo.findData("bilinear")
    assert not model.item(bilinear).isEnabled()
    assert "No Dates → ISO 8601 model" in combo.itemData(bilinear, 3)  # Qt.ToolTipRole
    assert model.item(combo.findData("dot")).isEnabled()
    directions = window.translate_tab.view.choice_bar.direction_combo
    assert directions.itemText(0) == "Dates → ISO 8601" and directions.itemData(0) == "dates-src-iso"


def test_retyping_mid_run_cancels_the_old_run(qtbot, window):
    tab = window.translate_tab
    panel = tab.view.attention_panel
    tab.view.choice_bar.speed_slider.setValue(2)  # 0.1 s per step
    type_and_translate(qtbot, window, SENTENCE)
    with qtbot.waitSignal(panel.stepShown, timeout=RUN_MS):
        pass
    assert tab.controller.running
    tab.view.choice_bar.speed_slider.setValue(0)
    shown = []
    panel.stepShown.connect(lambda i: shown.append((i, panel.source_tokens())))
    type_and_translate(qtbot, window, "11/29/26")
    wait_run_end(qtbot, window)
    expected = tab.controller.bundle.translator.translate("11/29/26")
    assert panel.source_tokens() == list(expected.source_tokens)
    assert [i for i, _ in shown] == list(range(len(expected.tokens)))
    assert all(tokens == list(expected.source_tokens) for _, tokens in shown)
    np.testing.assert_allclose(panel.attention(), expected.attention, atol=1e-5)


def test_rapid_scorer_switching_never_mixes_models(qtbot, window, dates_models):
    tab = window.translate_tab
    type_and_translate(qtbot, window, SENTENCE)
    for scorer in ("dot", "none", "dot", "additive", "dot"):
        choose_scorer(window, scorer)
        QApplication.processEvents()  # the switches arrive one event-loop turn apart
    wait_for_model(qtbot, window, "dot")
    wait_run_end(qtbot, window)
    panel = tab.view.attention_panel
    expected = load_model_folder(dates_models["dot"]).translator.translate(SENTENCE)
    assert panel.target_tokens() == list(expected.tokens)
    np.testing.assert_allclose(panel.attention(), expected.attention, atol=1e-5)


def test_pause_and_step_one_token(qtbot, window):
    tab = window.translate_tab
    panel = tab.view.attention_panel
    transport = tab.view.transport
    tab.view.choice_bar.speed_slider.setValue(1)  # 0.05 s per step
    type_and_translate(qtbot, window, "November 29, 2026")
    with qtbot.waitSignal(panel.stepShown, timeout=RUN_MS):
        pass
    with qtbot.waitSignal(tab.controller.runHeld, timeout=RUN_MS):  # the step in flight has arrived
        transport.pause_button.click()
    assert tab.controller.state == "paused"
    panel.render_now()
    rows = len(panel.target_tokens())
    with qtbot.assertNotEmitted(tab.controller.stepArrived, wait=300):
        pass  # no step while paused
    with qtbot.waitSignals([panel.stepShown, tab.controller.runHeld], timeout=RUN_MS):  # one step, then held again
        transport.step_button.click()
    panel.render_now()
    assert len(panel.target_tokens()) == rows + 1, "exactly one step"
    transport.pause_button.click()  # resume
    wait_run_end(qtbot, window)
    assert panel.target_tokens()[-1] == "</s>"


def test_stop_keeps_the_rows_shown(qtbot, window):
    tab = window.translate_tab
    panel = tab.view.attention_panel
    tab.view.choice_bar.speed_slider.setValue(4)
    type_and_translate(qtbot, window, SENTENCE)
    with qtbot.waitSignal(panel.stepShown, timeout=RUN_MS):
        pass
    tab.view.transport.stop_button.click()
    assert not tab.controller.running
    rows = len(panel.target_tokens())
    with qtbot.assertNotEmitted(panel.stepShown, wait=400):  # a stopped run shows nothing more
        pass
    assert len(panel.target_tokens()) == rows
    assert panel.attention().shape == (rows, len(panel.source_tokens()))
    assert "Stopped" in tab.view.hint_label.text()
    assert not tab.view.transport.stop_button.isEnabled()


def test_beam_search_shows_the_chosen_hypothesis(qtbot, window):
    tab = window.translate_tab
    panel = tab.view.attention_panel
    tab.view.choice_bar.beam_spin.setValue(4)
    type_and_translate(qtbot, window, "the 29th of November 2026")
    wait_run_end(qtbot, window)
    expected = tab.controller.bundle.translator.translate("the 29th of November 2026", DecodeConfig(beam_size=4))
    assert panel.target_tokens() == list(expected.tokens)
    np.testing.assert_allclose(panel.attention(), expected.attention, atol=1e-5)
    np.testing.assert_allclose(panel.attention().sum(axis=1), 1.0, atol=1e-4)
