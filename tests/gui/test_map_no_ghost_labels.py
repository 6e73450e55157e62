"""No stale labels: every label a map's axis draws lies inside the rectangle the axis says it
covers, so the view repaints it when the labels change. Drawn outside it (half a label past an
end, or stacked labels taller than a small map's top axis), the labels of an earlier input stayed
on screen as a half-clipped ghost row above the map (Translate, Compare's multi-head map)."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import QCoreApplication
from PySide6.QtGui import QImage, QPainter

from gui.attention.piece_map import PieceMap
from tests.gui.conftest import shown

PARAGRAPH = ("我妹妹喜欢在花园里看书。她每天早上六点起床，先去公园跑步，然后回家吃早饭。"
             "她的老师说她是班上最努力的学生。我们全家都为她感到骄傲。")
SENTENCE = ("Although I studied English at school for six years , I still cannot speak it well . "
            "My sister likes reading books in the garden every afternoon")
ENGLISH = tuple(word if word in ",." else "▁" + word for word in SENTENCE.split())


def _words(text: str) -> tuple[str, ...]:
    """Chinese pieces of two to four characters (stacked labels), each a word of its own."""
    return tuple("▁" + text[i:i + 3] for i in range(0, len(text), 3))


def _drawn_outside(heatmap: PieceMap) -> list[str]:
    """The labels either axis would draw now that stick out of that axis' bounding rectangle."""
    outside = []
    for side, axis in heatmap.axes.items():
        image = QImage(8, 8, QImage.Format.Format_ARGB32)
        painter = QPainter(image)
        specs = axis.generateDrawSpecs(painter)
        painter.end()
        bounds = axis.boundingRect()
        outside += [f"{side} {label!r} {rect}" for rect, label in (specs[2] if specs else ()) if not bounds.contains(rect)]
    return outside


def _show(qtbot, heatmap: PieceMap, source, rows: int) -> None:
    heatmap.reset(source)
    targets = tuple(f"▁w{i}" for i in range(rows))
    heatmap.set_rows(np.full((rows, len(source)), 1.0 / len(source), np.float32), targets, finished=True)
    assert _drawn_outside(heatmap) == []  # also before the layout has given the axes their new size
    QCoreApplication.processEvents()  # the layout gives the axes their new size
    assert _drawn_outside(heatmap) == []


@pytest.mark.parametrize("compact", [True, False])
def test_labels_stay_inside_their_axes_in_a_small_map_from_one_input_to_the_next(qtbot, compact):
    heatmap = PieceMap(words=True)
    if compact:  # a Compare panel's map
        heatmap.set_compact_bar()
        heatmap.set_hover_caption(True)
    shown(qtbot, heatmap, 214, 100)  # the multi-head panel's map at 1280×800
    for source, rows in ((_words(PARAGRAPH), 30), (tuple(ENGLISH), 12), (("▁我", "▁妹妹", "。"), 4), (_words(PARAGRAPH), 2)):
        _show(qtbot, heatmap, source, rows)


def test_labels_stay_inside_their_axes_when_the_map_is_zoomed_and_panned(qtbot):
    heatmap = shown(qtbot, PieceMap(words=True), 600, 400)
    _show(qtbot, heatmap, tuple(ENGLISH), 40)
    view = heatmap.plot.getViewBox()
    for x_range, y_range in (((2.3, 9.6), (5.5, 11.2)), ((-0.5, 4.1), (30.7, 39.5))):
        view.setRange(xRange=x_range, yRange=y_range, padding=0)
        assert _drawn_outside(heatmap) == []
