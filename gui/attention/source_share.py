"""Source or prefix: beside an attribution map, one bar per map row — the share of that step's attribution
on the source, Σ|a_source| / (Σ|a_source| + Σ|a_prefix|); the rest came from the words already written.

A narrow plot placed in the heatmap's own layout, right of its colour bar, its rows linked to the map's
(zoom and pan move both; its top axis as tall as the map's, so the bars stand beside their rows). A long
input where the model drifts shows it here: the bars shrink when the output stops reading the source.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QCoreApplication, Qt
from PySide6.QtGui import QPalette

from gui.attention.heatmap import HeatmapView
from gui.attention.map_axes import axis_font

COLUMN_WIDTH = 46  # pixels: the bars' plot
BAR_BRUSH = (200, 90, 60)


def share_tooltip() -> str:
    """The source-share column's tooltip: what each bar measures."""
    return QCoreApplication.translate(
        "SourceShare", "Source or prefix: each bar is the share of that step's attribution on the source "
        "(Σ|source| ÷ (Σ|source| + Σ|prefix|)); the rest came from the output words already written. "
        "Dashed line: half.")


class ShareColumn:
    """The bars beside ``heatmap``'s rows; :meth:`attach` / :meth:`detach` put them in its layout or take
    them out (the map gets the room back)."""

    def __init__(self, heatmap: HeatmapView) -> None:
        self.heatmap = heatmap
        text = heatmap.palette().color(QPalette.ColorRole.Text)
        self.plot = pg.PlotItem()
        self.plot.setObjectName("sourceShareColumn")
        self.plot.hideButtons()
        self.plot.setMenuEnabled(False)
        self.plot.setMouseEnabled(x=False, y=False)
        self.plot.invertY(True)
        self.plot.setDefaultPadding(0.0)
        self.plot.showAxes((False, True, False, False), showValues=(False, True, False, False))
        top = self.plot.getAxis("top")
        top.setPen(text)
        top.setTextPen(text)
        top.setStyle(tickLength=-3, tickFont=axis_font(heatmap.font()), hideOverlappingLabels=False)
        self.plot.setXRange(0.0, 1.0, padding=0.05)
        self.plot.getViewBox().setYLink(heatmap.plot.getViewBox())
        self.plot.setFixedWidth(COLUMN_WIDTH)
        self.bars = pg.BarGraphItem(x0=[], y=[], height=0.8, width=[], brush=pg.mkBrush(*BAR_BRUSH), pen=None)
        self.plot.addItem(self.bars)
        self.plot.addItem(pg.InfiniteLine(pos=0.5, angle=90, pen=pg.mkPen(text, width=1,
                                                                           style=Qt.PenStyle.DashLine)))
        self.values = np.zeros(0, np.float32)
        self.attached = False
        heatmap.plot.getAxis("top").geometryChanged.connect(self._match_top)

    def attach(self) -> None:
        """Put the bars beside the map (titled in the interface's language)."""
        self.plot.getAxis("top").setTicks([[(0.5, QCoreApplication.translate("SourceShare", "source"))], []])
        self.plot.setToolTip(share_tooltip())
        if not self.attached:
            self.heatmap.ci.addItem(self.plot, row=0, col=1)
            self.attached = True
            self._match_top()

    def detach(self) -> None:
        """Take the bars out of the map's layout (the map gets their room back)."""
        if self.attached:
            self.heatmap.ci.removeItem(self.plot)
            self.plot.setParentItem(None)
            if self.plot.scene() is not None:
                self.plot.scene().removeItem(self.plot)
            self.attached = False

    def set_shares(self, shares: np.ndarray) -> None:
        """One bar per map row (NaN: not computed yet, no bar)."""
        self.values = np.asarray(shares, dtype=np.float32)
        rows = np.flatnonzero(~np.isnan(self.values))
        self.bars.setOpts(x0=np.zeros(len(rows)), y=rows.astype(np.float64),
                          width=self.values[rows].astype(np.float64), height=0.8)

    def _match_top(self, *_args) -> None:
        """The top axis as tall as the map's, so that both views start at the same height."""
        height = int(round(self.heatmap.plot.getAxis("top").geometry().height()))
        axis = self.plot.getAxis("top")
        if height > 0 and axis.fixedHeight != height:
            axis.setHeight(height)
