"""Replay a recorded decode from its session file (engine.records.session_file), without its model.

The dialog shows the session's input and a note on the model (the one in use, or another: the
decode is replayed from the file either way, never decoded again), and plays the recorded step
events into an attention panel at the recorded speed — the heatmap filling row by row, the step
inspector following, and for a beam decode its beam tree growing one step at a time beside them
(a node chosen shows its hypothesis in the heatmap) — with a button to play it again.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from engine.settings import scorer_row  # torch-free
from gui.attention.beam_tree import BeamTreeView
from gui.attention.panel import AttentionPanel

if TYPE_CHECKING:
    from engine.decoding import DecodeStep
    from engine.records import Session

FASTEST_REPLAY_MS = 150  # a session recorded at full speed replays at this pace, so that it can be watched


class ReplayDialog(QDialog):
    """Plays a session's step events into an attention panel."""

    def __init__(self, session: Session, note: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("replayDialog")
        self.setWindowTitle(self.tr("Replay: %1").replace("%1", session.model["name"] or self.tr("a recorded decode")))
        self.resize(900, 640)
        self.session = session
        self.shown: list[DecodeStep] = []  # the events played so far
        # The file's own words, shown as they are: an edited file's markup is never laid out as rich text.
        self.heading = QLabel(session.input)
        self.heading.setObjectName("replayHeading")
        self.heading.setTextFormat(Qt.TextFormat.PlainText)
        bold = self.heading.font()
        bold.setBold(True)
        self.heading.setFont(bold)
        self.heading.setWordWrap(True)
        self.note = QLabel(note)  # names the recorded model, as the file names it
        self.note.setObjectName("replayNote")
        self.note.setTextFormat(Qt.TextFormat.PlainText)
        self.note.setWordWrap(True)
        self.panel = AttentionPanel()
        # A recording has no model to continue from a candidate: its candidates are listed, not offered as
        # links that did nothing ("click one to make the model continue from it").
        self.panel.inspector.choosable = False
        self.play_button = QPushButton(self.tr("Play again"))
        self.play_button.setObjectName("replayPlayButton")
        self.play_button.clicked.connect(self.play)
        self.position = QLabel()
        controls = QHBoxLayout()
        controls.addWidget(self.play_button)
        controls.addWidget(self.position, 1)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.heading)
        layout.addWidget(self.note)
        # A beam decode's tree beside the map (the candidates each step weighed, as recorded).
        self.tree: BeamTreeView | None = None
        if any(step.beam_level for step in session.steps):
            self.tree = BeamTreeView()
            self.tree.setObjectName("replayBeamTree")
            self.tree.nodeChosen.connect(self._show_node)
            beside = QSplitter(Qt.Orientation.Horizontal)
            beside.addWidget(self.panel)
            beside.addWidget(self.tree)
            beside.setSizes([600, 300])
            layout.addWidget(beside, 1)
        else:
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
        if self.tree is not None:
            self.tree.clear()
        uses_attention = bool(model["uses_attention"])  # the registry's row, or one of the file's texts
        scorer = scorer_row(str(model["scorer"]), str(model["scorer_label"]), str(model["formula"]), uses_attention)
        self.panel.begin(self.session.source_tokens, uses_attention, scorer)
        self.timer.start()
        self._next()

    @property
    def complete(self) -> bool:
        return len(self.shown) == len(self.session.steps)

    def _next(self) -> None:
        if self.complete:
            self.timer.stop()
            self.panel.end()
            if self.tree is not None:
                self.tree.fit()
            return
        step = self.session.steps[len(self.shown)]
        self.shown.append(step)
        self.panel.show_step(step)
        if self.tree is not None and step.beam_level:
            self.tree.add_level(step.index, step.beam_level)
        self.position.setText(self.tr("step %1 of %2").replace("%1", str(len(self.shown))).replace(
            "%2", str(len(self.session.steps))))
        if self.complete:
            self.timer.stop()
            self.panel.end()
            if self.tree is not None:
                self.tree.fit()

    def _show_node(self, node) -> None:
        """A node of the tree chosen: its hypothesis in the heatmap (a pruned one has no step of its own)."""
        if node.step is not None:
            self.panel.show_hypothesis(node.step)
