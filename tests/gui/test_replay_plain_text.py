"""A session file's words are shown as words: its input, the model it names and its tokens are never
laid out as rich text in the replay (an edited file could otherwise lay out HTML and show local images)."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import Qt as QtGui
from PySide6.QtWidgets import QLabel

from engine.records.session_file import Session, load_session
from engine.records.session_save import save_session
from gui.attention.replay import ReplayDialog
from tests.gui.test_recording import greedy_steps

MARKUP = '<img src="file:///etc/hosts.png"><table><tr><td>x</td></tr></table>'
SOURCE = (MARKUP, "走", "吧", "。")


def lays_out_markup(label: QLabel) -> bool:
    """True when the label renders its text as rich text (Qt's own rule for AutoText)."""
    shown = label.textFormat()
    return shown == Qt.TextFormat.RichText or (shown == Qt.TextFormat.AutoText and QtGui.mightBeRichText(label.text()))


def test_the_replay_shows_an_edited_files_markup_as_plain_text(qtbot, tmp_path):
    model = {"name": f"zh-en {MARKUP}", "sha256": "ab" * 32, "scorer": "additive", "scorer_label": "Additive",
             "formula": "e", "uses_attention": True, "source_language": "zh", "target_language": "en"}
    path = save_session(tmp_path / "edited.session.json",
                        Session(model, MARKUP, SOURCE, {"beam_size": 1, "seconds_per_step": 0.0}, tuple(greedy_steps())))
    session = load_session(path)
    dialog = ReplayDialog(session, session.note("cd" * 32, "zh-en-dot"))
    qtbot.addWidget(dialog)
    dialog.timer.setInterval(1)
    dialog.play()
    qtbot.waitUntil(lambda: dialog.complete, timeout=5000)
    dialog.panel._on_cell_hovered(0, 0)  # the hover line names the source token under the pointer
    showing = [label for label in dialog.findChildren(QLabel) if MARKUP in label.text()]
    assert len(showing) >= 3  # the heading, the note and the hover line
    assert [label.objectName() for label in showing if lays_out_markup(label)] == []
