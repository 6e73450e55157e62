"""Readable heatmap axes at 100+ tokens: labels are thinned so they never overlap, zooming in
brings them all back, and the step inspector scrolls instead of growing."""

from __future__ import annotations

import numpy as np
import pytest

from engine.settings import SCORER_TABLE
from gui.attention.heatmap import HeatmapView
from gui.attention.inspector import StepInspector
from gui.attention.map_axes import label_stride
from tests.gui.conftest import shown

LONG_PIECES = ("▁international", "的", "<0xF0>", "▁the", "化", "ing", "▁Nov", "2", "▁organisation", "。")
SHORT_PIECES = ("的", "<0xF0>", "▁the", "化", "ing", "2", "。")
# long pieces in the first half, short ones after: zooming in on the second half fits every label
SOURCE = [LONG_PIECES[j % len(LONG_PIECES)] if j < 75 else SHORT_PIECES[j % len(SHORT_PIECES)] for j in range(150)]
TARGET = [f"▁word{i}" if i % 3 else "中" for i in range(120)]


def overlapping(rects) -> list[tuple[int, int]]:
    """Index pairs of label rectangles that share any area."""
    return [(i, k) for i in range(len(rects)) for k in range(i + 1, len(rects))
            if rects[i].intersected(rects[k]).isValid()]


@pytest.fixture
def heatmap(qtbot):
    return shown(qtbot, HeatmapView(), 900, 600)


def long_run(view: HeatmapView) -> None:
    view.reset(SOURCE)
    weights = np.full((len(TARGET), len(SOURCE)), 1 / len(SOURCE), np.float32)
    view.set_rows(weights, TARGET)


def shown_columns(view: HeatmapView, low: int, high: int) -> set[int]:
    return {int(value) for value, _ in view.shown_labels("top") if low <= value <= high}


@pytest.mark.parametrize(("widths", "pixels", "gap", "stride"), [
    ([], 10, 4, 1),  # nothing to show
    ([30, 10], 40, 4, 1),  # everything fits
    ([30, 10], 20, 4, 2),  # 34 px needed: two cells
    ([30], 10, 4, 5),  # four cells needed: the next round stride
    ([76], 5, 6, 20),  # 17 cells needed
    ([76], 0.5, 6, 200),
    ([14, 14], 0, 2, 2),  # not laid out yet: one label
])
def test_label_stride(widths, pixels, gap, stride):
    assert label_stride(widths, pixels, gap) == stride


def test_label_stride_leaves_room_for_the_widest_label():
    for pixels in (0.7, 3.0, 9.5, 17.0, 40.0):
        stride = label_stride([12, 80, 33], pixels, 6)
        assert stride * pixels >= 86
        assert stride == 1 or stride in (2, 5) or stride % 10 == 0


def test_long_input_labels_never_overlap(heatmap):
    long_run(heatmap)
    view = heatmap.plot.getViewBox()
    for x_range, y_range in (((-0.5, 39.5), (90.5, 120.5)), ((-0.5, 149.5), (-0.5, 120.5))):
        view.setRange(xRange=x_range, yRange=y_range, padding=0)
        top, left = heatmap.visible_label_rects("top"), heatmap.visible_label_rects("left")
        assert len(top) >= 3 and len(left) >= 3  # thinned, not emptied
        assert overlapping(top) == []
        assert overlapping(left) == []


def test_zooming_in_brings_every_label_back(heatmap):
    long_run(heatmap)
    view = heatmap.plot.getViewBox()
    view.setXRange(-0.5, 149.5, padding=0)
    assert len(shown_columns(heatmap, 100, 109)) < 10
    view.setXRange(99.5, 109.5, padding=0)
    assert shown_columns(heatmap, 100, 109) == set(range(100, 110))
    assert overlapping(heatmap.visible_label_rects("top")) == []
    view.setYRange(99.5, 109.5, padding=0)
    assert {int(value) for value, _ in heatmap.shown_labels("left") if 100 <= value <= 109} == set(range(100, 110))


def test_view_resize_rethins_labels(heatmap, qtbot):
    long_run(heatmap)
    heatmap.plot.getViewBox().setXRange(99.5, 109.5, padding=0)
    assert len(shown_columns(heatmap, 100, 109)) == 10
    heatmap.resize(300, 600)
    qtbot.waitUntil(lambda: len(shown_columns(heatmap, 100, 109)) < 10)
    assert overlapping(heatmap.visible_label_rects("top")) == []


