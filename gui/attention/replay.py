"""Replay a recorded decode from its session file (engine.session_file), without its model.

The dialog shows the session's input and a note on the model (the one in use, or another: the
decode is replayed from the file either way, never decoded again), and plays the recorded step
events into an attention panel at the recorded speed — the heatmap filling row by row, the step
inspector following — with a button to play it again.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from gui.attention.panel import AttentionPanel

if TYPE_CHECKING:
    from engine.search import DecodeStep
    from engine.session_file import Session

FASTEST_REPLAY_MS = 150  # a session recorded at full speed replays at this pace, so that it can be watched


class ReplayDialog(QDialog):
    """Plays a session's step events into an attention panel."""

    def __init__(self, session: Session, note: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("replayDialog")
        self.setWindowTitle(f"Replay: {session.model['name'] or 'a recorded decode'}")
        self.resize(900, 640)
        self.session = session
        self.shown: list[DecodeStep] = []  # the events played so far
        heading = QLabel(f"<b>{session.input}</b>")
        heading.setWordWrap(True)
        self.note = QLabel(note)
        self.note.setObjectName("replayNote")
        self.note.setWordWrap(True)
        self.panel = AttentionPanel()
        self.play_button = QPushButton("Play again")
        self.play_button.setObjectName("replayPlayButton")
        self.play_button.clicked.connect(self.play)
        self.position = QLabel()
        controls = QHBoxLayout()
        controls.addWidget(self.play_button)
        controls.addWidget(self.position, 1)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(heading)
        layout.addWidget(self.note)
        layout.addWidget(self.panel, 1)
        layout.addLayout(controls)
        layout.addWidget(buttons)
        self.timer = QTimer(self)
        seconds = float(session.settings["seconds_per_step"])
        self.timer.setInterval(round(seconds * 1000) if seconds > 0 else FASTEST_REPLAY_MS)
        self.timer.timeout.connect(self._next)

    def play(self) -> None:
        """Start from the first event."""
        model = self.session.model
        self.shown = []
        self.panel.begin(self.session.source_tokens, bool(model["uses_attention"]), model["formula"],
                         model["scorer_label"])
        self.timer.start()
        self._next()

    @property
    def complete(self) -> bool:
        return len(self.shown) == len(self.session.steps)

    def _next(self) -> None:
        if self.complete:
            self.timer.stop()
            self.panel.end()
            return
        step = self.session.steps[len(self.shown)]
        self.shown.append(step)
        self.panel.show_step(step)
        self.position.setText(f"step {len(self.shown)} of {len(self.session.steps)}")
        if self.complete:
            self.timer.stop()
            self.panel.end()
