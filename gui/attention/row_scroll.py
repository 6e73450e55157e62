"""A scroll bar for a map's rows: shown beside the map while some of its rows are out of view.

A map shows as many rows as have room for a label each (gui/attention/heatmap.py); a longer output
scrolls. The wheel zooms and a drag pans, which a learner does not guess: rows out of view had no
cue. :class:`RowScrollBar` is that cue and a way to reach them — its handle is the rows in view, and
it follows every change of the map's range (a run's newest row, a zoom, a pan, a reset).
"""

from __future__ import annotations

import math

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QHBoxLayout, QScrollBar, QWidget

from gui.attention.heatmap import HeatmapView


class RowScrollBar(QScrollBar):
    """A vertical scroll bar over ``heatmap``'s rows (hidden while every row is in view)."""

    def __init__(self, heatmap: HeatmapView, parent: QWidget | None = None) -> None:
        super().__init__(Qt.Orientation.Vertical, parent)
        self.heatmap = heatmap
        self.setToolTip(self.tr("Rows out of view: scroll here (or drag the map); double-click the map to see it as "
                                "it opened"))
        self.setSingleStep(1)
        self._syncing = False
        view = heatmap.plot.getViewBox()
        view.sigYRangeChanged.connect(self.follow)
        heatmap.rowsChanged.connect(self.follow)
        self.valueChanged.connect(self._scroll_map)
        self.hide()
        self.follow()

    def follow(self, *_args) -> None:
        """Match the map's range: the first row in view, how many are in view, how many there are."""
        top, bottom = self.heatmap.plot.getViewBox().viewRange()[1]
        rows = self.heatmap.row_capacity
        shown = max(1, round(bottom - top))
        hidden = rows - shown
        self.setVisible(hidden > 0 and rows > 0)
        self._syncing = True
        try:
            self.setRange(0, max(0, hidden))
            self.setPageStep(shown)
            self.setValue(min(max(0, math.ceil(top + 0.5 - 1e-6)), max(0, hidden)))
        finally:
            self._syncing = False

    def _scroll_map(self, value: int) -> None:
        if self._syncing:
            return
        view = self.heatmap.plot.getViewBox()
        top, bottom = view.viewRange()[1]
        view.setYRange(value - 0.5, value - 0.5 + (bottom - top), padding=0)


def with_row_scroll_bar(heatmap: HeatmapView) -> tuple[QWidget, RowScrollBar]:
    """``heatmap`` with its :class:`RowScrollBar` at its right, as one widget to lay out."""
    box = QWidget()
    layout = QHBoxLayout(box)
    layout.setContentsMargins(0, 0, 0, 0)
    layout.setSpacing(0)
    layout.addWidget(heatmap, 1)
    bar = RowScrollBar(heatmap)
    bar.setObjectName(f"{heatmap.objectName() or 'map'}RowScroll")
    layout.addWidget(bar)
    return box, bar
