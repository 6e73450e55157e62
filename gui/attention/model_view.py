"""A Transformer's attention, every layer and head at once: a layers × heads grid of small maps
(BertViz's "model view" is the anchor), and the map clicked opened large beside it.

Three kinds of map (engine.networks.layer_maps): the encoder's self-attention (source × source), the
decoder's causal self-attention (output × the decoder's inputs <s>, y_1 …) and the cross-attention
(output × source; the Translate map is its last layer's mean of heads). A click on a small map shows
it large, with every label; hovering the large map names the cell and the two tokens it joins, and
hovering a small map names its layer and head. Each small map is drawn on its own colour scale from 0
to its largest weight, so a head that spreads its weight thinly still shows its pattern.

Object names: ``modelViewDialog``, ``modelViewKind`` (the kind chooser), ``modelViewGrid`` (the grid),
``modelViewMap`` (the map opened large), ``modelViewCaption``.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QT_TRANSLATE_NOOP, QPointF, Qt, Signal
from PySide6.QtWidgets import QComboBox, QDialog, QHBoxLayout, QLabel, QSplitter, QVBoxLayout, QWidget

from engine.networks import KINDS, AttentionLayers
from engine.text import split_words
from gui.attention.heatmap import COLOR_MAP, HeatmapView
from gui.attention.labels import axis_label, piece_label
from gui.screen_fit import fit_to_screen

KIND_LABELS = {"encoder": QT_TRANSLATE_NOOP("ModelView", "Encoder self-attention (source × source)"),
               "decoder": QT_TRANSLATE_NOOP("ModelView", "Decoder self-attention (output × what it has written)"),
               "cross": QT_TRANSLATE_NOOP("ModelView", "Cross-attention (output × source)")}
DIALOG_SIZE = (1180, 700)
SELECTED_PEN = pg.mkPen("#ff4040", width=3)
PLAIN_PEN = pg.mkPen("#808080", width=1)



def marked_pieces(tokens: tuple[str, ...] | list[str]) -> list[str]:
    """A map axis' pieces as the main map's piece view labels them: a piece that continues the word before
    it marked ``##`` (``studie`` ``##d``), so that two pieces of one word do not read as two words."""
    split = split_words(tokens)
    return [piece_label(piece, split.continues(k)) for k, piece in enumerate(tokens)]

class LayerHeadGrid(pg.GraphicsLayoutWidget):
    """L rows × H columns of small maps of one kind; ``mapClicked(layer, head)``, ``mapHovered``."""

    mapClicked = Signal(int, int)
    mapHovered = Signal(int, int)  # (-1, -1) off every map

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("modelViewGrid")
        self.setBackground(None)
        self.boxes: list[list[pg.ViewBox]] = []
        self.images: list[list[pg.ImageItem]] = []
        self.selected = (-1, -1)
        self.scene().sigMouseClicked.connect(self._on_click)
        self.scene().sigMouseMoved.connect(self._on_move)
        self._lookup = pg.colormap.get(COLOR_MAP).getLookupTable(nPts=256)

    def show_maps(self, maps: AttentionLayers, kind: str) -> None:
        """Draw every layer's and head's ``kind`` map."""
        self.clear()
        self.boxes, self.images = [], []
        for head in range(maps.heads):
            self.addLabel(self.tr("Head %1").replace("%1", str(head + 1)), row=0, col=head + 1)
        for layer in range(maps.layers):
            self.addLabel(self.tr("Layer %1").replace("%1", str(layer + 1)), row=layer + 1, col=0, angle=-90)
            row_boxes, row_images = [], []
            for head in range(maps.heads):
                box = self.addViewBox(row=layer + 1, col=head + 1, lockAspect=False, enableMouse=False)
                box.invertY(True)
                box.setBorder(PLAIN_PEN)
                matrix = maps.map(kind, layer, head)
                image = pg.ImageItem(axisOrder="row-major")
                image.setLookupTable(self._lookup)
                image.setImage(matrix, levels=(0.0, max(float(matrix.max()), 1e-6)), autoLevels=False)
                box.addItem(image)
                box.setRange(xRange=(0, matrix.shape[1]), yRange=(0, matrix.shape[0]), padding=0.02)
                row_boxes.append(box)
                row_images.append(image)
            self.boxes.append(row_boxes)
            self.images.append(row_images)
        self.selected = (-1, -1)

    def select(self, layer: int, head: int) -> None:
        """Outline the map of ``layer`` and ``head``."""
        for row, boxes in enumerate(self.boxes):
            for column, box in enumerate(boxes):
                box.setBorder(SELECTED_PEN if (row, column) == (layer, head) else PLAIN_PEN)
        self.selected = (layer, head)

    def map_at(self, scene_pos: QPointF) -> tuple[int, int]:
        for layer, boxes in enumerate(self.boxes):
            for head, box in enumerate(boxes):
                if box.sceneBoundingRect().contains(scene_pos):
                    return layer, head
        return -1, -1

    def _on_click(self, event) -> None:
        layer, head = self.map_at(event.scenePos())
        if layer >= 0:
            self.mapClicked.emit(layer, head)

    def _on_move(self, scene_pos: QPointF) -> None:
        self.mapHovered.emit(*self.map_at(scene_pos))


