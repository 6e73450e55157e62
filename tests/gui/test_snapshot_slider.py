"""The training snapshots' slider spans the panel (beside its position text it was ~15 px wide), a long
CJK sample never widens the panel, and the sentence choice shows only when there are sentences to choose
(gui/training/snapshots.py)."""

from __future__ import annotations

import numpy as np
from PySide6.QtWidgets import QComboBox

from engine.training.events import SampleTranslation
from gui.training.records import Snapshot
from gui.training.snapshots import SnapshotView


def _snapshot(step: int) -> Snapshot:
    source = tuple("一九五二年三月十七日")
    sample = SampleTranslation("一九五二年三月十七日" * 3, "1952-03-17", "1952-03-17", source, tuple("1952-03-17"),
                               np.full((10, len(source)), 0.1, dtype=np.float32))
    return Snapshot(epoch=1, step=step, bleu=12.5, samples=(sample,))


def test_the_slider_spans_the_panel_and_the_sample_does_not_widen_it(qtbot):
    view = SnapshotView()
    qtbot.addWidget(view)
    narrow = view.minimumSizeHint().width()
    view.set_snapshots([_snapshot(100 * k) for k in range(1, 7)])
    assert view.minimumSizeHint().width() <= max(narrow, 200)  # the sample's table is cut, not laid out wider
    view.resize(420, 500)
    view.show()
    qtbot.waitExposed(view)
    assert view.slider.width() >= 0.9 * view.width()


def test_the_curves_leave_the_snapshots_room_for_every_label_at_1280_px(qtbot):
    from gui.training.curves import CurvesView

    curves = CurvesView()
    qtbot.addWidget(curves)
    # Beside the form (~490 px) the curves and the snapshots share ~770 px: at 545 px the curves' bar left the
    # snapshots 183 px, one column label of eleven; short export buttons leave them ~260 px, every label.
    assert curves.minimumSizeHint().width() <= 500


def test_the_sentence_choice_shows_once_a_validation_brings_sentences(qtbot):
    view = SnapshotView()
    qtbot.addWidget(view)
    view.show()
    qtbot.waitExposed(view)
    combo = view.findChild(QComboBox, "snapshotSampleCombo")
    assert not combo.isVisible()  # before the first validation: no empty box beside the title
    view.snapshot_added([_snapshot(100)])
    assert combo.isVisible() and combo.currentText() == "short sentence"
    view.set_snapshots([])  # another run, not validated yet
    assert not combo.isVisible()
