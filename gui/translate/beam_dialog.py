"""The beam tree beside the Translate view (non-modal, objectName ``beamTreeDialog``): the search of
the sentence on screen, growing live in beam mode (the tree itself is gui.attention.beam_tree). Its
footer (``beamTreeStatus``) reads the current state (:func:`tree_footer`) or the node chosen."""

from __future__ import annotations

from PySide6.QtWidgets import QDialog, QLabel, QVBoxLayout, QWidget

from gui.attention.beam_tree import BeamTreeView
from gui.screen_fit import fit_to_screen

EXPLANATION = ("Beam search, step by step: at each output position the 2K best continuations of the live "
               "hypotheses. <b>Bold</b>: kept · faded: pruned · <span style='color:#00783c'>✓</span>: finished, "
               "with its score log p / lp (GNMT's length penalty; plus its coverage penalty cp when the decoding "
               "uses one). Background: the token's probability. Click a "
               "node to see its hypothesis and attention; ← → ↑ ↓ walk the tree; Enter picks a node (a finished "
               "one becomes the output shown, a live one is continued by the model from there).")


def tree_footer(beam_size: int, running: bool, steps: int, finished: int, continued: int = 0) -> str:
    """The footer for a run (or, with none, the next one) of beam ``beam_size``: searching or done,
    its ``steps`` levels and ``finished`` hypotheses; ``continued`` tokens fixed by a picked node."""
    if beam_size < 2:
        return "Beam 1 is greedy search: one hypothesis, no tree. Set Beam to 2 or more and translate."
    start = f"Continued from {continued} fixed token{'s' if continued != 1 else ''} (a picked node or candidate). " \
        if continued else ""
    if running:
        return start + f"Searching with a beam of {beam_size}" + (f": step {steps}…" if steps else "…")
    if not steps:
        return f"Beam of {beam_size}: translate a sentence to see its search."
    return start + (f"Beam of {beam_size}: {steps} step{'s' if steps != 1 else ''}, {finished} finished "
                    f"hypothes{'e' if finished != 1 else 'i'}s. Click a node to see its hypothesis and attention.")


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
        """Redraw the whole tree from the levels recorded so far (the footer is the tab's to set)."""
        self.tree.clear()
        self.tree.add_levels(levels)
        self.tree.fit()
