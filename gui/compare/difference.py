"""The Compare tab's difference map: α_A − α_B of two attention scorers on a shared target.

Two maps can be subtracted only when they have the same rows and columns — one target forced on
every model. Until then the panel says why there is no map and offers the shared target that
makes them comparable (the reference when there is one, else the first scorer's output).
Diverging colours centred on 0: red where A attends more, blue where B does.
"""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import Signal
from PySide6.QtWidgets import QComboBox, QFrame, QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from gui.attention.piece_map import PieceMap
from gui.compare.model import attention_difference
from gui.compare.panel import ScorerPanel

DIFFERENCE_COLOR_MAP = "CET-D1"  # blue – white – red, centred on 0


class DifferencePanel(QFrame):
    """α_A − α_B of two attention scorers on a shared target. While the maps have their own rows,
    a button offers the shared target that makes them comparable (``shareRequested`` with its key)."""

    def hasHeightForWidth(self) -> bool:  # noqa: N802 (Qt's name)
        """Laid out at its minimum height in the grid (gui/compare/tab_widgets._MinimumCell says why)."""
        return False

    shareRequested = Signal(str)  # a target choice key (gui.compare.model.target_choices)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("compareDifference")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.addWidget(QLabel(self.tr("<b>Difference</b> α_A − α_B:")))  # a line of its own: the grid's columns stay alike
        row = QHBoxLayout()
        self.first, self.second = QComboBox(), QComboBox()
        self.first.setObjectName("compareDiffA")
        self.second.setObjectName("compareDiffB")
        for box in (self.first, self.second):  # a mechanism's long label must not widen the grid's column
            box.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
            box.setMinimumContentsLength(10)
        row.addWidget(self.first)
        row.addWidget(QLabel("−"))
        row.addWidget(self.second)
        row.addStretch(1)
        layout.addLayout(row)
        self.heatmap = PieceMap()  # words or pieces, as the maps it subtracts (the merge is linear)
        self.heatmap.setObjectName("compareDiffMap")
        self.heatmap.set_scale(-1.0, 1.0, DIFFERENCE_COLOR_MAP, "Δα")
        self.heatmap.set_empty_hint(self.tr("α_A − α_B appears here once every model is given one shared target."))
        self.heatmap.setMinimumHeight(160)
        layout.addWidget(self.heatmap, 1)
        self.message = QLabel()
        self.message.setObjectName("compareDiffMessage")
        self.message.setWordWrap(True)
        layout.addWidget(self.message)
        self.share_button = QPushButton()
        self.share_button.setObjectName("compareDiffShareButton")
        self.share_button.setToolTip(self.tr("Score one target under every model (forced decoding), so that all maps "
                                             "share their rows and any two can be subtracted"))
        self.share_button.hide()
        self.share_button.clicked.connect(lambda: self.shareRequested.emit(self._offered))
        layout.addWidget(self.share_button)
        self._offered = ""
        self.matrix: np.ndarray | None = None

    def set_scorers(self, scorers: list[tuple[str, str]]) -> None:
        for combo, index in ((self.first, 0), (self.second, 1)):
            combo.blockSignals(True)
            combo.clear()
            for name, label in scorers:
                combo.addItem(label, name)
            combo.setCurrentIndex(min(index, combo.count() - 1))
            combo.blockSignals(False)

    def show_difference(self, first: ScorerPanel | None, second: ScorerPanel | None,
                        offer: tuple[str, str] | None = None) -> None:
        """Subtract ``second``'s map from ``first``'s when they share a target; otherwise say why, and
        ``offer`` (target key, button text) shows a button that asks for that shared target."""
        self.matrix = None
        self._offered, text = offer if offer is not None else ("", "")
        self.share_button.setText(text)
        self.share_button.setVisible(False)
        if first is None or second is None:
            self.message.setText(self.tr("Two attention scorers are needed for a difference map."))
            self.heatmap.reset([])
            return
        if not (first.forced and second.forced):
            self.message.setText(self.tr("Each map has its own output rows: choose one shared target above (the "
                                         "reference or one scorer's output) to subtract them."))
            self.heatmap.reset(first.source_tokens)
            self.share_button.setVisible(bool(self._offered))
            return
        if first.source_tokens != second.source_tokens or first.target_tokens != second.target_tokens:
            self.message.setText(self.tr("These two models cut the sentence into different sub-words: their maps "
                                         "have different columns and cannot be subtracted."))
            self.heatmap.reset([])
            return
        try:
            self.matrix = attention_difference(first.matrix, second.matrix)
        except ValueError as error:
            self.message.setText(str(error))
            return
        self.heatmap.reset(first.source_tokens)
        self.heatmap.set_rows(self.matrix, first.target_tokens, finished=True)
        largest = float(np.abs(self.matrix).max()) if self.matrix.size else 0.0
        self.message.setText(self.tr("%1 − %2: red where A attends more, blue where B does; largest difference "
                                     "%3.").replace("%1", first.slot.label).replace("%2", second.slot.label).replace(
                                         "%3", f"{largest:.2f}"))
