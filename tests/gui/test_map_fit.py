"""Inputs over 40 columns open fitted, never cropped: every column in view, labels thinned evenly,
every label inside the map's span; a finished output shows from its first row with a scroll bar
for the rest; reset zoom (the view bar's button, a double-click) brings that view back."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import QPoint, Qt

from tests.gui.test_heatmap_labels import overlapping
from tests.gui.test_map_labels import EN, ZH, indices, pieces, show_run, translate_panel  # noqa: F401 (a fixture)


def _span(heatmap, side: str) -> tuple[float, float]:
    """The map's extent along the ``side`` axis, in that axis' coordinates."""
    axis = heatmap.axes[side]
    view = heatmap.plot.getViewBox()
    rect = axis.mapRectFromScene(view.sceneBoundingRect())
    return (rect.left(), rect.right()) if side == "top" else (rect.top(), rect.bottom())


@pytest.mark.parametrize("words", [True, False], ids=["words", "pieces"])
@pytest.mark.parametrize(("source_kind", "target_kind"), [(ZH, EN), (EN, ZH)], ids=["zh-en", "en-zh"])
@pytest.mark.parametrize("count", [15, 40, 70, 120])
def test_every_column_is_in_view_and_every_label_inside_the_map(qtbot, translate_panel, count, source_kind,  # noqa: F811
                                                                target_kind, words):
    panel = translate_panel
    panel.set_word_view(words)
    show_run(qtbot, panel, pieces(source_kind, count), pieces(target_kind, min(count, 20)))
    heatmap = panel.heatmap
    columns = len(heatmap._labels["top"])
    low, high = heatmap.plot.getViewBox().viewRange()[0]
    assert (low, high) == (-0.5, columns - 0.5)  # fitted: never cropped on the right
    shown = indices(heatmap, "top")
    stride = shown[1] - shown[0] if len(shown) > 1 else 1
    assert shown == list(range(0, columns, stride))  # thinned evenly
    if count <= 40:
        assert stride == 1  # every label of 40 columns at 1280×800
    rects = heatmap.visible_label_rects("top")
    assert len(rects) == len(shown) and overlapping(rects) == []
    left, right = _span(heatmap, "top")
    assert all(left - 0.5 <= r.left() and r.right() <= right + 0.5 for r in rects), "a column label past the map"
    top, bottom = _span(heatmap, "left")
    rows = heatmap.visible_label_rects("left")
    assert rows and overlapping(rows) == []
    assert all(top - 0.5 <= r.top() and r.bottom() <= bottom + 0.5 for r in rows), "a row label past the map"


def _zoom_in(heatmap) -> None:
    heatmap.plot.getViewBox().setRange(xRange=(10.5, 20.5), yRange=(3.5, 8.5), padding=0)


def test_a_finished_output_longer_than_the_map_shows_from_its_first_row_with_a_scroll_bar(qtbot, translate_panel):  # noqa: F811
    panel = translate_panel
    panel.set_word_view(False)
    show_run(qtbot, panel, pieces(ZH, 70), pieces(EN, 70))
    heatmap, bar = panel.heatmap, panel.row_scroll
    top, bottom = heatmap.plot.getViewBox().viewRange()[1]
    shown = round(bottom - top)
    assert top == -0.5 and 20 <= shown < 70  # the first rows, each with its label
    assert indices(heatmap, "left") == list(range(70))  # none thinned
    assert bar.isVisible() and (bar.value(), bar.maximum(), bar.pageStep()) == (0, 70 - shown, shown)
    bar.setValue(bar.maximum())  # the last rows
    assert heatmap.plot.getViewBox().viewRange()[1] == [69.5 - shown, 69.5]
    show_run(qtbot, panel, pieces(ZH, 70), pieces(EN, 12))
    assert not bar.isVisible()  # every row in view


def test_while_a_run_goes_on_the_map_follows_its_newest_row(qtbot, translate_panel):  # noqa: F811
    heatmap = translate_panel.heatmap
    source = pieces(ZH, 50)
    heatmap.reset(source)
    for rows in range(1, 61):
        heatmap.set_rows(np.full((rows, 50), 0.02, np.float32), pieces(EN, 60)[:rows])
    top, bottom = heatmap.plot.getViewBox().viewRange()[1]
    assert bottom == 60.5 and top > 0  # the newest row (and the blank one to come) in view
    heatmap.set_rows(np.full((60, 50), 0.02, np.float32), pieces(EN, 60), finished=True)
    assert heatmap.plot.getViewBox().viewRange()[1][0] == -0.5  # ended: from the first row


def test_reset_zoom_by_the_button_and_by_a_double_click(qtbot, translate_panel):  # noqa: F811
    panel = translate_panel
    panel.set_word_view(False)
    show_run(qtbot, panel, pieces(EN, 120), pieces(ZH, 60))
    view = panel.heatmap.plot.getViewBox()
    opened = view.viewRange()
    assert opened[0] == [-0.5, 119.5]
    _zoom_in(panel.heatmap)
    assert view.viewRange() != opened
    panel.view_bar.reset_zoom.click()
    assert view.viewRange() == opened
    _zoom_in(panel.heatmap)
    centre = panel.heatmap.mapFromScene(view.sceneBoundingRect().center())
    point, viewport = QPoint(centre.x(), centre.y()), panel.heatmap.viewport()
    qtbot.mouseClick(viewport, Qt.MouseButton.LeftButton, pos=point)  # a double-click as a user's: click, press again,
    qtbot.mouseDClick(viewport, Qt.MouseButton.LeftButton, pos=point)  # release (pyqtgraph reports it on the release)
    qtbot.mouseRelease(viewport, Qt.MouseButton.LeftButton, pos=point)
    qtbot.waitUntil(lambda: view.viewRange() == opened)
