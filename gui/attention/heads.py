"""The head chooser of a map: the heads' mean, or one head of a multi-head mechanism
(gui.attention.head_rows decides the rows drawn)."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QComboBox, QSizePolicy, QWidget

from gui.attention.head_rows import MEAN


class HeadChooser(QComboBox):
    """"Mean of H heads" or "Head h"; shown only for a mechanism of several heads."""

    headChanged = Signal(int)  # MEAN or a head index (0-based)

    def __init__(self, parent: QWidget | None = None, compact: bool = False) -> None:
        super().__init__(parent)
        self.compact = compact  # "Mean" / "H1"…: a Compare panel's title row, where room is short
        self.setToolTip("A multi-head mechanism attends with several heads at once: show their mean (the row "
                        "each step reports, and every statistic uses) or one head's weights")
        self.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.setSizePolicy(QSizePolicy.Policy.Maximum, QSizePolicy.Policy.Fixed)
        self.currentIndexChanged.connect(lambda _index: self.headChanged.emit(self.head))
        self.setVisible(False)

    @property
    def head(self) -> int:
        data = self.currentData()
        return MEAN if data is None else int(data)

    @property
    def head_count(self) -> int:
        return max(self.count() - 1, 0)

    def set_head_count(self, count: int) -> None:
        """Offer ``count`` heads (none, and hidden, below 2); the choice stays when the count does."""
        count = count if count >= 2 else 0
        if count != self.head_count:
            self.blockSignals(True)
            self.clear()
            if count:
                self.addItem("Mean" if self.compact else f"Mean of {count} heads", MEAN)
                for head in range(count):
                    self.addItem(f"H{head + 1}" if self.compact else f"Head {head + 1}", head)
                    self.setItemData(head + 1, f"Head {head + 1} of {count}", Qt.ItemDataRole.ToolTipRole)
            self.blockSignals(False)
            self.headChanged.emit(self.head)
        self.setVisible(bool(count))
