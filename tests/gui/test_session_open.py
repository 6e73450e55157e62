"""Opening a recorded session reads and checks the file in a worker, never in the window's thread, and
replays it once read; a refused file says why in one message (gui/translate/session_open.py)."""

from __future__ import annotations

import threading

import pytest
from PySide6.QtWidgets import QFileDialog, QMessageBox

import engine.records.session_file
from engine.records.session_file import Session
from engine.records.session_save import save_session
from gui.translate.tab import TranslateTab
from tests.gui.test_recording import SOURCE, TOKENS, greedy_steps

MODEL = {"name": "zh-en-additive", "sha256": "ab" * 32, "scorer": "additive", "scorer_label": "Additive (Bahdanau)",
         "formula": "e", "uses_attention": True, "source_language": "zh", "target_language": "en"}


@pytest.fixture
def tab(qtbot, monkeypatch):
    """The Translate tab, its session reader recording the thread each load runs in."""
    tab = TranslateTab()
    qtbot.addWidget(tab)
    tab.load_threads = []
    real_load = engine.records.session_file.load_session

    def recording_load(path):
        tab.load_threads.append(threading.current_thread())
        return real_load(path)

    monkeypatch.setattr(engine.records.session_file, "load_session", recording_load)
    yield tab
    tab.shutdown(5000)


def test_a_session_is_read_off_the_windows_thread_and_then_replayed(qtbot, tab, tmp_path, monkeypatch):
    path = save_session(tmp_path / "decode.session.json",
                        Session(MODEL, "我们走吧。", SOURCE, {"beam_size": 1, "seconds_per_step": 0.0},
                                tuple(greedy_steps())))
    monkeypatch.setattr(QFileDialog, "getOpenFileName", lambda *args: (str(path), ""))
    tab.exports.open_session()  # the File menu's Open a recorded session…
    qtbot.waitUntil(lambda: tab.exports.replay is not None and not tab.exports.jobs.running(), timeout=10_000)
    assert len(tab.load_threads) == 1 and tab.load_threads[0] is not threading.main_thread()
    dialog = tab.exports.replay
    qtbot.addWidget(dialog)
    dialog.timer.setInterval(1)
    qtbot.waitUntil(lambda: dialog.complete, timeout=5000)
    assert dialog.panel.target_tokens() == list(TOKENS)


def test_a_refused_file_says_why_in_one_message(qtbot, tab, tmp_path, monkeypatch):
    warnings = []
    monkeypatch.setattr(QMessageBox, "warning", lambda parent, title, text: warnings.append(text))
    damaged = tmp_path / "damaged.session.json"
    damaged.write_text("{not json", encoding="utf-8")
    tab.exports.sessions.open(damaged)
    qtbot.waitUntil(lambda: warnings != [], timeout=10_000)
    assert tab.load_threads[0] is not threading.main_thread()
    assert len(warnings) == 1 and "\n" not in warnings[0] and "not a session file" in warnings[0]
    assert not warnings[0].startswith("SessionFileError") and tab.exports.replay is None
