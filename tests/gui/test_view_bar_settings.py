"""The map view's choices (words or pieces, the colour scale) are remembered, and a bad stored value
falls back to the default instead of stopping the app."""

from __future__ import annotations

from PySide6.QtCore import QSettings

from gui.attention.color_scale import COLOR_SCALES, DEFAULT_SCALE
from gui.attention.view_bar import MapViewBar


def test_choices_come_back_in_a_new_bar_with_the_same_prefix_only(qtbot):
    other_scale = next(name for name in COLOR_SCALES if name != DEFAULT_SCALE)
    bar = MapViewBar("attention")
    qtbot.addWidget(bar)
    bar.set_word_view(False)
    bar.set_scale(other_scale)
    bar.save(QSettings())
    again, compare = MapViewBar("attention"), MapViewBar("compare")
    qtbot.addWidget(again)
    qtbot.addWidget(compare)
    again.restore(QSettings())
    compare.restore(QSettings())
    assert (again.word_view(), again.scale_name()) == (False, other_scale)
    assert (compare.word_view(), compare.scale_name()) == (True, DEFAULT_SCALE)


def test_restoring_says_so_through_the_bars_signals(qtbot):
    other_scale = next(name for name in COLOR_SCALES if name != DEFAULT_SCALE)
    settings = QSettings()
    settings.setValue("attention/wordView", False)
    settings.setValue("attention/colorScale", other_scale)
    bar = MapViewBar("attention")
    qtbot.addWidget(bar)
    words, scales = [], []
    bar.wordViewChanged.connect(words.append)
    bar.colorScaleChanged.connect(scales.append)
    bar.restore(settings)
    assert words == [False] and scales == [other_scale]


def test_bad_stored_values_keep_the_defaults(qtbot):
    settings = QSettings()
    for word_view, scale in (("maybe", "rainbow"), (7, ["a", "b"]), ("", 3)):
        settings.setValue("attention/wordView", word_view)
        settings.setValue("attention/colorScale", scale)
        bar = MapViewBar("attention")
        qtbot.addWidget(bar)
        bar.restore(settings)
        assert (bar.word_view(), bar.scale_name()) == (True, DEFAULT_SCALE)
