"""The attention heatmap: a pyqtgraph ImageItem of α (rows = output tokens, columns = source
tokens), token labels on the axes, a colour bar, hover and click reporting, highlights.

Rows not decoded yet are NaN, which pyqtgraph draws transparent, so the grid visibly fills in.
The view can be zoomed (wheel) and panned (drag); :meth:`HeatmapView.reset_zoom` (a double-click,
or the view bar's button) brings back the view a map opens with. No global pyqtgraph configuration
is touched: the image is row-major by its own option.

Labels: the plot and its token axes come from gui/attention/map_axes.py (labels turned upright
or thinned so that none overlaps). Every column is in view, however long the input: at 1280×800
every label of 40 columns is kept, and beyond that they are thinned evenly (never cropped). The map
shows as many rows as have room for their labels; past that, while a run goes on it follows the
newest row, and once it has ended it shows the output from its first row (a scroll bar beside the
map reaches the rest, gui/attention/row_scroll.py), so rows are never thinned until the user zooms
out. Zooming in brings every label back once they fit; the exact token of any cell is always
reported on hover (:attr:`HeatmapView.cellHovered`), and a map can name the cell under the pointer
itself (:meth:`HeatmapView.set_hover_caption`: small maps).

Colours follow a :class:`~gui.attention.color_scale.ColorScale` (0–1, per row, automatic) whose
name the colour bar carries; :meth:`HeatmapView.set_scale` fixes another one (a difference map).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QT_TRANSLATE_NOOP, QEvent, QPointF, QRectF, Qt, Signal
from PySide6.QtGui import QColor, QPalette, QPen
from PySide6.QtWidgets import QGraphicsRectItem, QWidget

from gui.attention.color_scale import DEFAULT_SCALE, ColorScale, color_scale
from gui.attention.empty_hint import EmptyHint
from gui.attention.labels import axis_label
from gui.attention.map_axes import LINE_GAP, MapAxes, axis_font

VISIBLE_COLUMNS = 40  # columns labelled one by one at 1280×800; a longer input is fitted, its labels thinned
VISIBLE_ROWS = 30  # rows in view before the map is laid out (then: as many as have room for labels)
COLOR_MAP = "viridis"
COMPACT_BAR_WIDTH, COMPACT_BAR_AXIS = 8, 28  # pixels: a small map's colour bar and its values
COMPACT_ROW_LABEL = 36  # pixels: a small map's row labels are cut to this width (its hover caption names them)
EMPTY_HINT = QT_TRANSLATE_NOOP("HeatmapView", "The attention map appears here: one row per output token, one column per source token.")


class HeatmapView(MapAxes):
    """Renders an attention matrix; knows nothing about decoding."""

    cellHovered = Signal(int, int)  # row, column; (-1, -1) when the pointer leaves the cells
    rowClicked = Signal(int)
    cellClicked = Signal(int, int, bool)  # row, column, shift held (what-if: set attention by hand)
    rowsChanged = Signal()  # the map's row count changed (a row scroll bar follows it)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)  # the plot and its token axes (gui/attention/map_axes.py)
        palette = self.palette()
        text = palette.color(QPalette.ColorRole.Text)
        self.image = pg.ImageItem(axisOrder="row-major")
        self.plot.addItem(self.image)
        self.color_bar = pg.ColorBarItem(values=(0.0, 1.0), colorMap=pg.colormap.get(COLOR_MAP),
                                         interactive=False, label="α (0–1)", colorMapMenu=False, width=16)
        self.color_bar.setImageItem(self.image, insert_in=self.plot)
        bar_axis = self.color_bar.getAxis("right") if hasattr(self.color_bar, "getAxis") else None
        if bar_axis is not None:
            bar_axis.setPen(text)
            bar_axis.setTextPen(text)
        self._levels = (0.0, 1.0)  # the colour levels in use
        self.color_scale: ColorScale | None = color_scale(DEFAULT_SCALE)  # None: a fixed scale (set_scale)
        self._bar_label = "α (0–1)"
        self.empty_hint = EmptyHint(self.tr(EMPTY_HINT), text, self.plot.getViewBox())
        self.plot.addItem(self.empty_hint, ignoreBounds=True)
        self.caption = pg.TextItem("", color=palette.color(QPalette.ColorRole.ToolTipText),
                                   fill=palette.color(QPalette.ColorRole.ToolTipBase), anchor=(0, 1))
        self.caption.setZValue(20)
        self.caption.hide()
        self.plot.addItem(self.caption, ignoreBounds=True)
        self._captions = False  # name the hovered cell on the map itself (set_hover_caption)
        self._compact_bar = False  # a narrow colour bar without its label (set_compact_bar)
        self._cell_box = self._overlay(QColor(255, 64, 64), 2)
        self._row_box = self._overlay(QColor(255, 140, 0), 2)
        self._column_box = self._overlay(QColor(255, 255, 255), 1)
        self._columns = 0
        self._capacity = 0
        self._rows = 0
        self._finished = False  # the rows are a finished run's: shown from the first (else the newest followed)
        self._grid = np.zeros((0, 0), np.float32)
        self._weights = np.zeros((0, 0), np.float32)  # the rows shown, before the colour scale
        self._source_labels: tuple[str, ...] = ()
        self._row_labels: list[str] = []
        view = self.plot.getViewBox()
        view.sigRangeChanged.connect(self._thin_labels)
        view.sigResized.connect(self._refit_rows)  # e.g. the top axis grew for upright labels
        view.sigResized.connect(self._thin_labels)
        view.sigResized.connect(self.empty_hint.wrap)
        view.sigRangeChanged.connect(self.empty_hint.wrap)
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
        """``text`` where the map is empty ("": the default hint, in the interface's language, then and later)."""
        self._own_hint = not text
        self.empty_hint.show_text(text or self.tr(EMPTY_HINT))

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 (Qt's name)
        super().changeEvent(event)
        if event.type() == QEvent.Type.LanguageChange and getattr(self, "_own_hint", True):
            self.set_empty_hint("")

    def set_scale(self, low: float, high: float, color_map: str, label: str) -> None:
        """A fixed colour scale instead of α's, e.g. a diverging map centred on 0 from −1 to 1 for
        α_A − α_B (the values are drawn as given)."""
        self.color_scale = None
        self.color_bar.setColorMap(pg.colormap.get(color_map))
        self._apply_levels((float(low), float(high)), label)

    def set_color_scale(self, scale: ColorScale | str) -> None:
        """Colour the weights by ``scale`` (a :class:`ColorScale` or its name: unit, row, auto)."""
        self.color_scale = color_scale(scale) if isinstance(scale, str) else scale
        self._draw_weights()

    def _apply_levels(self, levels: tuple[float, float], label: str) -> None:
        if levels != self._levels:
            self._levels = levels
            self.color_bar.setLevels(values=levels)
            self.image.setLevels(levels)
        if label != self._bar_label:
            self._bar_label = label
            self.color_bar.getAxis("left").setLabel(label)  # where ColorBarItem puts its label (vertical bar)
            if self._compact_bar:
                self.color_bar.getAxis("left").showLabel(False)
                self.setToolTip(self.tr("Colours: %1").replace("%1", label))

    @property
    def bar_label(self) -> str:
        """What the colour bar says its colours are (e.g. ``α ÷ row max``)."""
        return self._bar_label

    def set_compact_bar(self) -> None:
        """A narrow colour bar without its label, for small maps (the Compare grid's): the scale's
        name goes to the map's tooltip and to the view's own choice of scale. Row labels are cut
        to COMPACT_ROW_LABEL pixels."""
        self.color_bar.layout.setColumnFixedWidth(1, COMPACT_BAR_WIDTH)
        self.color_bar.axis.setWidth(COMPACT_BAR_AXIS)
        self.color_bar.axis.setStyle(tickFont=axis_font(self.font()))
        self.color_bar.getAxis("left").showLabel(False)
        self.ci.layout.setContentsMargins(0, 2, 0, 2)  # a small map keeps the layout's margins for its cells
        self.ci.layout.setHorizontalSpacing(2)
        self._compact_bar = True
        self.setToolTip(self.tr("Colours: %1").replace("%1", self._bar_label))

    def set_hover_caption(self, enabled: bool) -> None:
        """Name the cell under the pointer on the map itself (output ← source, α): for maps too
        small to label every row and column."""
        self._captions = enabled
        if not enabled:
            self.caption.hide()

    # -- data -------------------------------------------------------------------------------
    def reset(self, source_tokens: Sequence[str]) -> None:
        """A new run over ``source_tokens``: an empty grid with one column per token."""
        self._columns = len(source_tokens)
        self._source_labels = tuple(source_tokens)
        self._rows = -1
        self._finished = False
        self._row_labels = []
        self._set_labels("top", [axis_label(t) for t in source_tokens])
        self._set_labels("left", [])
        self._cell_box.hide()
        self._row_box.hide()
        self._column_box.hide()
        self.caption.hide()
        self._capacity = max(1, min(self._columns, self._fitting_rows()))  # blank rows: about a square to fill
        self._grid = np.full((self._capacity, max(self._columns, 1)), np.nan, np.float32)
        self._weights = np.zeros((0, self._columns), np.float32)
        self.image.setImage(self._grid, levels=self._levels, autoLevels=False)
        self._place_image()  # after setImage: the rectangle's scale depends on the image size
        self.plot.getViewBox().setRange(xRange=(-0.5, max(self._columns, 1) - 0.5),  # every column, however many
                                        yRange=(-0.5, self._capacity - 0.5), padding=0)
        self._thin_labels()  # the range may not have changed, the labels have
        self._show_empty(not self._columns)
        self.rowsChanged.emit()

    def set_rows(self, matrix: np.ndarray, target_tokens: Sequence[str], finished: bool = False) -> None:
        """Show ``matrix`` (rows decoded so far) with its output-token labels; while the run goes
        on, blank rows below stand for the steps still to come."""
        rows = int(matrix.shape[0])
        capacity = max(rows, 1) if finished else max(self._capacity, rows + 1)
        resized = capacity != self._capacity
        if resized:
            self._capacity = capacity
            self._grid = np.full((capacity, max(self._columns, 1)), np.nan, np.float32)
        self._weights = np.asarray(matrix, dtype=np.float32)[:, : self._columns]
        self._draw_weights()
        ended = finished and not self._finished  # the run has just ended: its output from the first row
        self._finished = finished
        if resized or ended:
            self._place_image()
            self._show_rows()
        labels = [axis_label(t) for t in target_tokens[:rows]]
        if labels != self._row_labels:
            self._show_row_labels(labels)
        self._rows = rows
        if resized:
            self.rowsChanged.emit()

    def _show_row_labels(self, labels: list[str]) -> None:
        """The output tokens' labels on the left axis (cut short on a small map: hover names them)."""
        self._row_labels = labels
        if self._compact_bar:  # a small map: row labels cut to leave room for the cells
            labels = [self._metrics.elidedText(label, Qt.TextElideMode.ElideRight, COMPACT_ROW_LABEL)
                      for label in labels]
        width = self._label_width(labels)
        axis = self.plot.getAxis("left")
        if axis.fixedWidth != width:  # setting it again re-lays out the plot for nothing
            axis.setWidth(width)
        self._set_labels("left", labels)
        self._thin_labels()

    def _draw_weights(self) -> None:
        """The image of the weights shown, through the colour scale."""
        rows = self._weights.shape[0]
        self._grid[rows:] = np.nan  # a beam hypothesis may have become shorter
        if self.color_scale is None:
            image = self._weights
        else:
            image, levels, label = self.color_scale.apply(self._weights)
            self._apply_levels(levels, label)
        if rows and self._columns:
            self._grid[:rows, : self._columns] = image
        self.image.setImage(self._grid, levels=self._levels, autoLevels=False)

    def weight(self, row: int, column: int) -> float:
        """The weight drawn in a cell (as given, before the colour scale); NaN outside the rows."""
        if 0 <= row < self._weights.shape[0] and 0 <= column < self._weights.shape[1]:
            return float(self._weights[row, column])
        return float("nan")

    def _label_width(self, labels: Sequence[str]) -> int:
        widest = max((self._metrics.horizontalAdvance(label) for label in labels), default=0)
        return max(24 if self._compact_bar else 36, widest + 12)

    def _fitting_rows(self) -> int:
        """How many rows the view has room for with a label each (VISIBLE_ROWS before layout); a
        small map (:meth:`set_compact_bar`) shows all its rows, thinned, and names them on hover."""
        if self._compact_bar:
            return max(self._capacity, self._columns, VISIBLE_ROWS)
        height = self.plot.getViewBox().height()
        if height < 40:
            return VISIBLE_ROWS
        return max(3, int(height // (self.axes["left"].line + LINE_GAP)))

    def _place_image(self) -> None:
        """Image rectangle and pan/zoom limits for the current grid (the view range is kept)."""
        columns, capacity = max(self._columns, 1), self._capacity
        self.image.setRect(QRectF(-0.5, -0.5, columns, capacity))
        self.plot.getViewBox().setLimits(xMin=-0.5, xMax=columns - 0.5, yMin=-0.5, yMax=capacity - 0.5,
                                         minXRange=min(3, columns), minYRange=min(3, capacity))

    def _refit_rows(self) -> None:
        """The view changed size: as many rows in view as have room for their labels again."""
        if self._capacity and self._columns:
            self._show_rows()

    def _show_rows(self) -> None:
        """All rows while they have room for their labels; beyond that, a finished run's from the
        first row, and while a run goes on, scrolled to keep the newest row in view without zooming."""
        view = self.plot.getViewBox()
        bottom = self._capacity - 0.5
        fitting = self._fitting_rows()
        if self._capacity <= fitting:
            view.setYRange(-0.5, bottom, padding=0)
            return
        if self._finished:
            view.setYRange(-0.5, fitting - 0.5, padding=0)
            return
        top, shown_bottom = view.viewRange()[1]
        height = min(shown_bottom - top, fitting)
        view.setYRange(bottom - height, bottom, padding=0)

    def reset_zoom(self) -> None:
        """Back to the view the map opens with: every column, and the rows as :meth:`_show_rows` places them."""
        view = self.plot.getViewBox()
        view.setXRange(-0.5, max(self._columns, 1) - 0.5, padding=0)
        if self._capacity:
            top = view.viewRange()[1][0]
            view.setYRange(top, top + min(self._capacity, self._fitting_rows()), padding=0)  # rows with room for labels
            self._show_rows()

    @property
    def row_capacity(self) -> int:
        """The map's rows (decoded and blank ones to come)."""
        return self._capacity

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
            self._show_caption(*cell)
            self._report_hover(*cell)

    def _report_hover(self, row: int, column: int) -> None:
        """Say which cell is under the pointer (a subclass may translate it: gui/attention/piece_map.py)."""
        self.cellHovered.emit(row, column)

    def _report_click(self, row: int, column: int, shift: bool) -> None:
        self.rowClicked.emit(row)
        self.cellClicked.emit(row, column, shift)

    def _show_caption(self, row: int, column: int) -> None:
        """Name the cell under the pointer on the map (when captions are on)."""
        if not self._captions or row < 0:
            self.caption.hide()
            return
        source = self._source_labels[column] if column < len(self._source_labels) else ""
        target = self._row_labels[row] if row < len(self._row_labels) else ""
        self.caption.setText(f"{target} ← {axis_label(source)}  {self.weight(row, column):.2f}")
        view = self.plot.getViewBox()
        (left, right), (top, bottom) = view.viewRange()
        self.caption.setAnchor((1 if column > (left + right) / 2 else 0, 0 if row < (top + bottom) / 2 else 1))
        self.caption.setPos(column + (-0.5 if column > (left + right) / 2 else 0.5), row + (0.5 if row < (top + bottom) / 2 else -0.5))
        self.caption.show()

    def _on_mouse_clicked(self, event) -> None:
        if event.button() != Qt.MouseButton.LeftButton:
            return
        if event.double():  # the whole map again
            self.reset_zoom()
            return
        row, column = self.cell_at(event.scenePos())
        if row >= 0:
            self._report_click(row, column, bool(event.modifiers() & Qt.KeyboardModifier.ShiftModifier))

    def leaveEvent(self, event) -> None:
        if self._hovered != (-1, -1):
            self._hovered = (-1, -1)
            self.highlight_cell(-1, -1)
            self.caption.hide()
            self._report_hover(-1, -1)
        super().leaveEvent(event)
