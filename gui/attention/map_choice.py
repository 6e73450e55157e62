"""What a map shows: attention α or an attribution (a combo box beside the Words / Colours boxes), with the
attribution's progress and a button that cancels it.

Used under the Translate tab's heatmap and in the Compare tab, where one choice applies to every map.
Object names are given by the owner: ``<prefix>MapShows`` (the combo box), ``<prefix>ExplainProgress``
(the progress line) and ``<prefix>ExplainCancel`` (the button). The choice is remembered between sessions
under ``<prefix>/mapShows``. Torch-free: the method names are gui/attention/attribution_math.py's
(the same as engine.explain.ATTRIBUTION_METHODS, which a test checks), so that building the window never
imports PyTorch.
"""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, QEvent, QSettings, Qt, Signal
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QSizePolicy, QToolButton, QWidget

from gui.attention.attribution_math import ALPHA, MAP_METHODS, check_method
from gui.stored_settings import stored_text


def method_label(method: str) -> str:
    """The menu's words for ``method`` (alpha, ig, grad, occlusion)."""
    labels = {
        ALPHA: QCoreApplication.translate("MapChoice", "attention α"),
        "ig": QCoreApplication.translate("MapChoice", "integrated gradients"),
        "grad": QCoreApplication.translate("MapChoice", "input × gradient"),
        "occlusion": QCoreApplication.translate("MapChoice", "occlusion"),
    }
    return labels[check_method(method)]


def method_tooltip(method: str) -> str:
    """What ``method`` computes, in one or two sentences."""
    tips = {
        ALPHA: QCoreApplication.translate("MapChoice", "The attention weights α_ij the model computed: where each "
                                          "step looked."),
        "ig": QCoreApplication.translate("MapChoice", "Integrated gradients (Sundararajan 2017): each source "
                                         "piece's contribution to log p(y_i | y_<i, x), the gradient integrated "
                                         "along a path from a neutral input; a step's values sum to its log p "
                                         "minus the baseline's."),
        "grad": QCoreApplication.translate("MapChoice", "Input × gradient: each source piece's embedding times the "
                                           "gradient of log p(y_i) — one backward pass, a first-order estimate."),
        "occlusion": QCoreApplication.translate("MapChoice", "Occlusion: how much log p(y_i) drops when a source "
                                                "piece is replaced by a neutral one."),
    }
    return tips[check_method(method)]


class MapChoice(QWidget):
    """The map's content (α or an attribution method), the attribution's progress, and Cancel."""

    methodChanged = Signal(str)  # one of MAP_METHODS
    cancelRequested = Signal()  # stop the attribution being computed

    def __init__(self, prefix: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.prefix = prefix
        self.combo = QComboBox()
        self.combo.setObjectName(f"{prefix}MapShows")
        for method in MAP_METHODS:
            self.combo.addItem("", method)
        # As wide as about 14 characters (its list shows the labels whole): the bar under the map must fit
        # at 1280 pixels beside the Words and Colours boxes, in Chinese too.
        self.combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.combo.setMinimumContentsLength(14)
        self.progress = QLabel()
        self.progress.setObjectName(f"{prefix}ExplainProgress")
        self.progress.setTextFormat(Qt.TextFormat.PlainText)
        self.progress.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.progress.setFixedWidth(self.fontMetrics().horizontalAdvance("stopped 000/000") + 6)  # its tooltip: all
        self.cancel = QToolButton()
        self.cancel.setObjectName(f"{prefix}ExplainCancel")
        self.cancel.setText("✕")
        self.cancel.setAutoRaise(True)
        self.cancel.setEnabled(False)  # always in place: showing it would widen the bar (and the window)
        self.cancel.clicked.connect(self.cancelRequested)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        self.label = QLabel()
        layout.addWidget(self.label)
        layout.addWidget(self.combo)
        layout.addWidget(self.progress)
        layout.addWidget(self.cancel)
        layout.addStretch(1)  # room to spare goes after the chooser, never between its label and its box
        self.retranslate()
        self.combo.currentIndexChanged.connect(lambda _index: self.methodChanged.emit(self.method()))

    def retranslate(self) -> None:
        """Every text in the interface's language (again after a switch of language)."""
        self.label.setText(self.tr("Map:"))
        for index, method in enumerate(MAP_METHODS):
            self.combo.setItemText(index, method_label(method))
            self.combo.setItemData(index, method_tooltip(method), Qt.ItemDataRole.ToolTipRole)
        self.combo.setToolTip(self.tr("What the map shows: the attention α, or how much each source word "
                                      "contributed to the output (an attribution, computed after the decode)"))
        self.cancel.setToolTip(self.tr("Stop computing the attribution (the rows done stay)"))

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 (Qt's name)
        super().changeEvent(event)
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()

    def method(self) -> str:
        return self.combo.currentData() or ALPHA

    def set_method(self, method: str) -> None:
        """Show ``method`` (alpha, ig, grad, occlusion); the error lists the valid names."""
        self.combo.setCurrentIndex(self.combo.findData(check_method(method)))

    def show_progress(self, text: str, tooltip: str = "", running: bool = False) -> None:
        """The progress line (cut when narrow: its tooltip holds it whole); Cancel enabled while ``running``."""
        self.progress.setText(text)
        self.progress.setToolTip(tooltip or text)
        self.cancel.setEnabled(running)

    def restore(self, settings: QSettings) -> None:
        """The choice remembered last time; a missing or unknown one keeps α."""
        name = stored_text(settings, f"{self.prefix}/mapShows")
        if name in MAP_METHODS:
            self.set_method(name)

    def save(self, settings: QSettings) -> None:
        settings.setValue(f"{self.prefix}/mapShows", self.method())
