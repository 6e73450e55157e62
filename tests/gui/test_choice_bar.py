"""The Translate view's choice bar shows every registered mechanism's label whole."""

from __future__ import annotations

from PySide6.QtWidgets import QStyle, QStyleOptionComboBox

from engine.settings.scorer_table import SCORER_TABLE
from gui.translate.choices import ScorerOption
from gui.translate.controls import ChoiceBar


def test_scorer_box_shows_every_registered_label_whole(qtbot):
    bar = ChoiceBar()
    qtbot.addWidget(bar)
    options = [ScorerOption(info, None, "no model") for info in SCORER_TABLE.values()]
    bar.set_scorers(options, None)
    bar.show()
    combo = bar.scorer_combo
    combo.resize(combo.sizeHint())
    option = QStyleOptionComboBox()
    combo.initStyleOption(option)
    field = combo.style().subControlRect(QStyle.ComplexControl.CC_ComboBox, option,
                                         QStyle.SubControl.SC_ComboBoxEditField, combo)
    widest = max(SCORER_TABLE.values(), key=lambda info: combo.fontMetrics().horizontalAdvance(info.label))
    assert combo.fontMetrics().horizontalAdvance(widest.label) <= field.width(), widest.label