def test_short_input_shows_every_label(heatmap):
    heatmap.reset(["▁Le", "▁chat", "▁est", "▁sur", "▁la", "▁table", ".", "</s>"])
    heatmap.set_rows(np.full((3, 8), 0.125, np.float32), ["▁The", "▁cat", "▁is"])
    assert [label for _, label in heatmap.shown_labels("top")] == ["Le", "chat", "est", "sur", "la", "table", ".", "</s>"]
    assert [label for _, label in heatmap.shown_labels("left")] == ["The", "cat", "is"]
    assert len(heatmap.visible_label_rects("top")) == 8
    assert heatmap.plot.getAxis("top")._tickLevels[0] == heatmap.shown_labels("top")  # what the axis draws


def test_hover_still_names_the_exact_cell(heatmap):
    long_run(heatmap)
    heatmap.plot.getViewBox().setXRange(-0.5, 149.5, padding=0)
    from PySide6.QtCore import QPointF

    centre = heatmap.plot.getViewBox().mapViewToScene(QPointF(61, 100))
    assert heatmap.cell_at(centre) == (100, 61)  # a column without a label is still hoverable


@pytest.fixture
def inspector(qtbot):
    """A step inspector on screen, 420×500."""
    widget = StepInspector()
    qtbot.addWidget(widget)
    widget.resize(420, 500)
    widget.show()
    qtbot.waitExposed(widget)
    return widget


def test_inspector_scrolls_at_150_tokens(qtbot, inspector):
    empty_hint = inspector.sizeHint().height()
    weights = np.full(len(SOURCE), 1 / len(SOURCE))
    inspector.show_step(3, "▁word3", None, weights, SOURCE, SCORER_TABLE["dot"], True)
    assert inspector.weights.rowCount() == 150
    qtbot.waitUntil(lambda: inspector.table.verticalScrollBar().maximum() > 0)  # laid out
    assert inspector.sizeHint().height() <= max(empty_hint, 600)  # the table scrolls, the widget does not grow
    assert inspector.minimumSizeHint().height() < 400
    assert inspector.height() == 500
    assert inspector.table.verticalScrollBar().maximum() > 0


def test_a_step_fills_the_inspector_rows_on_screen_and_the_others_as_they_scroll_into_view(qtbot, inspector):
    from PySide6.QtGui import QStandardItemModel

    model = inspector.weights

    def stored(row: int) -> str:  # the cell as Qt holds it (Qt's own accessor, which fills nothing)
        return QStandardItemModel.item(model, row, 3).text()

    for index, weights in enumerate((np.linspace(0.0, 1.0, len(SOURCE)), np.linspace(1.0, 0.0, len(SOURCE)))):
        weights = weights / weights.sum()
        inspector.show_step(index, "▁w", None, weights, SOURCE, SCORER_TABLE["dot"], True)
        qtbot.waitUntil(lambda: inspector.table.verticalScrollBar().maximum() > 0)
        first, last = inspector._visible_rows()
        assert first == 0 and 0 < last < 100
        assert [stored(j) for j in range(last + 1)] == [f"{w:.4f}" for w in weights[: last + 1]]
    assert stored(149) == ""  # never on screen: not filled, at any step
    assert model.item(149, 3).text() == f"{weights[149]:.4f}"  # read through the model: the step shown
    assert stored(140) == ""
    inspector.table.scrollToBottom()
    assert stored(140) == f"{weights[140]:.4f}"  # scrolled into view: filled with the step shown


def test_an_empty_heatmap_shows_a_hint_instead_of_bare_axes(qtbot):
    from gui.attention.heatmap import HeatmapView

    view = HeatmapView()
    qtbot.addWidget(view)
    assert view.empty_hint.isVisible() and not view.plot.getAxis("top").style["showValues"]
    view.reset(["▁a", "▁b"])
    assert not view.empty_hint.isVisible() and view.plot.getAxis("top").style["showValues"]
    view.reset([])
    assert view.empty_hint.isVisible()


def test_a_map_with_columns_and_no_rows_yet_has_no_numbers_on_its_row_axis(qtbot):
    """Before its first row (or when a difference cannot be taken) the map's row axis stayed on
    pyqtgraph's automatic ticks and showed 0, 5, 10, … beside the empty grid."""
    heatmap = shown(qtbot, HeatmapView(), 500, 400)
    heatmap.reset(SHORT_PIECES)
    left = heatmap.plot.getAxis("left")
    assert left._tickLevels == [[], []]  # explicit, empty: no automatic numbers
    assert [label for _, label in heatmap.shown_labels("top")]  # the columns are named
