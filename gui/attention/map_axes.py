"""The attention map's plot and its token axes: output tokens down the left, source tokens along
the top, labelled so that no two labels overlap (gui/attention/heatmap.py draws the map in it).

Labels use a font a point smaller than the window's. Column labels stand side by side while they
fit; when they do not, they are turned upright (gui/attention/token_axis.py), so a column needs one
line height instead of its label's width. Whatever is left too tight is thinned: whenever the
visible range, the view's size or the labels change, each axis gets only every ``stride``-th label,
where the stride (1, 2, 5, 10, 20, …) is the smallest that leaves room for the widest visible label
(its line height on the left axis) plus a small gap.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import pyqtgraph as pg
from PySide6.QtCore import QRectF
from PySide6.QtGui import QFont, QFontMetrics, QPalette
from PySide6.QtWidgets import QWidget

from gui.attention.token_axis import TokenAxis

LABEL_GAP = 6  # pixels kept free between two neighbouring labels side by side
LINE_GAP = 1  # pixels kept free between two neighbouring labels one line high (rows, turned columns; their
# extent of 1.2 em already holds the glyphs' own side bearings)
AXIS_FONT_DELTA = -1.0  # points: the axis labels' font against the window's


def axis_font(base: QFont) -> QFont:
    """The axis labels' font: ``base`` a point smaller (7 points at least)."""
    font = QFont(base)
    if font.pointSizeF() > 0:
        font.setPointSizeF(max(7.0, font.pointSizeF() + AXIS_FONT_DELTA))
    return font


def label_stride(label_widths_px: Sequence[float], pixels_per_cell: float, gap_px: float = LABEL_GAP) -> int:
    """How many cells apart shown labels must be so that none overlaps its neighbour.

    ``label_widths_px`` are the extents along the axis of the labels in view (widths on a
    horizontal axis, line heights on a vertical one). The result is the smallest of 1, 2, 5, 10,
    20, 50, … whose span of cells holds the widest label plus ``gap_px``; when cells have no size
    (a view not laid out yet), only one label of the lot is kept.
    """
    if not label_widths_px:
        return 1
    if pixels_per_cell <= 0:
        return max(1, len(label_widths_px))
    needed = math.ceil((max(label_widths_px) + gap_px) / pixels_per_cell)
    magnitude = 1
    while True:
        for step in (1, 2, 5):
            if step * magnitude >= needed:
                return step * magnitude
        magnitude *= 10


class MapAxes(pg.GraphicsLayoutWidget):
    """One plot, y pointing down, with token labels on its top and left axes (never pyqtgraph's
    numbers), thinned or turned to fit; ``_labels`` holds every label per axis, ``_ticks`` the
    ones shown."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        palette = self.palette()
        self.setBackground(palette.color(QPalette.ColorRole.Base))
        text = palette.color(QPalette.ColorRole.Text)
        font = axis_font(self.font())
        self.axes = {side: TokenAxis(side, font) for side in ("top", "left")}
        self.plot = self.addPlot(axisItems=dict(self.axes))
        self.plot.invertY(True)
        self.plot.setDefaultPadding(0.0)
        self.plot.hideButtons()
        self.plot.setMenuEnabled(False)
        self.plot.showAxes((True, True, False, False), showValues=(True, True, False, False))
        for side in ("left", "top"):
            axis = self.plot.getAxis(side)
            axis.setPen(text)
            axis.setTextPen(text)
            axis.setStyle(tickFont=font, tickLength=-4, autoExpandTextSpace=False)
            axis.setTicks([[], []])  # token labels only: never pyqtgraph's numbers (an empty map showed 0, 5, 10…)
        self._metrics = QFontMetrics(font)
        self._labels: dict[str, list[str]] = {"top": [], "left": []}  # every label per axis
        self._extents: dict[str, list[int]] = {"top": [], "left": []}  # their pixel sizes along it
        self._turned_extents: list[int] = []  # the column labels' sizes along the axis when turned upright
        self._ticks: dict[str, list[tuple[int, str]]] = {"top": [], "left": []}  # the labels shown

    def _set_labels(self, side: str, labels: list[str]) -> None:
        """Every label of the ``side`` axis, with its pixel extent along that axis (side by side)."""
        self._labels[side] = labels
        if side == "top":
            self._extents[side] = [self._metrics.horizontalAdvance(label) for label in labels]
            self._turned_extents = [self.axes["top"].label_extent_turned(label) for label in labels]
            if self.axes["top"].vertical:
                self.axes["top"].set_vertical(True, labels)  # as tall as the new longest label
        else:
            self._extents[side] = [self.axes["left"].line] * len(labels)

    def _visible_indices(self, side: str) -> range:
        """Indices of the ``side`` axis' cells whose centres are in view (clipped to its labels)."""
        low, high = self.plot.getViewBox().viewRange()[0 if side == "top" else 1]
        return range(max(0, math.ceil(low)), min(len(self._labels[side]), math.floor(high) + 1))

    def _pixels_per_cell(self, side: str) -> float:
        view = self.plot.getViewBox()
        low, high = view.viewRange()[0 if side == "top" else 1]
        length = view.width() if side == "top" else view.height()
        return length / (high - low) if high > low else 0.0

    def _thin_labels(self, *_args) -> None:
        """Give each axis every stride-th label, the stride fitting the current zoom and size; turn
        the column labels upright when they do not all fit side by side."""
        for side in ("top", "left"):
            visible = self._visible_indices(side)
            pixels = self._pixels_per_cell(side)
            if side == "top":
                stride = label_stride([self._extents["top"][j] for j in visible], pixels)
                turned = stride > 1
                if turned:
                    stride = label_stride([self._turned_extents[j] for j in visible], pixels, LINE_GAP)
                if turned != self.axes["top"].vertical:
                    self.axes["top"].set_vertical(turned, self._labels["top"])
            else:
                extents = [self._extents["left"][j] for j in visible]
                # a label at either end of the axis is kept inside it: taller than its row, it moves inward by
                # its overhang, towards the next label shown
                overhang = max(0.0, (max(extents, default=0.0) - pixels) / 2)
                stride = label_stride(extents, pixels, LINE_GAP + overhang)
            ticks = list(enumerate(self._labels[side]))[::stride]
            if ticks != self._ticks[side]:
                self._ticks[side] = ticks
                self.plot.getAxis(side).setTicks([ticks, []])

    def shown_labels(self, side: str) -> list[tuple[int, str]]:
        """(index, label) of the labels the ``side`` axis ("top" or "left") has been given, in view
        or not: every stride-th one."""
        return list(self._ticks[side])

    def visible_label_rects(self, side: str) -> list[QRectF]:
        """Where the labels of the ``side`` axis' ("top" or "left") ticks in view lie, in that
        axis' pixel coordinates, in axis order, as drawn: side by side or turned on the top axis."""
        view, axis = self.plot.getViewBox(), self.axes[side]
        low, high = view.viewRange()[0 if side == "top" else 1]
        return [axis.label_rect(axis.tick_position(value), label)
                for value, label in self._ticks[side] if low <= value <= high]

    def labels_turned(self) -> bool:
        """True when the column labels stand upright (they did not fit side by side)."""
        return self.axes["top"].vertical
