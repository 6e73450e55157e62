"""A small attention heatmap: output tokens down, source tokens across, weights 0–1.

After pyqtgraph's MatrixDisplayExample: an ``ImageItem`` in row-major order with fixed levels,
token labels as axis ticks, and a tooltip-like readout of the cell under the mouse.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPointF, QSize
from PySide6.QtWidgets import QWidget

from engine.tokenizer import Tokenizer
from gui.training.plotstyle import BACKGROUND, FOREGROUND

# White (no attention) to deep blue (all of it): readable on the light plots beside it.
ATTENTION_COLOURS = pg.ColorMap(pos=[0.0, 0.35, 1.0], color=["#ffffff", "#6baed6", "#08306b"])
MAX_LABEL_CHARS = 8


def _label(piece: str) -> str:
    text = Tokenizer.display_piece(piece).strip() or "␣"
    return text if len(text) <= MAX_LABEL_CHARS else text[: MAX_LABEL_CHARS - 1] + "…"


class AttentionHeatmap(pg.PlotWidget):
    """Shows one attention matrix; :meth:`matrix` returns what is shown (for tests)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent, background=BACKGROUND)
        self.setObjectName("trainingAttentionHeatmap")
        plot = self.getPlotItem()
        plot.setMenuEnabled(False)
        plot.hideButtons()
        plot.setMouseEnabled(x=False, y=False)
        plot.showAxis("top")
        plot.hideAxis("bottom")
        plot.invertY(True)
        plot.setAspectLocked(True)  # square cells: the matrix keeps its shape
        plot.setLabel("left", "output token", color=FOREGROUND)
        plot.setLabel("top", "source token", color=FOREGROUND)
        for name in ("left", "top"):
            axis = plot.getAxis(name)
            axis.setPen(pg.mkPen(FOREGROUND))
            axis.setTextPen(pg.mkPen(FOREGROUND))
            axis.setStyle(tickLength=0)
        self._image = pg.ImageItem(axisOrder="row-major")
        self._image.setColorMap(ATTENTION_COLOURS)
        plot.addItem(self._image)
        self._message = pg.TextItem("", color=FOREGROUND, anchor=(0.5, 0.5))
        plot.addItem(self._message)
        self._readout = pg.TextItem("", color=FOREGROUND, anchor=(0, 1), fill=pg.mkBrush(255, 255, 255, 220))
        self._readout.setZValue(10)
        plot.addItem(self._readout)
        self._matrix = np.zeros((0, 0))
        self._source: list[str] = []
        self._target: list[str] = []
        self.scene().sigMouseMoved.connect(self._mouse_moved)

    def set_attention(self, matrix: np.ndarray | None, source_tokens: tuple[str, ...], tokens: tuple[str, ...],
                      empty_message: str = "") -> None:
        """Show ``matrix`` (len(tokens) × len(source_tokens)); None shows ``empty_message`` instead."""
        plot = self.getPlotItem()
        self._readout.setText("")
        if matrix is None or matrix.size == 0:
            self._matrix = np.zeros((0, 0))
            self._image.clear()
            self._message.setText(empty_message)
            self._message.setPos(0.5, 0.5)
            plot.getAxis("left").setTicks([[]])
            plot.getAxis("top").setTicks([[]])
            plot.setRange(xRange=(0, 1), yRange=(0, 1), padding=0)
            return
        self._message.setText("")
        self._matrix = np.asarray(matrix, dtype=np.float64)
        rows, columns = self._matrix.shape
        self._source = [_label(t) for t in source_tokens[:columns]]
        self._target = [_label(t) for t in tokens[:rows]]
        self._image.setImage(self._matrix, levels=(0.0, 1.0), autoLevels=False)
        self._image.setRect(0, 0, columns, rows)
        plot.getAxis("top").setTicks([[(i + 0.5, t) for i, t in enumerate(self._source)]])
        plot.getAxis("left").setTicks([[(i + 0.5, t) for i, t in enumerate(self._target)]])
        plot.setRange(xRange=(0, columns), yRange=(0, rows), padding=0)

    def matrix(self) -> np.ndarray:
        return self._matrix.copy()

    def _mouse_moved(self, position: QPointF) -> None:
        if self._matrix.size == 0:
            return
        point = self.getPlotItem().vb.mapSceneToView(position)
        column, row = int(np.floor(point.x())), int(np.floor(point.y()))
        rows, columns = self._matrix.shape
        if 0 <= row < rows and 0 <= column < columns:
            self._readout.setText(f"{self._target[row]} ← {self._source[column]}: {self._matrix[row, column]:.2f}")
            self._readout.setPos(0, rows)
        else:
            self._readout.setText("")

    def sizeHint(self) -> QSize:
        """Qt: about square, big enough for a ten-token sentence."""
        return QSize(320, 240)
