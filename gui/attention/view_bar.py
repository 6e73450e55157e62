"""The map's view choices: words or pieces, the colour scale, and a button that resets the zoom
(a row of three small controls).

Used under the Translate tab's heatmap and in the Compare tab, where one choice applies to every
map. Object names are given by the owner (a tab may hold two bars): ``<prefix>WordView`` (the check
box), ``<prefix>ColorScale`` (the combo box) and ``<prefix>ResetZoom`` (the button). Both choices are remembered between sessions under
``<prefix>/wordView`` and ``<prefix>/colorScale`` (:meth:`MapViewBar.restore`, :meth:`MapViewBar.save`).

When the Chinese word list cannot be used (engine/text/segment.py falls back to characters), the Words box
says so once: a warning mark, the reason in its tooltip and ``wordListNoticed`` (never a dialog).
"""

from __future__ import annotations

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, QSettings, Qt, Signal
from PySide6.QtWidgets import QCheckBox, QComboBox, QHBoxLayout, QLabel, QStyle, QToolButton, QWidget

from engine.text import segment  # torch-free
from gui.attention.color_scale import COLOR_SCALES, DEFAULT_SCALE
from gui.stored_settings import stored_flag, stored_text

WORD_VIEW_TIP = QT_TRANSLATE_NOOP(
    "MapViewBar", "Words: sub-word pieces merged into words — English by the ▁ word-start marks, Chinese by a "
    "word segmenter (jieba); α summed over a word's source pieces and averaged over its output "
    "pieces, so every row still sums to 1. Off: the model's real units, pieces that continue a "
    "word marked ## and a piece that is only the word-start mark shown as ␣.")


class MapViewBar(QWidget):
    """Words / pieces and the colour scale; says when either changes, and when the zoom is to be reset."""

    wordViewChanged = Signal(bool)
    colorScaleChanged = Signal(str)  # a key of gui.attention.color_scale.COLOR_SCALES
    resetZoomRequested = Signal()  # the map(s) back to the view they open with
    wordListNoticed = Signal(str)  # once: why Chinese words are shown as characters (engine.text.segment)

    def __init__(self, prefix: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.prefix = prefix
        self.words = QCheckBox(self.tr("Words"))
        self.words.setObjectName(f"{prefix}WordView")
        self.words.setChecked(True)
        self.words.setToolTip(QCoreApplication.translate("MapViewBar", WORD_VIEW_TIP))
        self.word_list_notice = ""  # said once, when the segmenter fell back to characters
        self.scale = QComboBox()
        self.scale.setObjectName(f"{prefix}ColorScale")
        for name, scale in COLOR_SCALES.items():
            self.scale.addItem(QCoreApplication.translate("ColorScale", scale.title), name)
            self.scale.setItemData(self.scale.count() - 1, QCoreApplication.translate("ColorScale", scale.tooltip),
                                   Qt.ItemDataRole.ToolTipRole)
        self.scale.setCurrentIndex(self.scale.findData(DEFAULT_SCALE))
        self.scale.setToolTip(self.tr("Colour scale of the map (its colour bar says which)"))
        self.reset_zoom = QToolButton()
        self.reset_zoom.setObjectName(f"{prefix}ResetZoom")
        self.reset_zoom.setText(self.tr("Reset zoom"))
        self.reset_zoom.setToolTip(self.tr("Every column in view again, and the rows as the map opened (double-click "
                                           "a map does the same)"))
        self.reset_zoom.clicked.connect(self.resetZoomRequested)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.words)
        layout.addWidget(QLabel(self.tr("Colours:")))
        layout.addWidget(self.scale)
        layout.addWidget(self.reset_zoom)
        self.words.toggled.connect(self.wordViewChanged)
        self.scale.currentIndexChanged.connect(lambda _index: self.colorScaleChanged.emit(self.scale_name()))

    def word_view(self) -> bool:
        return self.words.isChecked()

    def note_word_list(self) -> None:
        """Once the Chinese segmenter has loaded (never loads it): if its word list could not be used, mark
        the Words box, give the reason in its tooltip and emit ``wordListNoticed`` — once, not per map."""
        if self.word_list_notice or not segment.is_ready():
            return
        notice = segment.segmenter_notice()
        if not notice:
            return
        self.word_list_notice = notice[0].upper() + notice[1:] + "."
        self.words.setIcon(self.style().standardIcon(QStyle.StandardPixmap.SP_MessageBoxWarning))
        self.words.setToolTip(self.word_list_notice + "\n\n" + QCoreApplication.translate("MapViewBar", WORD_VIEW_TIP))
        self.wordListNoticed.emit(self.word_list_notice)

    def scale_name(self) -> str:
        return self.scale.currentData() or DEFAULT_SCALE

    def set_word_view(self, words: bool) -> None:
        self.words.setChecked(words)

    def set_scale(self, name: str) -> None:
        """Choose the colour scale called ``name``; the error lists the valid names."""
        index = self.scale.findData(name)
        if index < 0:
            raise ValueError(f"unknown colour scale {name!r}: choose one of {', '.join(COLOR_SCALES)}")
        self.scale.setCurrentIndex(index)

    def restore(self, settings: QSettings) -> None:
        """Take the choices remembered last time; a missing or unknown value keeps the default."""
        self.set_word_view(stored_flag(settings, f"{self.prefix}/wordView", self.word_view()))
        name = stored_text(settings, f"{self.prefix}/colorScale")
        if name in COLOR_SCALES:
            self.set_scale(name)

    def save(self, settings: QSettings) -> None:
        settings.setValue(f"{self.prefix}/wordView", self.word_view())
        settings.setValue(f"{self.prefix}/colorScale", self.scale_name())
