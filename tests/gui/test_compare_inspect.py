"""The Compare tab's linked hover: a map row or an output token shows that step of that scorer in
the step inspector; a source token tints every output by the attention each token gave it."""

from __future__ import annotations

import re

import numpy as np
import pytest

from gui.attention.labels import join_pieces
from gui.compare.model import PanelRows, output_shading
from gui.compare.panel import SHADE_FLOOR, STEP_LINK
from tests.gui.compare_support import run
from tests.gui.test_translate_support import RUN_MS

SENTENCE = "29 Nov 2026"


def table_column(tab, column: int) -> list[str]:
    model = tab.inspector.weights
    return [model.item(j, column).text() for j in range(model.rowCount())]


def tinted_links(panel) -> set[int]:
    """The output tokens drawn with a background tint (their step indices)."""
    return {int(i) for i in re.findall(rf'href="{STEP_LINK}(\d+)" style="[^"]*background-color', panel.output.text())}


def worded(tokens) -> set[int]:
    """The steps whose token shows as text (the end-of-sentence token does not)."""
    return {i for i, (start, end) in enumerate(join_pieces(tokens)[1]) if end > start}


@pytest.mark.slow  # a trained model, or the real window
def test_a_map_row_shows_that_step_of_that_scorer_in_the_inspector(qtbot, compare):
    tab = compare
    tab.view_bar.set_word_view(False)  # the model's pieces (the word view: tests/gui/test_word_view.py)
    run(qtbot, tab, SENTENCE)
    panel = tab.panels["dot"]
    row = 2
    panel.heatmap.cellHovered.emit(row, 0)
    inspector = tab.inspector
    assert inspector.shown_index == row and "Dot product" in inspector.title.text()
    step = panel.rows.steps[row]  # free decoding: the decode's own step, with its candidates
    assert f"p = {step.probability:.3f}" in inspector.title.text()
    assert table_column(tab, 1) == panel.heatmap.units.column_labels  # pieces, ## where they continue a word
    assert [label.removeprefix("##") for label in table_column(tab, 1)] == [t.replace("▁", "") or t for t in
                                                                             panel.source_tokens]
    assert [float(v) for v in table_column(tab, 3)] == pytest.approx(panel.matrix[row], abs=1e-4)
    assert [float(v) for v in table_column(tab, 2)] == pytest.approx(step.scores, abs=1e-3)
    assert "candidates" in inspector.alternatives.text() and "href" not in inspector.alternatives.text()
    panel.heatmap.cellHovered.emit(-1, -1)  # the pointer leaves the map: the step stays shown
    assert inspector.shown_index == row


@pytest.mark.slow  # a trained model, or the real window
def test_an_output_token_of_a_forced_target_shows_its_probability_and_scores(qtbot, compare):
    tab = compare
    tab.view_bar.set_word_view(False)  # the model's pieces
    run(qtbot, tab, SENTENCE, reference="2026-11-29")
    index = tab.target_combo.findData("reference")
    tab.target_combo.setCurrentIndex(index)
    with qtbot.waitSignal(tab.controller.runFinished, timeout=RUN_MS):
        tab.target_combo.activated.emit(index)
    panel = tab.panels["additive"]
    assert panel.forced
    forced = tab.controller.bundles["additive"].translator  # the engine's own forced decoding, for the figures
    from engine.decoding.forced import force_decode

    expected = force_decode(forced, SENTENCE, "2026-11-29", tab.controller.bundles["additive"].target_language)
    assert f'href="{STEP_LINK}3"' in panel.output.text()
    panel.output.linkHovered.emit(f"{STEP_LINK}3")
    inspector = tab.inspector
    assert inspector.shown_index == 3 and "Additive" in inspector.title.text()
    assert f"p = {expected.probabilities[3]:.3f}" in inspector.title.text()
    assert [float(v) for v in table_column(tab, 2)] == pytest.approx(expected.scores[3], abs=1e-3)
    assert panel.heatmap._row_box.isVisible()  # the step's row is outlined in its own map
    panel.output.linkHovered.emit("")
    assert not panel.heatmap._row_box.isVisible() and inspector.shown_index == 3
    tab.difference.heatmap.cellHovered.emit(0, 1)  # the difference map links its columns too
    assert panel.heatmap._column_box.isVisible() and tab.panels["dot"].heatmap._column_box.isVisible()
    assert tinted_links(panel) == {i for i, w in enumerate(panel.matrix[:, 1]) if w >= SHADE_FLOOR} & worded(
        panel.target_tokens)
    tab.panels["none"].output.linkHovered.emit(f"{STEP_LINK}1")  # no map: p, and the fixed context
    assert "None" in inspector.title.text() and "c_i = C" in inspector.context.text()
    assert not inspector.table.isVisible()


