"""The Train tab's attention map: the Translate tab's heatmap (gui.attention.heatmap — the same
colour scale, the same label rule, hover and zoom) showing one finished matrix at a time."""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import QCoreApplication, QSize
from PySide6.QtWidgets import QWidget

from gui.attention.heatmap import EMPTY_HINT, HeatmapView


class AttentionHeatmap(HeatmapView):
    """Shows one attention matrix; :meth:`matrix` returns what is shown (for tests)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("trainingAttentionHeatmap")
        self._matrix = np.zeros((0, 0))

    def set_attention(self, matrix: np.ndarray | None, source_tokens: tuple[str, ...], tokens: tuple[str, ...],
                      empty_message: str = "") -> None:
        """Show ``matrix`` (len(tokens) × len(source_tokens)); None shows ``empty_message`` instead."""
        if matrix is None or matrix.size == 0:
            self._matrix = np.zeros((0, 0))
            self.set_empty_hint(empty_message or QCoreApplication.translate("HeatmapView", EMPTY_HINT))
            self.reset([])
            return
        self._matrix = np.asarray(matrix, dtype=np.float64)
        rows, columns = self._matrix.shape
        self.reset(list(source_tokens[:columns]))
        self.set_rows(self._matrix, list(tokens[:rows]), finished=True)

    def matrix(self) -> np.ndarray:
        return self._matrix.copy()

    def sizeHint(self) -> QSize:
        """Qt: about square, big enough for a ten-token sentence."""
        return QSize(320, 240)
