"""The coverage bar under a Compare panel's map: c_j = Σ_i α_ij, the total attention each source token
received over the whole output, one bar per source token with a dashed line at 1 (near 0: a word the
output may have dropped; well above 1: one it may have translated twice), named on the bar itself."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QWidget

COVERAGE_HEIGHT = 44


class CoverageBar(pg.PlotWidget):
    """c_j = Σ_i α_ij as bars, one per source token, with a reference line at 1."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setBackground(self.palette().color(QPalette.ColorRole.Base))
        self.setFixedHeight(COVERAGE_HEIGHT)
        self.setMenuEnabled(False)
        self.hideButtons()
        self.setMouseEnabled(x=False, y=False)
        self.getPlotItem().hideAxis("bottom")
        self.getPlotItem().getAxis("left").setWidth(28)
        self.bars = pg.BarGraphItem(x=[], height=[], width=0.8, brush=pg.mkBrush(90, 140, 200))
        self.addItem(self.bars)
        self.addItem(pg.InfiniteLine(pos=1.0, angle=0, pen=pg.mkPen((220, 80, 60), width=1, style=Qt.PenStyle.DashLine)))
        self.values = np.zeros(0)
        self._ticks: list[tuple[float, str]] = []
        self.name = pg.TextItem(self.tr("coverage Σᵢα"), color=(90, 90, 90), anchor=(1, 0))  # what the bars are
        self.addItem(self.name, ignoreBounds=True)

    def set_coverage(self, coverage: Sequence[float], columns: int) -> None:
        self.values = np.asarray(coverage, dtype=np.float64)
        self.bars.setOpts(x=np.arange(len(self.values)), height=self.values, width=0.8)
        self.setXRange(-0.5, max(columns, 1) - 0.5, padding=0)
        top = max(2.0, float(self.values.max()) if self.values.size else 2.0)
        self.setYRange(0, top, padding=0)
        self.name.setPos(max(columns, 1) - 0.5, top)
        ticks = coverage_ticks(top)
        if ticks != self._ticks:  # re-setting them re-renders the axis: only on change
            self._ticks = ticks
            self.getPlotItem().getAxis("left").setTicks([ticks])


def coverage_ticks(top: float) -> list[tuple[float, str]]:
    """Whole-number labels for a coverage axis from 0 to ``top`` (≥ 1), at most three: the bar is
    short, and pyqtgraph's own spacing (0.5 apart) made the labels touch."""
    step = max(1, math.ceil(math.floor(top) / 2))
    return [(float(value), str(value)) for value in range(0, math.floor(top) + 1, step)]
