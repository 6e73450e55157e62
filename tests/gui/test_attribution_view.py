"""The attention panel's attribution mode without a model (fast): hand-made steps and attributions — rows not
in yet drawn blank, a word's value the sum of its pieces', the diverging scale and the hover line naming the
method, the share bars beside the rows, α's contract untouched, a beam hypothesis shown instead of the
explained output drawn blank, and a model without attention getting a map only from the attribution."""

from __future__ import annotations

import numpy as np
import pytest

from engine.decoding.search import Alternative, DecodeStep
from engine.settings import SCORER_TABLE
from gui.attention.attribution_math import DivergingScale
from gui.attention.panel import AttentionPanel
from tests.gui.conftest import shown
from tests.gui.test_attribution_math import Step

SOURCE = ["▁the", "▁cat", "s", "▁sleep"]  # words: the, cats, sleep
TARGET = ["▁le", "▁chat", "</s>"]


def _step(index: int, matrix: np.ndarray | None, alternatives=()) -> DecodeStep:
    previous = tuple(_step(i, matrix) for i in range(index))
    row = None if matrix is None else matrix[index]
    return DecodeStep(index, 10 + index, TARGET[index], 0.8, row, None if row is None else row * 2,
                      alternatives or (Alternative(10 + index, TARGET[index], 0.8),), tuple(TARGET[: index + 1]),
                      None if matrix is None else matrix[: index + 1], -0.2 * (index + 1), previous_steps=previous)


def _panel(qtbot, attends: bool = True) -> tuple[AttentionPanel, np.ndarray | None]:
    panel = shown(qtbot, AttentionPanel(), 1000, 600)
    alpha = np.array([[0.7, 0.1, 0.1, 0.1], [0.1, 0.5, 0.3, 0.1], [0.25, 0.25, 0.25, 0.25]], np.float32)
    alpha = alpha if attends else None
    panel.begin(SOURCE, attends, SCORER_TABLE["dot"] if attends else SCORER_TABLE["none"])
    for i in range(len(TARGET)):
        panel.show_step(_step(i, alpha, (Alternative(10 + i, TARGET[i], 0.8), Alternative(99, "▁chien", 0.1))))
    panel.render_now()
    return panel, alpha


def test_an_attribution_fills_the_map_row_by_row_with_alphas_contract_untouched(qtbot):
    panel, alpha = _panel(qtbot)
    panel.set_word_view(False)
    view = panel.attribution
    assert not view.choice.isVisibleTo(panel)  # no one computes attributions here (a replay): not offered
    view.set_method("ig")
    view.set_subject(tuple(TARGET))
    assert np.isnan(panel.heatmap._weights).all()  # nothing computed yet: blank rows
    first = np.array([0.5, -1.5, 0.25, 0.0], np.float32)
    view.add(Step(0, "ig", first, np.zeros(0)))
    panel.render_now()
    assert np.allclose(panel.heatmap._weights[0], first) and np.isnan(panel.heatmap._weights[1:]).all()
    assert panel.heatmap.bar_label.startswith("IG") and "1.50" in panel.heatmap.bar_label  # ±max |a|
    assert isinstance(panel.heatmap.color_scale, DivergingScale)  # the diverging scale, not α's
    assert panel.heatmap.color_bar.colorMap().name == "CET-D1"
    assert np.array_equal(panel.attention(), alpha)
    view.add(Step(1, "ig", np.array([0.1, 0.1, 0.1, 0.1], np.float32), np.array([1.2], np.float32)))
    panel.render_now()
    shares = view.share.values
    assert shares[0] == 1.0 and shares[1] == pytest.approx(0.4 / 1.6) and np.isnan(shares[2])
    panel.heatmap.cellHovered.emit(0, 1)
    assert panel.hover_label.text().startswith("IG(")
    panel.select_step(0)
    assert view.section.agreement.top_alpha == 0 and view.section.agreement.top_attribution == 1
    assert not view.section.agreement.agrees and "they differ" in view.section.summary.text()
    panel.set_color_scale("row")  # Per row: each row ÷ its largest |a| on the colours; the values kept
    assert "row max" in panel.heatmap.bar_label and np.allclose(panel.heatmap._weights[0], first)
    assert np.nanmax(np.abs(panel.heatmap._grid[1])) == pytest.approx(1.0)


def test_the_word_view_sums_a_source_words_pieces(qtbot):
    panel, _alpha = _panel(qtbot)
    view = panel.attribution
    view.set_method("occlusion")
    view.set_subject(tuple(TARGET))
    view.add(Step(0, "occlusion", np.array([0.5, 1.0, 0.25, -0.5], np.float32), np.zeros(0)))
    panel.render_now()
    units = panel.units()
    assert units.words and list(units.source.words) == ["the", "cats", "sleep"]
    assert np.allclose(panel.heatmap._weights[0], [0.5, 1.25, -0.5])


def test_a_hypothesis_other_than_the_explained_output_is_drawn_blank(qtbot):
    panel, _alpha = _panel(qtbot)
    view = panel.attribution
    view.set_method("grad")
    view.set_subject(("▁un", "▁chien", "</s>"))  # not the output on screen
    view.add(Step(0, "grad", np.ones(4, np.float32), np.zeros(0)))
    panel.render_now()
    assert np.isnan(panel.heatmap._weights).all() and view.export_record() is None


def test_without_attention_only_the_attribution_gives_a_map(qtbot):
    panel, _alpha = _panel(qtbot, attends=False)
    assert panel.stack.currentIndex() == 1 and "only explanation" in panel.note.text()
    view = panel.attribution
    view.set_method("ig")
    assert panel.stack.currentIndex() == 0 and view.share.attached
    view.set_subject(tuple(TARGET))
    for i in range(3):
        view.add(Step(i, "ig", np.full(4, 0.1 * (i + 1), np.float32), np.full(i, 0.05, np.float32)))
    panel.render_now()
    assert panel.heatmap._weights.shape == (3, 3) and not np.isnan(panel.heatmap._weights).any()
    assert panel.attention().shape == (0, 4)
    view.set_method("alpha")
    assert panel.stack.currentIndex() == 1 and not view.share.attached
    assert panel.heatmap.color_bar.colorMap().name == "viridis" and panel.heatmap.color_scale is not None