class ModelView(QDialog):
    """Every layer and head of one Transformer translation (non-modal); ``cellHovered(kind, row, column)``
    names the cell under the pointer of the map opened large ((-1, -1) off it), so that the window it was
    opened from can point at the two tokens in its own views of the sentence."""

    cellHovered = Signal(str, int, int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("modelViewDialog")
        self.setWindowTitle(self.tr("Layers and heads"))
        self.setModal(False)
        self.maps: AttentionLayers | None = None
        self.kind_box = QComboBox()
        self.kind_box.setObjectName("modelViewKind")
        for kind in KINDS:
            self.kind_box.addItem(self.tr(KIND_LABELS[kind]), kind)
        self.kind_box.setCurrentIndex(KINDS.index("cross"))
        self.kind_box.currentIndexChanged.connect(lambda _index: self._redraw())
        self.grid = LayerHeadGrid()
        self.grid.mapClicked.connect(self.open_map)
        self.grid.mapHovered.connect(self._on_grid_hover)
        self.heatmap = HeatmapView()
        self.heatmap.setObjectName("modelViewMap")
        self.heatmap.set_color_scale("auto")
        self.heatmap.cellHovered.connect(self._on_cell_hovered)
        self.title = QLabel()
        self.caption = QLabel(self.tr("Click a small map to open it here."))
        self.caption.setObjectName("modelViewCaption")
        self.caption.setWordWrap(True)
        large = QWidget()
        large_layout = QVBoxLayout(large)
        large_layout.setContentsMargins(0, 0, 0, 0)
        large_layout.addWidget(self.title)
        large_layout.addWidget(self.heatmap, 1)
        splitter = QSplitter(Qt.Orientation.Horizontal)
        splitter.addWidget(self.grid)
        splitter.addWidget(large)
        splitter.setSizes([560, 560])
        top = QHBoxLayout()
        top.addWidget(QLabel(self.tr("Show")))
        top.addWidget(self.kind_box, 1)
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(splitter, 1)
        layout.addWidget(self.caption)
        self.opened = (0, 0)
        fit_to_screen(self, *DIALOG_SIZE)

    @property
    def kind(self) -> str:
        return str(self.kind_box.currentData())

    def show_maps(self, maps: AttentionLayers) -> None:
        """A new translation's maps (the map opened large stays at its layer and head where it can)."""
        self.maps = maps
        layer, head = self.opened
        self.opened = (min(layer, maps.layers - 1), min(head, maps.heads - 1))
        self._redraw()

    def _redraw(self) -> None:
        if self.maps is None:
            return
        self.grid.show_maps(self.maps, self.kind)
        self.open_map(*self.opened)

    def open_map(self, layer: int, head: int) -> None:
        """Show the map of ``layer`` and ``head`` large, with every label."""
        if self.maps is None:
            return
        self.opened = (layer, head)
        self.grid.select(layer, head)
        rows, columns = (marked_pieces(tokens) for tokens in self.maps.axes(self.kind))
        self.heatmap.reset(columns)
        self.heatmap.set_rows(self.maps.map(self.kind, layer, head), rows, finished=True)
        self.title.setText("<b>" + self.tr("Layer %1, head %2").replace("%1", str(layer + 1)).replace(
            "%2", str(head + 1)) + "</b> — " + self.tr(KIND_LABELS[self.kind]))

    def _on_grid_hover(self, layer: int, head: int) -> None:
        if layer >= 0:
            self.caption.setText(self.tr("Layer %1, head %2: click to open it large.").replace("%1", str(layer + 1)).replace(
                "%2", str(head + 1)))

    def _on_cell_hovered(self, row: int, column: int) -> None:
        self.cellHovered.emit(self.kind, row, column)
        if self.maps is None or row < 0:
            return
        rows, columns = self.maps.axes(self.kind)
        if row >= len(rows) or column >= len(columns):
            return
        weight = self.maps.map(self.kind, *self.opened)[row, column]
        self.caption.setText(f"{axis_label(rows[row])} → {axis_label(columns[column])}: α = {weight:.3f} ("
                             + self.tr("layer %1, head %2").replace("%1", str(self.opened[0] + 1)).replace(
                                 "%2", str(self.opened[1] + 1)) + ")")

    def selected_weights(self) -> np.ndarray | None:
        """The map opened large, as drawn (for tests and exports)."""
        return None if self.maps is None else self.maps.map(self.kind, *self.opened)
