"""Look of the Training view's plots, set per plot (never through pyqtgraph's global options)."""

from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtGui import QColor

# Tableau 10: distinct, colour-blind-friendlier hues for runs compared side by side.
RUN_COLOURS = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
               "#bcbd22", "#17becf")
BACKGROUND = "#ffffff"
FOREGROUND = "#303030"
DIVERGED_COLOUR = "#d62728"


def run_colour(index: int) -> str:
    """The colour of the ``index``-th run (cycling after ten)."""
    return RUN_COLOURS[index % len(RUN_COLOURS)]


def faded(colour: str, alpha: int = 60) -> QColor:
    """``colour`` with transparency, for raw values drawn under their smoothed curve."""
    faint = QColor(colour)
    faint.setAlpha(alpha)
    return faint


def style_plot(widget: pg.PlotWidget, title: str, left: str, bottom: str = "step") -> None:
    """Light background, dark axes and text, no auto SI prefixes on the left axis.

    No grid: pyqtgraph draws grid lines translucent across the whole plot, which doubles the cost
    of a frame on Qt's raster engine; the axes' ticks are enough to read a value."""
    widget.setBackground(BACKGROUND)
    plot = widget.getPlotItem()
    plot.setTitle(title, color=FOREGROUND, size="10pt")
    for name in ("left", "bottom"):
        axis = plot.getAxis(name)
        axis.setPen(pg.mkPen(FOREGROUND))
        axis.setTextPen(pg.mkPen(FOREGROUND))
    plot.setLabel("left", left, color=FOREGROUND)
    plot.setLabel("bottom", bottom, color=FOREGROUND)
    plot.getAxis("left").enableAutoSIPrefix(False)
    plot.setMenuEnabled(False)
