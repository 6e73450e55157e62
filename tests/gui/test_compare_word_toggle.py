"""Toggling Words in the Compare tab redraws every map in the new unit: its cells, its row labels
and its coverage bars (the toggle used to leave every map blank, with the coverage bars in the old
unit, until Compare was run again)."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from engine.settings.scorer_table import SCORER_TABLE
from gui.attention.piece_map import PieceMap
from gui.compare.model import PanelNumbers, PanelRows, PanelSlot
from gui.compare.panel import ScorerPanel

SOURCE = ("▁Nov", "ember", "▁29", ",", "▁2026", "</s>")  # 6 pieces, 4 words (, and </s> each one)
TARGET = ("▁20", "26", "-", "11", "-", "29", "</s>")  # 7 pieces, 1 word + 6 more
ATTENTION = np.full((len(TARGET), len(SOURCE)), 1.0 / len(SOURCE), np.float32)


def _finished_panel(qtbot) -> ScorerPanel:
    info = SCORER_TABLE["dot"]
    panel = ScorerPanel(PanelSlot(info, SimpleNamespace()))
    qtbot.addWidget(panel)
    panel.begin(SOURCE)
    panel.show_result(PanelRows(TARGET, ATTENTION), "2026-11-29", PanelNumbers(-0.5, len(TARGET), 1.2, 0.3), False)
    panel.scheduler.flush()
    return panel


def _drawn_rows(heatmap: PieceMap) -> int:
    """Rows of the map's image that hold weights (not NaN)."""
    return int((~np.isnan(heatmap._grid).all(axis=1)).sum())


def test_a_piece_map_keeps_its_rows_when_the_unit_changes(qtbot):
    heatmap = PieceMap(words=True)
    qtbot.addWidget(heatmap)
    heatmap.reset(SOURCE)
    heatmap.set_rows(ATTENTION, TARGET, finished=True)
    words = len(heatmap.units.source.words)
    heatmap.set_word_view(False)
    assert heatmap.target_pieces == TARGET
    assert _drawn_rows(heatmap) == len(TARGET) and heatmap._labels["left"][1] == "##26"
    assert len(heatmap._labels["top"]) == len(SOURCE)
    heatmap.set_word_view(True)
    assert _drawn_rows(heatmap) == len(heatmap.units.target.words) < len(TARGET)
    assert len(heatmap._labels["top"]) == words and heatmap._labels["left"][0] == "2026"


def test_toggling_words_redraws_a_compare_panel_its_labels_and_coverage_in_the_new_unit(qtbot):
    panel = _finished_panel(qtbot)
    heatmap, words = panel.heatmap, len(panel.heatmap.units.source.words)
    assert heatmap.words and panel.coverage.values.size == words < len(SOURCE)
    drawn = []
    panel.mapDrawn.connect(drawn.append)
    panel.set_word_view(False)
    assert drawn == [True]  # an enlarged copy follows
    assert _drawn_rows(heatmap) == len(TARGET) and len(heatmap._labels["left"]) == len(TARGET)
    assert panel.coverage.values.size == len(SOURCE)
    assert np.allclose(panel.coverage.values, ATTENTION.sum(axis=0))
    panel.set_word_view(True)
    assert _drawn_rows(heatmap) == len(heatmap._labels["left"]) == len(heatmap.units.target.words)
    assert panel.coverage.values.size == words
    assert np.isclose(panel.coverage.values.sum(), ATTENTION.sum())


def test_toggling_words_while_a_new_sentence_waits_to_be_drawn_leaves_its_empty_map(qtbot):
    panel = _finished_panel(qtbot)
    panel.begin(SOURCE[:3])  # its empty map is drawn at the scheduler's turn
    panel.set_word_view(False)
    panel.scheduler.flush()
    assert _drawn_rows(panel.heatmap) == 0 and panel.heatmap._columns == 3 and panel.coverage.values.size == 0


@pytest.mark.slow  # a trained model, or the real window
def test_toggling_words_in_the_compare_tab_redraws_every_panel(qtbot, compare):
    from tests.gui.compare_support import run

    run(qtbot, compare, "29 Nov 2026", "2026-11-29")
    assert compare.input.cursorPosition() == compare.reference.cursorPosition() == 0  # put in: their start shows
    maps = [p for p in compare.panels.values() if p.heatmap is not None and p.map_final]
    assert maps
    for words in (False, True):
        compare.view_bar.set_word_view(words)
        qtbot.waitUntil(lambda: not compare.scheduler.pending)
        for panel in maps:
            units = panel.heatmap.units
            rows = len(units.target.words if words else units.target.pieces)
            assert _drawn_rows(panel.heatmap) == len(panel.heatmap._labels["left"]) == rows > 0
            assert panel.coverage.values.size == panel.heatmap.column_count == len(panel.heatmap._labels["top"])
