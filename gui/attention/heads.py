"""The head chooser of a map: the heads' mean, or one head of a multi-head mechanism
(gui.attention.head_rows decides the rows drawn)."""

from __future__ import annotations

from PySide6.QtCore import QEvent, Qt, Signal
from PySide6.QtWidgets import QComboBox, QSizePolicy, QWidget

from gui.attention.head_rows import MEAN


class HeadChooser(QComboBox):
    """"Mean of H heads" or "Head h" — for a model of several layers, of each layer ("Layer 2 · Head 3");
    shown only for a mechanism of several heads."""

    headChanged = Signal(int)  # MEAN or a head index (0-based)

    def __init__(self, parent: QWidget | None = None, compact: bool = False) -> None:
        super().__init__(parent)
        self.compact = compact  # "Mean" / "H1"…: a Compare panel's title row, where room is short
        self.setToolTip(self.tr("A multi-head mechanism attends with several heads at once: show their mean (the row "
                                "each step reports, and every statistic uses) or one head's weights"))
        self.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.setSizePolicy(QSizePolicy.Policy.Maximum, QSizePolicy.Policy.Fixed)
        self.currentIndexChanged.connect(lambda _index: self.headChanged.emit(self.head))
        self._shape = (0, 1)  # (heads, layers) offered
        self.setVisible(False)

    @property
    def head(self) -> int:
        data = self.currentData()  # a head, or (layer, head) for a model of several layers
        if data is None:
            return MEAN
        return int(data[1]) if isinstance(data, tuple) else int(data)

    @property
    def layer(self) -> int | None:
        """The layer chosen of a model of several (0-based), or None for the rows each step reports: the
        one layer of an RNN's mechanism, a Transformer's last."""
        data = self.currentData()
        return data[0] if isinstance(data, tuple) else None

    @property
    def head_count(self) -> int:
        return self._shape[0]

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 (Qt's name)
        """The items, each assembled from two messages ("Layer 2 · " + "Head 3"), made again in the new
        language, the choice kept (gui/retranslate.py leaves such texts to their widget)."""
        super().changeEvent(event)
        if event.type() == QEvent.Type.LanguageChange and self.count():
            self._fill(self.currentIndex())

    def set_head_count(self, count: int, layers: int = 1) -> None:
        """Offer ``count`` heads (none, and hidden, below 2) — of each of ``layers`` layers, the last first
        (a Transformer's; its earlier layers' rows come from each step's ``layer_attention``); the choice
        stays when the counts do."""
        count = count if count >= 2 else 0
        layers = max(layers, 1) if count else 1
        if (count, layers) != self._shape:
            self._shape = (count, layers)
            self._fill(0)
            self.headChanged.emit(self.head)
        self.setVisible(bool(count))

    def _fill(self, index: int) -> None:
        """The items of the shape offered, in the interface's language, item ``index`` chosen (no signal)."""
        count, layers = self._shape
        self.blockSignals(True)
        self.clear()
        for layer in reversed(range(layers)) if count else ():
            self._add_layer(layer, layers, count)
        self.setCurrentIndex(min(index, self.count() - 1))
        self.blockSignals(False)

    def _add_layer(self, layer: int, layers: int, count: int) -> None:
        """Layer ``layer``'s items: the mean of its ``count`` heads, then each head (named by layer when
        there are several ``layers``; an item's data is its head, or (layer key, head))."""
        key = None if layer == layers - 1 else layer  # None: the step's own rows (the last layer's)
        prefix = self.tr("Layer %1 · ").replace("%1", str(layer + 1)) if layers > 1 else ""
        data = (lambda head, key=key: (key, head)) if layers > 1 else (lambda head: head)
        mean = self.tr("Mean") if self.compact else self.tr("Mean of %1 heads").replace("%1", str(count))
        self.addItem(prefix + mean, data(MEAN))
        for head in range(count):
            name = f"H{head + 1}" if self.compact else self.tr("Head %1").replace("%1", str(head + 1))
            self.addItem(prefix + name, data(head))
            self.setItemData(self.count() - 1, self.tr("Head %1 of %2").replace("%1", str(head + 1)).replace(
                "%2", str(count)), Qt.ItemDataRole.ToolTipRole)
