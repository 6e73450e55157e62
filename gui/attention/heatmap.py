"""The attention heatmap: a pyqtgraph ImageItem of α (rows = output tokens, columns = source
tokens), token labels on the axes, a 0–1 colour bar, hover and click reporting, highlights.

Rows not decoded yet are NaN, which pyqtgraph draws transparent, so the grid visibly fills in.
The view can be zoomed (wheel) and panned (drag); long inputs open scrolled to their start.
No global pyqtgraph configuration is touched: the image is row-major by its own option.

Axis labels are thinned so they never overlap: whenever the visible range, the view's size or
the labels change, each axis gets only every ``stride``-th label, where the stride (1, 2, 5, 10,
20, …) is the smallest that leaves room for the widest visible label (its line height on the
left axis) plus a small gap. Zooming in brings every label back once they fit; the exact token
of any cell is always reported on hover (:attr:`HeatmapView.cellHovered`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPointF, QRectF, Qt, Signal
from PySide6.QtGui import QColor, QFont, QFontMetrics, QPalette, QPen, QTextOption
from PySide6.QtWidgets import QGraphicsRectItem, QWidget

from gui.attention.labels import axis_label

VISIBLE_COLUMNS = 40  # source tokens in view at first; the rest is reached by panning or zooming out
VISIBLE_ROWS = 30
COLOR_MAP = "viridis"
LABEL_GAP = 6  # pixels kept free between two neighbouring axis labels
EMPTY_HINT = "The attention map appears here: one row per output token, one column per source token."


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


class HeatmapView(pg.GraphicsLayoutWidget):
    """Renders an attention matrix; knows nothing about decoding."""

    cellHovered = Signal(int, int)  # row, column; (-1, -1) when the pointer leaves the cells
    rowClicked = Signal(int)
    cellClicked = Signal(int, int, bool)  # row, column, shift held (what-if: set attention by hand)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        palette = self.palette()
        self.setBackground(palette.color(QPalette.ColorRole.Base))
        text = palette.color(QPalette.ColorRole.Text)
        self.plot = self.addPlot()
        self.plot.invertY(True)
        self.plot.setDefaultPadding(0.0)
        self.plot.hideButtons()
        self.plot.setMenuEnabled(False)
        self.plot.showAxes((True, True, False, False), showValues=(True, True, False, False))
        font = QFont(self.font())
        for side in ("left", "top"):
            axis = self.plot.getAxis(side)
            axis.setPen(text)
            axis.setTextPen(text)
            axis.setStyle(tickFont=font, tickLength=-4, autoExpandTextSpace=True)
            axis.setTicks([[], []])  # token labels only: never pyqtgraph's numbers (an empty map showed 0, 5, 10…)
        self.image = pg.ImageItem(axisOrder="row-major")
        self.plot.addItem(self.image)
        self.color_bar = pg.ColorBarItem(values=(0.0, 1.0), colorMap=pg.colormap.get(COLOR_MAP),
                                         interactive=False, label="α", colorMapMenu=False, width=16)
        self.color_bar.setImageItem(self.image, insert_in=self.plot)
        bar_axis = self.color_bar.getAxis("right") if hasattr(self.color_bar, "getAxis") else None
        if bar_axis is not None:
            bar_axis.setPen(text)
            bar_axis.setTextPen(text)
        self._levels = (0.0, 1.0)  # the colour scale (α: 0–1; a difference map: −1–1)
        self.empty_hint = pg.TextItem(EMPTY_HINT, color=text, anchor=(0.5, 0.5))
        self.empty_hint.setPos(0, 0)
        self.plot.addItem(self.empty_hint, ignoreBounds=True)
        self._cell_box = self._overlay(QColor(255, 64, 64), 2)
        self._row_box = self._overlay(QColor(255, 140, 0), 2)
        self._column_box = self._overlay(QColor(255, 255, 255), 1)
        self._columns = 0
        self._capacity = 0
        self._rows = 0
        self._grid = np.zeros((0, 0), np.float32)
        self._source_labels: tuple[str, ...] = ()
        self._row_labels: list[str] = []
        self._metrics = QFontMetrics(font)
        self._labels: dict[str, list[str]] = {"top": [], "left": []}  # every label per axis
        self._extents: dict[str, list[int]] = {"top": [], "left": []}  # their pixel sizes along it
        self._ticks: dict[str, list[tuple[int, str]]] = {"top": [], "left": []}  # the labels shown
        view = self.plot.getViewBox()
        view.sigRangeChanged.connect(self._thin_labels)
        view.sigResized.connect(self._thin_labels)
        view.sigResized.connect(self._wrap_hint)
        view.sigRangeChanged.connect(self._wrap_hint)
        option = QTextOption(Qt.AlignmentFlag.AlignHCenter)
        option.setWrapMode(QTextOption.WrapMode.WordWrap)
        self.empty_hint.textItem.document().setDefaultTextOption(option)
        self._hovered = (-1, -1)
        self.scene().sigMouseMoved.connect(self._on_mouse_moved)
        self.scene().sigMouseClicked.connect(self._on_mouse_clicked)
        self._show_empty(True)

    def _overlay(self, color: QColor, width: int) -> QGraphicsRectItem:
        box = QGraphicsRectItem()
        pen = QPen(color, width)
        pen.setCosmetic(True)
        box.setPen(pen)
        box.setZValue(10)
        box.hide()
        self.plot.addItem(box, ignoreBounds=True)
        return box

    def _show_empty(self, empty: bool) -> None:
        """Nothing to show: a hint in place of the grid, and no ±0.5 axis values."""
        self.empty_hint.setVisible(empty)
        self.plot.showAxes((True, True, False, False), showValues=(not empty, not empty, False, False))

    def set_empty_hint(self, text: str) -> None:
        self.empty_hint.setText(text)
        self._wrap_hint()

    def _wrap_hint(self) -> None:
        """Wrap the empty-map hint to the map's width and centre it in the view, so that a narrow
        map shows it whole."""
        view = self.plot.getViewBox()
        width = view.width()
        self.empty_hint.textItem.setTextWidth(max(80.0, width * 0.9) if width > 0 else -1)
        self.empty_hint.setPos(view.viewRect().center())
        self.empty_hint.updateTextPos()

    def set_scale(self, low: float, high: float, color_map: str, label: str) -> None:
        """Another colour scale, e.g. a diverging map centred on 0 from −1 to 1 for α_A − α_B."""
        self._levels = (float(low), float(high))
        self.color_bar.setColorMap(pg.colormap.get(color_map))
        self.color_bar.setLevels(values=self._levels)
        self.color_bar.getAxis("left").setLabel(label)  # where ColorBarItem puts its label (vertical bar)
        self.image.setLevels(self._levels)

    # -- data -------------------------------------------------------------------------------
    def reset(self, source_tokens: Sequence[str]) -> None:
        """A new run over ``source_tokens``: an empty grid with one column per token."""
        self._columns = len(source_tokens)
        self._source_labels = tuple(source_tokens)
        self._rows = -1
        self._row_labels = []
        self._set_labels("top", [axis_label(t) for t in source_tokens])
        self._set_labels("left", [])
        self._cell_box.hide()
        self._row_box.hide()
        self._column_box.hide()
        self._capacity = max(1, min(self._columns, VISIBLE_ROWS))  # blank rows: about a square to fill
        self._grid = np.full((self._capacity, max(self._columns, 1)), np.nan, np.float32)
        self.image.setImage(self._grid, levels=self._levels, autoLevels=False)
        self._place_image()  # after setImage: the rectangle's scale depends on the image size
        self.plot.getViewBox().setRange(xRange=(-0.5, min(max(self._columns, 1), VISIBLE_COLUMNS) - 0.5),
                                        yRange=(-0.5, self._capacity - 0.5), padding=0)
        self._thin_labels()  # the range may not have changed, the labels have
        self._show_empty(not self._columns)

    def set_rows(self, matrix: np.ndarray, target_tokens: Sequence[str], finished: bool = False) -> None:
        """Show ``matrix`` (rows decoded so far) with its output-token labels; while the run goes
        on, blank rows below stand for the steps still to come."""
        rows = int(matrix.shape[0])
        capacity = max(rows, 1) if finished else max(self._capacity, rows + 1)
        resized = capacity != self._capacity
        if resized:
            self._capacity = capacity
            self._grid = np.full((capacity, max(self._columns, 1)), np.nan, np.float32)
        else:
            self._grid[rows:] = np.nan  # a beam hypothesis may have become shorter
        if rows and self._columns:
            self._grid[:rows, : self._columns] = matrix
        self.image.setImage(self._grid, levels=self._levels, autoLevels=False)
        if resized:
            self._place_image()
            self._show_rows()
        labels = [axis_label(t) for t in target_tokens[:rows]]
        if labels != self._row_labels:
            self._row_labels = labels
            width = self._label_width(labels)
            axis = self.plot.getAxis("left")
            if axis.fixedWidth != width:  # setting it again re-lays out the plot for nothing
                axis.setWidth(width)
            self._set_labels("left", labels)
            self._thin_labels()
        self._rows = rows

    def _label_width(self, labels: Sequence[str]) -> int:
        widest = max((self._metrics.horizontalAdvance(label) for label in labels), default=0)
        return max(36, widest + 16)

    # -- axis labels ------------------------------------------------------------------------
    def _set_labels(self, side: str, labels: list[str]) -> None:
        """Every label of the ``side`` axis, with its pixel extent along that axis."""
        self._labels[side] = labels
        if side == "top":
            self._extents[side] = [self._metrics.horizontalAdvance(label) for label in labels]
        else:
            self._extents[side] = [self._metrics.height()] * len(labels)

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
        """Give each axis every stride-th label, the stride fitting the current zoom and size."""
        for side in ("top", "left"):
            extents = self._extents[side]
            visible = [extents[j] for j in self._visible_indices(side)]
            stride = label_stride(visible, self._pixels_per_cell(side))
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
        axis' pixel coordinates, in axis order: centred on their tick, as wide as their text, one
        line high (pyqtgraph may still skip one that sticks out of the axis at either end)."""
        view, axis = self.plot.getViewBox(), self.plot.getAxis(side)
        low, high = view.viewRange()[0 if side == "top" else 1]
        height = self._metrics.height()
        rects = []
        for value, label in self._ticks[side]:
            if not low <= value <= high:
                continue
            width = self._metrics.horizontalAdvance(label)
            if side == "top":
                x = axis.mapFromScene(view.mapViewToScene(QPointF(value, low))).x()
                rects.append(QRectF(x - width / 2, 0, width, height))
            else:
                y = axis.mapFromScene(view.mapViewToScene(QPointF(low, value))).y()
                rects.append(QRectF(axis.width() - width, y - height / 2, width, height))
        return rects

    def _place_image(self) -> None:
        """Image rectangle and pan/zoom limits for the current grid (the view range is kept)."""
        columns, capacity = max(self._columns, 1), self._capacity
        self.image.setRect(QRectF(-0.5, -0.5, columns, capacity))
        self.plot.getViewBox().setLimits(xMin=-0.5, xMax=columns - 0.5, yMin=-0.5, yMax=capacity - 0.5,
                                         minXRange=min(3, columns), minYRange=min(3, capacity))

    def _show_rows(self) -> None:
        """All rows while they fit (up to VISIBLE_ROWS); beyond that, scroll to keep the newest
        row in view without zooming."""
        view = self.plot.getViewBox()
        bottom = self._capacity - 0.5
        if self._capacity <= VISIBLE_ROWS:
            view.setYRange(-0.5, bottom, padding=0)
            return
        top, shown_bottom = view.viewRange()[1]
        height = min(shown_bottom - top, VISIBLE_ROWS)
        view.setYRange(bottom - height, bottom, padding=0)

    # -- highlights -------------------------------------------------------------------------
    def highlight_cell(self, row: int, column: int) -> None:
        if 0 <= row < max(self._rows, 0) and 0 <= column < self._columns:
            self._cell_box.setRect(QRectF(column - 0.5, row - 0.5, 1, 1))
            self._cell_box.show()
        else:
            self._cell_box.hide()

    def highlight_column(self, column: int) -> None:
        """Outline a whole source column (linked hover from another map); -1 hides it."""
        if 0 <= column < self._columns and self._capacity:
            self._column_box.setRect(QRectF(column - 0.5, -0.5, 1, self._capacity))
            self._column_box.show()
        else:
            self._column_box.hide()

    def highlight_row(self, row: int) -> None:
        if 0 <= row < max(self._capacity, 0) and self._columns:
            self._row_box.setRect(QRectF(-0.5, row - 0.5, self._columns, 1))
            self._row_box.show()
        else:
            self._row_box.hide()

    # -- pointer ----------------------------------------------------------------------------
    def cell_at(self, scene_pos: QPointF) -> tuple[int, int]:
        """(row, column) under a scene position, or (-1, -1) outside the decoded cells."""
        view = self.plot.getViewBox()
        if not view.sceneBoundingRect().contains(scene_pos):
            return -1, -1
        point = view.mapSceneToView(scene_pos)
        row, column = math.floor(point.y() + 0.5), math.floor(point.x() + 0.5)
        if 0 <= row < max(self._rows, 0) and 0 <= column < self._columns:
            return row, column
        return -1, -1

    def _on_mouse_moved(self, scene_pos: QPointF) -> None:
        cell = self.cell_at(scene_pos)
        if cell != self._hovered:
            self._hovered = cell
            self.highlight_cell(*cell)
            self.cellHovered.emit(*cell)

    def _on_mouse_clicked(self, event) -> None:
        if event.button() != Qt.MouseButton.LeftButton:
            return
        row, column = self.cell_at(event.scenePos())
        if row >= 0:
            self.rowClicked.emit(row)
            shift = bool(event.modifiers() & Qt.KeyboardModifier.ShiftModifier)
            self.cellClicked.emit(row, column, shift)

    def leaveEvent(self, event) -> None:
        if self._hovered != (-1, -1):
            self._hovered = (-1, -1)
            self.highlight_cell(-1, -1)
            self.cellHovered.emit(-1, -1)
        super().leaveEvent(event)
