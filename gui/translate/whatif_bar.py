"""The what-if bar of the Translate view: correct the output and let the model continue, or set a
step's attention by hand, and undo it all (the state itself is gui.translate.whatif_state).

Widget names: ``whatIfBar``, ``whatIfPrefixInput``, ``whatIfAttendButton``, ``whatIfUndoButton``,
``whatIfSummary``.
"""

from __future__ import annotations

from PySide6.QtCore import QT_TRANSLATE_NOOP, Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QLineEdit, QPushButton, QToolButton, QVBoxLayout, QWidget

ATTEND_TIP = QT_TRANSLATE_NOOP(
    "WhatIfBar", "Set attention by hand: click a heatmap cell to put all of that step's attention on its source "
    "token, shift-click to share it with more tokens; the model continues from that step")
NO_ATTENTION_TIP = QT_TRANSLATE_NOOP(
    "WhatIfBar", "This scorer has no attention to set: every step reads the same fixed context C")


class WhatIfBar(QWidget):
    prefixEntered = Signal(str)  # the typed start of the output ("" clears it)
    undoRequested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("whatIfBar")
        self.prefix_input = QLineEdit()
        self.prefix_input.setObjectName("whatIfPrefixInput")
        self.prefix_input.setPlaceholderText(self.tr("What if… type how the output should start and press Enter: "
                                                     "the model continues from it (or click a candidate in the step "
                                                     "inspector)"))
        self.attend_button = QToolButton()
        self.attend_button.setObjectName("whatIfAttendButton")
        self.attend_button.setText(self.tr("Set attention"))
        self.attend_button.setCheckable(True)
        self.attend_button.setToolTip(self.tr(ATTEND_TIP))
        self.undo_button = QPushButton(self.tr("Undo what-if"))
        self.undo_button.setObjectName("whatIfUndoButton")
        self.undo_button.setToolTip(self.tr("Back to the model's own decode of this sentence"))
        self.undo_button.setEnabled(False)
        self.summary = QLabel()
        self.summary.setObjectName("whatIfSummary")
        self.summary.setWordWrap(True)
        self.summary.hide()
        row = QHBoxLayout()
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.prefix_input, 1)
        row.addWidget(self.attend_button)
        row.addWidget(self.undo_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(row)
        layout.addWidget(self.summary)
        self.prefix_input.returnPressed.connect(lambda: self.prefixEntered.emit(self.prefix_input.text()))
        self.undo_button.clicked.connect(self.undoRequested)

    def set_attention_available(self, available: bool) -> None:
        self.attend_button.setEnabled(available)
        self.attend_button.setToolTip(self.tr(ATTEND_TIP) if available else self.tr(NO_ATTENTION_TIP))
        if not available:
            self.attend_button.setChecked(False)

    def show_state(self, summary: str) -> None:
        """``summary``: the active what-if in words ("" when the decode is the model's own)."""
        self.summary.setText(summary)
        self.summary.setVisible(bool(summary))
        self.undo_button.setEnabled(bool(summary))

    def reset(self) -> None:
        self.prefix_input.clear()
        self.attend_button.setChecked(False)
        self.show_state("")
