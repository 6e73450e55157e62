"""The exports' and the session opener's decisions (gui/translate/run_export.py, session_open.py), driven
through their parts as mocks: what an export says of the run, that a second recording waits for the first,
that only the current job's ending is reported, and that a session read is replayed with the model in use's
note. Dialogs and message boxes are mocks: no widget is built."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from unittest.mock import MagicMock

import pytest
from PySide6.QtWidgets import QWidget

import gui.attention.replay
import gui.translate.run_export as run_export
import gui.translate.session_open as session_open
from gui.translate.run_export import ExportParts, RunExport
from gui.translate.session_open import SessionOpener
from gui.workers import Job, JobStarter


def fake_jobs() -> MagicMock:
    jobs = MagicMock(spec=JobStarter)
    jobs.start.side_effect = lambda factory, name, *rest: MagicMock(spec=Job, id=len(jobs.start.mock_calls))
    return jobs


@pytest.fixture
def parts():
    bundle = SimpleNamespace(scorer="additive", folder=Path("zh-en-additive"), source_language="zh",
                             target_language="en", info={"weights": {"sha256": "abc"}})
    run = SimpleNamespace(bundle=bundle, beam_size=3, prepared=SimpleNamespace(text="我爱你"))
    return ExportParts(window=MagicMock(spec=QWidget), panel=MagicMock(), run=MagicMock(return_value=run),
                       output_text=MagicMock(return_value="I love you"), seconds_per_step=MagicMock(return_value=0.25),
                       say=MagicMock(), model=MagicMock(return_value=bundle))


@pytest.fixture
def boxes(monkeypatch):
    boxes = MagicMock()
    monkeypatch.setattr(run_export, "QMessageBox", boxes)
    monkeypatch.setattr(session_open, "QMessageBox", boxes)
    monkeypatch.setattr(run_export, "QProgressDialog", MagicMock())
    return boxes


def test_an_export_says_what_was_decoded_with_which_model_and_search(parts):
    meta = RunExport(parts, fake_jobs()).metadata()
    assert meta["source"] == "我爱你" and meta["text"] == "I love you" and meta["model"] == "zh-en-additive"
    assert meta["beam_size"] == 3 and meta["seconds_per_step"] == 0.25 and meta["model_sha256"] == "abc"
    assert meta["direction"] == "zh-en"


def test_no_run_no_metadata(parts):
    parts.run.return_value = None
    assert RunExport(parts, fake_jobs()).metadata() == {}


def test_a_second_recording_waits_for_the_first(parts, boxes, monkeypatch, tmp_path):
    monkeypatch.setattr(run_export, "recording_job", lambda kind, panel, path, meta: SimpleNamespace(total=4, frames=iter))
    exports = RunExport(parts, fake_jobs())
    assert exports.record("gif", tmp_path / "a.gif")
    assert not exports.record("gif", tmp_path / "b.gif")
    assert exports.jobs.start.call_count == 1
    boxes.information.assert_called_once()
    assert str(tmp_path / "a.gif") in boxes.information.call_args.args[2]


def test_only_the_current_recordings_end_is_reported(parts, boxes, monkeypatch, tmp_path):
    monkeypatch.setattr(run_export, "recording_job", lambda kind, panel, path, meta: SimpleNamespace(total=4, frames=iter))
    exports = RunExport(parts, fake_jobs())
    exports.record("gif", tmp_path / "a.gif")
    current = exports.recording.id
    exports._written(current + 1, tmp_path / "old.gif")
    parts.say.assert_not_called()
    exports._written(current, tmp_path / "a.gif")
    parts.say.assert_called_once_with(f"Saved {tmp_path / 'a.gif'}")
    exports.recording.worker = SimpleNamespace(aborted=True)
    exports._ended(current)
    assert exports.recording is None and exports.progress is None
    parts.say.assert_called_with(f"Recording cancelled: {tmp_path / 'a.gif'} left as it was")


def test_a_session_being_read_is_dropped_for_the_next_one(parts, boxes):
    opener = SessionOpener(parts.window, fake_jobs(), parts.say, parts.model)
    first = opener.open(Path("one.session.json"))
    parts.say.assert_called_once_with("Reading one.session.json…")
    opener.open(Path("two.session.json"))
    first.cancel.assert_called_once_with()
    opener._refused(first.id, "SessionFileError: damaged", "")
    boxes.warning.assert_not_called()  # the dropped file's refusal is not news
    opener._refused(opener.loading.id, "SessionFileError: not a session", "")
    assert boxes.warning.call_args.args[2] == "not a session" and opener.loading is None


def test_a_session_read_is_replayed_with_the_note_on_the_model_in_use(parts, monkeypatch):
    replay = MagicMock()
    monkeypatch.setattr(gui.attention.replay, "ReplayDialog", replay)
    opener = SessionOpener(parts.window, fake_jobs(), parts.say, parts.model)
    job = opener.open(Path("one.session.json"))
    session = MagicMock()
    opener._read(job.id + 1, session)
    replay.assert_not_called()
    opener._read(job.id, session)
    session.note.assert_called_once_with("abc", "zh-en-additive")
    replay.assert_called_once_with(session, session.note.return_value, parts.window)
    replay.return_value.play.assert_called_once_with()
