"""The Compare tab's aligner map: the word aligner's links on the shared target, as dots beside the
scorers' maps (gui/compare/aligner_map.py, the controller's forced worker)."""

from __future__ import annotations

import numpy as np
import pytest

from engine.studies.aligner import AlignerMap
from gui.compare.aligner_map import (
    NO_TARGET_HINT,
    WAITING,
    AlignerPanel,
    label_stride,
    short_note,
    thinned_ticks,
)
from tests.gui.compare_support import run
from tests.gui.test_translate_support import RUN_MS

FOUND = AlignerMap(("汤", "姆", "睡", "了", "。"), ("Tom", "slept", "."),
                   frozenset({(0, 0), (1, 0), (2, 1), (4, 2)}), "a corpus pair: its links from eflomal 2.0.0")


def test_the_panel_draws_one_dot_per_link_with_the_words_on_its_axes(qtbot):
    panel = AlignerPanel()
    qtbot.addWidget(panel)
    assert panel.note.text() == NO_TARGET_HINT and len(panel.dots.data) == 0
    panel.show_map(FOUND)
    xs, ys = panel.dots.getData()
    assert sorted(zip(xs.astype(int).tolist(), ys.astype(int).tolist(), strict=True)) == sorted(FOUND.links)
    item = panel.plot.getPlotItem()
    assert [label for _, label in item.getAxis("top")._tickLevels[0]] == list(FOUND.source_words)
    assert [label for _, label in item.getAxis("left")._tickLevels[0]] == list(FOUND.target_words)
    assert panel.note.text() == "4 links; a corpus pair: its links from eflomal 2.0.0."
    panel.show_waiting()
    assert panel.note.text() == WAITING and len(panel.dots.data) == 0
    panel.show_map(AlignerMap(("a",), ("b",), frozenset(), "no aligner links: eflomal is not installed"))
    assert panel.note.text().startswith("0 links; no aligner links: eflomal is not installed")


def test_labels_thin_out_evenly_where_rows_are_closer_than_a_label_and_come_back_with_room(qtbot):
    assert short_note("aligned alone by eflomal 2.0.0 with the priors of eflomal") == "aligned alone by eflomal 2.0.0 (…)"
    assert short_note("a corpus pair: its links from eflomal 2.0.0") == "a corpus pair: its links from eflomal 2.0.0"
    assert label_stride(10, 150, 15) == 1 and label_stride(10, 60, 15) == 3 and label_stride(0, 0, 15) == 1
    assert thinned_ticks(("a", "b", "c", "d", "e"), 2) == [(0, "a"), (2, "c"), (4, "e")]
    words = tuple(f"w{k}" for k in range(20))
    panel = AlignerPanel()
    qtbot.addWidget(panel)
    panel.resize(300, 260)
    panel.show()
    panel.show_map(AlignerMap(("汤", "姆"), words, frozenset({(0, 0)}), "a pair"))
    qtbot.waitUntil(lambda: panel.plot.getPlotItem().getViewBox().sceneBoundingRect().height() > 0)
    left = panel.plot.getPlotItem().getAxis("left")
    shown = [label for _, label in left._tickLevels[0]]
    height = panel.plot.getPlotItem().getViewBox().sceneBoundingRect().height()
    assert shown[0] == "w0" and len(shown) < len(words) and len(shown) * 15 <= height + 15
    panel.resize(300, 900)
    qtbot.waitUntil(lambda: len(left._tickLevels[0]) == len(words))


@pytest.mark.slow  # a trained model, or the real window
def test_a_shared_target_brings_the_aligners_map_and_own_outputs_its_hint(qtbot, compare):
    tab = compare
    run(qtbot, tab, "29 Nov 2026", reference="2026-11-29")  # own outputs: no shared target yet
    assert tab.aligner.note.text() == NO_TARGET_HINT
    with qtbot.waitSignal(tab.controller.alignerReady, timeout=RUN_MS) as ready:
        index = tab.target_combo.findData("reference")
        tab.target_combo.setCurrentIndex(index)
        tab.target_combo.activated.emit(index)
    found = ready.args[0]
    assert isinstance(found, AlignerMap) and found.note == "the word aligner covers zh–en only"  # dates models
    assert found.target_words == ("2026", "-", "11", "-", "29") and tab.aligner.note.text().endswith("zh–en only.")
    assert tab.aligner.isVisibleTo(tab)
    with qtbot.waitSignal(tab.controller.alignerReady, timeout=RUN_MS) as ready:
        index = tab.target_combo.findData("own")
        tab.target_combo.setCurrentIndex(index)
        tab.target_combo.activated.emit(index)
    assert ready.args[0] is None and tab.aligner.note.text() == NO_TARGET_HINT
    assert np.size(tab.aligner.dots.getData()[0]) == 0


def test_the_aligners_columns_are_the_maps_words_beside_it(qtbot):
    from gui.compare.aligner_map import AlignerPanel, in_map_columns

    found = AlignerMap(tuple("我妹妹喜欢看书。"), ("My", "sister", "likes", "reading", "."),
                       frozenset({(1, 1), (2, 1), (3, 2), (6, 3), (7, 4)}), "stored corpus alignment")
    words = ["我妹妹", "喜欢", "看书", "。", "</s>"]  # the maps' columns in the Words view (the end token too)
    grouped = in_map_columns(found, words)
    assert grouped is not None and grouped.source_words == tuple(words)
    assert grouped.links == {(0, 1), (1, 2), (2, 3), (3, 4)}  # 妹 and 妹 both in 我妹妹: one dot
    pieces = ["▁我", "##妹妹", "喜欢", "看", "##书", "。"]  # the piece view's labels spell it too
    assert in_map_columns(found, pieces).links == {(1, 1), (2, 2), (4, 3), (5, 4)}
    assert in_map_columns(found, ["你好"]) is None  # another text: the aligner's own words stay
    panel = AlignerPanel()
    qtbot.addWidget(panel)
    columns = [words]
    panel.columns_of = lambda: columns[0]
    panel.show_map(found)
    assert panel.words[0] == tuple(words) and panel.links == grouped.links
    columns[0] = None  # no map to follow: its own words
    panel.redraw()
    assert panel.words[0] == found.source_words and panel.links == found.links
