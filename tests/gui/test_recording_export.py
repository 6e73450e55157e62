"""The Translate tab's recordings run as jobs (gui/translate/run_export.py): the window only starts them,
shows their progress, and hears how they ended — a cancel leaves the file at the path as it was (a
failed MP4, one line in one message: test_recording_mp4.py). The jobs run inline here (tests/inline_jobs.py), a frame at a time."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from PySide6.QtCore import Signal
from PySide6.QtWidgets import QMessageBox, QPushButton, QWidget

from engine.settings import SCORER_TABLE
from gui.attention.panel import AttentionPanel
from gui.translate.run_export import ExportParts, RunExport
from tests.gui.test_recording import SOURCE, greedy_steps
from tests.gui.test_recording_stream import OLD, leftovers
from tests.inline_jobs import InlineJobs


class FakeTab(QWidget):
    """What RunExport reads of the Translate tab: its attention panel and status line."""

    statusMessage = Signal(str)

    def __init__(self, panel: AttentionPanel) -> None:
        super().__init__()
        self.view = SimpleNamespace(attention_panel=panel)
        self.run = None
        self.said: list[str] = []
        self.statusMessage.connect(self.said.append)

    def parts(self) -> ExportParts:
        return ExportParts(self, self.view.attention_panel, lambda: self.run, lambda: "", lambda: 0.0,
                           self.statusMessage.emit, lambda: None)


@pytest.fixture
def exports(qtbot, monkeypatch):
    panel = AttentionPanel()
    qtbot.addWidget(panel)
    panel.begin(SOURCE, True, SCORER_TABLE["additive"])
    for step in greedy_steps():
        panel.show_step(step)
    panel.set_word_view(False)  # a frame per piece (the Words view has a frame per word)
    tab = FakeTab(panel)
    qtbot.addWidget(tab)
    warnings: list[str] = []
    monkeypatch.setattr(QMessageBox, "warning", lambda parent, title, text: warnings.append(text))
    exports = RunExport(tab.parts(), InlineJobs())
    exports.warnings = warnings
    return exports


def test_a_gif_is_written_by_a_job_that_shows_its_progress(exports, tmp_path):
    target = tmp_path / "decode.gif"
    assert exports.record("gif", target)
    job = exports.jobs.started[-1]
    assert job.name == "record gif" and not target.exists()  # nothing written in the window's turn
    job.run(limit=2)
    assert exports.progress.value() == 2 and exports.progress.maximum() == len(greedy_steps())
    assert "frame 2 of 4" in exports.progress.labelText()
    job.run()
    assert target.is_file() and exports.parts.window.said == [f"Saved {target}"]
    assert exports.recording is None and exports.progress is None


def test_cancel_leaves_the_file_that_was_there(exports, tmp_path):
    target = tmp_path / "decode.gif"
    target.write_bytes(OLD)
    exports.record("gif", target)
    job = exports.jobs.started[-1]
    job.run(limit=1)
    exports.progress.findChild(QPushButton).click()  # the dialog's Cancel button
    job.run()
    assert target.read_bytes() == OLD and leftovers(tmp_path) == []
    assert exports.parts.window.said == [f"Recording cancelled: {target} left as it was"]
    assert exports.recording is None


def test_a_session_is_saved_by_stages_and_one_recording_runs_at_a_time(exports, tmp_path, monkeypatch):
    infos: list[str] = []
    monkeypatch.setattr(QMessageBox, "information", lambda parent, title, text: infos.append(text))
    target = tmp_path / "decode.session.json"
    assert exports.record("session", target)
    assert not exports.record("gif", tmp_path / "other.gif") and "still being written" in infos[0]
    job = exports.jobs.started[-1]
    job.run(limit=1)
    assert "checking its size" in exports.progress.labelText()
    job.run()
    assert exports.parts.window.said == [f"Saved {target}"]
    from engine.records.session_file import load_session

    assert [step.token for step in load_session(target).steps] == [s.token for s in greedy_steps()]


def test_nothing_to_record_starts_no_job(qtbot, monkeypatch, tmp_path):
    warnings: list[str] = []
    monkeypatch.setattr(QMessageBox, "warning", lambda parent, title, text: warnings.append(text))
    empty = AttentionPanel()
    qtbot.addWidget(empty)
    tab = FakeTab(empty)
    qtbot.addWidget(tab)
    exports = RunExport(tab.parts(), InlineJobs())
    assert not exports.record("gif", tmp_path / "x.gif")
    assert exports.jobs.started == [] and "translate a sentence first" in warnings[0]
    (tmp_path / "there.gif").mkdir()
    empty.begin(SOURCE, True, SCORER_TABLE["additive"])
    for step in greedy_steps():
        empty.show_step(step)
    assert not exports.record("gif", tmp_path / "there.gif") and "it is a folder" in warnings[-1]