@pytest.mark.slow  # a trained model, or the real window
def test_a_source_token_tints_every_output_by_its_attention_and_leaving_clears_it(qtbot, compare):
    tab = compare
    run(qtbot, tab, SENTENCE)
    column = 1
    tab.panels["additive"].heatmap.cellHovered.emit(0, column)
    for scorer in ("additive", "dot"):
        panel = tab.panels[scorer]
        expected = {i for i, weight in enumerate(panel.matrix[:, column]) if weight >= SHADE_FLOOR}
        assert tinted_links(panel) == expected & worded(panel.target_tokens)
        assert panel.heatmap._column_box.isVisible()
    assert "background-color" not in tab.panels["none"].output.text()
    tab.panels["additive"].heatmap.cellHovered.emit(-1, -1)
    assert all(not tinted_links(tab.panels[s]) for s in ("additive", "dot"))


@pytest.mark.slow  # a trained model, or the real window
def test_a_new_sentence_clears_the_inspector_and_the_text_stays_plain_for_export(qtbot, compare):
    tab = compare
    run(qtbot, tab, SENTENCE)
    tab.panels["additive"].heatmap.cellHovered.emit(1, 0)
    assert tab.inspector.shown_index == 1
    run(qtbot, tab, "3 May 1999")
    assert tab.inspector.shown_index == -1 and tab.inspector.weights.rowCount() == 0
    panel = tab.panels["additive"]
    expected = tab.controller.bundles["additive"].translator.translate("3 May 1999").text
    assert panel.output_text == expected and tab.document()["panels"][0]["output"] == expected


def test_panel_rows_and_output_shading_without_qt():
    attention = np.array([[0.9, 0.1], [0.2, 0.8]], dtype=np.float32)
    scores = np.array([[2.0, 0.0], [0.0, 1.5]], dtype=np.float32)
    rows = PanelRows(("▁a", "</s>"), attention, scores, (0.5, 0.25))
    detail = rows.detail(1)
    assert detail.token == "</s>" and detail.probability == 0.25 and detail.step is None
    assert np.array_equal(detail.weights, attention[1]) and np.array_equal(detail.scores, scores[1])
    assert rows.detail(2) is None and rows.detail(-1) is None
    assert output_shading(attention, 1) == pytest.approx([0.1, 0.8])
    assert output_shading(attention, 2) == [] and output_shading(None, 0) == []


@pytest.mark.slow  # a trained model, or the real window
def test_the_pointer_moving_over_an_output_reaches_its_tokens_steps(qtbot, compare):
    """Real pointer moves over the label (not emitted signals): its links report the steps."""
    from PySide6.QtCore import QPoint
    from PySide6.QtTest import QTest

    tab = compare
    run(qtbot, tab, SENTENCE)
    panel = tab.panels["additive"]
    qtbot.waitUntil(lambda: panel.output.isVisible() and panel.output.width() > 50, timeout=RUN_MS)
    hovered: list[int] = []
    panel.stepHovered.connect(lambda _scorer, index: hovered.append(index))
    y = panel.output.fontMetrics().lineSpacing() // 2 + 1  # the first line (the text is top-aligned)
    for x in range(0, panel.output.width(), 2):
        QTest.mouseMove(panel.output, QPoint(x, y))
    assert hovered == sorted(hovered)  # left to right
    assert set(hovered) == worded(panel.target_tokens)  # every token shown as text, once or more
    assert tab.inspector.shown_index == hovered[-1]
