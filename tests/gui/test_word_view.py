"""The word view (on by default) and the colour scales in the Translate and Compare tabs, with a
real decode: the map draws words while the panel's contract keeps speaking of pieces; the
inspector lists source words; a map opened large stands beside the step inspector."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import QPoint, QRect

from tests.gui.compare_support import run
from tests.gui.test_translate_support import (
    install_models,
    open_window,
    type_and_translate,
    wait_for_model,
    wait_run_end,
)

SENTENCE = "29 Nov 2026"  # pieces ▁29 ▁Nov ▁20 2 6: the year is one word of three pieces


@pytest.fixture
def translated(qtbot, dates_models):
    install_models(dates_models, ("additive",))
    window = open_window(qtbot)
    wait_for_model(qtbot, window, "additive")
    shown = []
    window.translate_tab.view.attention_panel.stepShown.connect(shown.append)
    type_and_translate(qtbot, window, SENTENCE)
    wait_run_end(qtbot, window)
    window.steps_shown = shown
    return window


@pytest.mark.slow  # a trained model, or the real window
def test_the_map_shows_words_while_the_contract_keeps_the_pieces(translated):
    panel = translated.translate_tab.view.attention_panel
    assert panel.word_view()
    pieces, words = panel.source_tokens(), panel.source_words()
    assert "".join(pieces).replace("▁", "") == "".join(words) and len(words) < len(pieces)
    attention = panel.attention()
    assert attention.shape == (len(panel.target_tokens()), len(pieces))  # the contract: pieces
    assert translated.steps_shown == list(range(len(panel.target_tokens())))  # one stepShown per piece row
    merged = panel.word_attention()
    assert merged.shape == (len(panel.target_words()), len(words))
    np.testing.assert_allclose(merged.sum(axis=1), 1.0, atol=1e-5)
    heatmap = panel.heatmap
    assert heatmap._labels["top"] == words and heatmap._columns == len(words)
    np.testing.assert_allclose(heatmap._weights, panel.shown_attention(), atol=1e-6)
    panel.set_word_view(False)
    assert heatmap._columns == len(pieces) and panel.attention().shape[1] == len(pieces)
    assert any(label.startswith("##") for label in heatmap._labels["top"])  # ▁20 2 6: continuations marked


@pytest.mark.slow  # a trained model, or the real window
def test_hovering_a_word_names_it_and_reports_its_first_pieces(translated):
    panel = translated.translate_tab.view.attention_panel
    year = panel.source_words().index("2026")
    reported = []
    panel.cellHovered.connect(lambda row, column: reported.append((row, column)))
    panel.heatmap.cellHovered.emit(0, year)  # the map's own units: words
    assert "2026" in panel.hover_label.text() and "summed" in panel.hover_label.text()
    first_piece = panel.units().column_pieces(year).start
    assert reported == [(0, first_piece)] and panel.source_tokens()[first_piece].endswith("20")


@pytest.mark.slow  # a trained model, or the real window
def test_the_inspector_lists_source_words_with_their_summed_weights_and_word_scores(translated):
    panel = translated.translate_tab.view.attention_panel
    panel.select_step(0)
    table = panel.inspector.weights
    words = panel.source_words()
    assert [table.item(j, 1).text() for j in range(table.rowCount())] == words
    weights = [float(table.item(j, 3).text()) for j in range(table.rowCount())]
    np.testing.assert_allclose(weights, panel.units().columns(panel.attention())[0], atol=1e-4)
    scores = np.array([float(table.item(j, 2).text()) for j in range(table.rowCount())])
    np.testing.assert_allclose(np.exp(scores) / np.exp(scores).sum(), weights, atol=2e-3)  # softmax of word scores
    panel.set_word_view(False)
    assert panel.inspector.weights.rowCount() == len(panel.source_tokens())


@pytest.mark.slow  # a trained model, or the real window
def test_the_colour_scale_is_chosen_in_the_view_and_named_on_the_colour_bar(translated):
    panel = translated.translate_tab.view.attention_panel
    heatmap = panel.heatmap
    assert heatmap.bar_label == "α (0–1)" and heatmap._levels == (0.0, 1.0)
    panel.view_bar.set_scale("row")
    rows = heatmap._grid[: heatmap._rows, : heatmap._columns]
    np.testing.assert_allclose(np.nanmax(rows, axis=1), 1.0, atol=1e-6)
    assert heatmap.bar_label == "α ÷ row max" and panel.color_scale() == "row"
    panel.set_color_scale("auto")
    assert heatmap._levels[1] == pytest.approx(np.ceil(panel.shown_attention().max() * 100) / 100)
    assert "map max" in heatmap.bar_label
    with pytest.raises(ValueError, match="unit, row, auto"):
        panel.set_color_scale("log")


@pytest.mark.slow  # a trained model, or the real window
def test_compare_maps_follow_the_word_view_and_the_large_map_opens_beside_the_inspector(qtbot, compare):
    tab = compare
    run(qtbot, tab, SENTENCE)
    panel = tab.panels["additive"]
    words = panel.heatmap.units.source.words
    assert panel.heatmap._labels["top"] == list(words) and len(words) < len(panel.source_tokens)
    assert panel.coverage.values.size == len(words)
    panel.heatmap.cellHovered.emit(1, 0)
    assert [tab.inspector.weights.item(j, 1).text() for j in range(tab.inspector.weights.rowCount())] == list(words)
    document = tab.document()
    assert document["view"] == "words" and document["panels"][0]["words"]["source"] == list(words)
    window = tab.enlarge("additive")
    qtbot.waitExposed(window)
    assert window.heatmap.words and window.heatmap._labels["top"] == list(words)
    inspector = QRect(tab.inspector.mapToGlobal(QPoint(0, 0)), tab.inspector.size())
    assert not window.frameGeometry().intersects(inspector)
    tab.view_bar.set_word_view(False)
    assert window.heatmap._columns == len(panel.source_tokens) == panel.heatmap._columns


def test_beside_keeps_off_the_inspector_and_inside_the_screen():
    from PySide6.QtCore import QMargins, QSize

    from gui.compare.enlarged import beside

    screen, frame = QRect(0, 0, 1280, 800), QMargins(8, 40, 8, 8)
    for inspector in (QRect(430, 420, 420, 350), QRect(0, 0, 300, 800), QRect(900, 100, 380, 300)):
        place = beside(inspector, screen, QSize(1200, 720), frame)
        framed = place.marginsAdded(frame)
        assert place.isValid() and screen.contains(framed) and not framed.intersects(inspector)
        assert place.width() >= 400 and place.height() >= 280
