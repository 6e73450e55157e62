"""The beam tree beside the Translate view (non-modal, objectName ``beamTreeDialog``): the search of
the sentence on screen, growing live in beam mode (the tree itself is gui.attention.beam_tree)."""

from __future__ import annotations

from PySide6.QtWidgets import QDialog, QLabel, QVBoxLayout, QWidget

from gui.attention.beam_tree import BeamTreeView
from gui.screen_fit import fit_to_screen

EXPLANATION = ("Beam search, step by step: at each output position the 2K best continuations of the live "
               "hypotheses. <b>Bold</b>: kept · faded: pruned · <span style='color:#00783c'>✓</span>: finished, "
               "with its score log p / lp (GNMT's length penalty). Background: the token's probability. Click a "
               "node to see its hypothesis and attention; ← → ↑ ↓ walk the tree; Enter picks a node (a finished "
               "one becomes the output shown, a live one is continued by the model from there).")


class BeamTreeDialog(QDialog):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("beamTreeDialog")
        self.setWindowTitle("Beam tree")
        fit_to_screen(self, 900, 520)
        layout = QVBoxLayout(self)
        self.explanation = QLabel(EXPLANATION)
        self.explanation.setWordWrap(True)
        layout.addWidget(self.explanation)
        self.tree = BeamTreeView()
        layout.addWidget(self.tree, 1)
        self.status = QLabel()
        self.status.setObjectName("beamTreeStatus")
        self.status.setWordWrap(True)
        layout.addWidget(self.status)

    def show_levels(self, levels: list[tuple[int, tuple]]) -> None:
        """Redraw the whole tree from the levels recorded so far."""
        self.tree.clear()
        self.tree.add_levels(levels)
        self.tree.fit()
        self.status.setText("" if levels else "Translate with a beam of 2 or more to see the search.")
