"""The curves explain the raw loss's spikes for a run that joins long examples (gui/training/loss_note.py),
and say nothing of them for a run that does not."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

from gui.training.curves import CurvesView
from gui.training.records import RunRecord
from gui.training.settings import CORPUS_PRESET, TASK_PRESET


def _record(name: str, train) -> RunRecord:
    return RunRecord(name, SimpleNamespace(train=train), Path(name), "#000000")  # type: ignore[arg-type]


def test_the_spike_note_is_shown_while_a_run_that_joins_long_examples_is_plotted(qtbot):
    curves = CurvesView()
    qtbot.addWidget(curves)
    dates = _record("dates", TASK_PRESET.train)
    curves.add_run(dates)
    assert curves.spike_note.isHidden()  # single pairs only: nothing to explain
    corpus = _record("corpus", CORPUS_PRESET.train)  # 2–8 pairs joined for a fifth of each epoch
    curves.add_run(corpus)
    assert not curves.spike_note.isHidden() and "long joined examples" in curves.spike_note.text()
    curves.set_run_visible(corpus, False)
    assert curves.spike_note.isHidden()
