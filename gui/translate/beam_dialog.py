"""The beam tree beside the Translate view (non-modal, objectName ``beamTreeDialog``): the search of
the sentence on screen, growing live in beam mode (the tree itself is gui.attention.beam_tree). Its
footer (``beamTreeStatus``) reads the current state (:func:`tree_footer`) or the node chosen."""

from __future__ import annotations

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication
from PySide6.QtWidgets import QDialog, QLabel, QVBoxLayout, QWidget

from gui.attention.beam_tree import BeamTreeView
from gui.i18n import fill
from gui.screen_fit import fit_to_screen

EXPLANATION = QT_TRANSLATE_NOOP("BeamTreeDialog", "Beam search, step by step: at each output position the 2K best continuations of the live "
               "hypotheses. <b>Bold</b>: kept · faded: pruned · <span style='color:#00783c'>✓</span>: finished, "
               "with its score log p / lp (GNMT's length penalty; plus its coverage penalty cp when the decoding "
               "uses one). Background: the token's probability. Click a "
               "node to see its hypothesis and attention; ← → ↑ ↓ walk the tree; Enter picks a node (a finished "
               "one becomes the output shown, a live one is continued by the model from there).")


def tree_footer(beam_size: int, running: bool, steps: int, finished: int, continued: int = 0) -> str:
    """The footer for a run (or, with none, the next one) of beam ``beam_size``: searching or done,
    its ``steps`` levels and ``finished`` hypotheses; ``continued`` tokens fixed by a picked node."""
    if beam_size < 2:
        return QCoreApplication.translate(
            "BeamTreeDialog", "Beam 1 is greedy search: one hypothesis, no tree. Set Beam to 2 or more and translate.")
    start = ""
    if continued:
        start = (QCoreApplication.translate("BeamTreeDialog", "Continued from 1 fixed token (a picked node or candidate). ")
                 if continued == 1 else QCoreApplication.translate(
                     "BeamTreeDialog", "Continued from %1 fixed tokens (a picked node or candidate). ").replace(
                     "%1", str(continued)))
    if running:
        if steps:
            return start + fill(QCoreApplication.translate("BeamTreeDialog", "Searching with a beam of %1: step %2…"),
                                beam_size, steps)
        return start + QCoreApplication.translate("BeamTreeDialog", "Searching with a beam of %1…").replace(
            "%1", str(beam_size))
    if not steps:
        return QCoreApplication.translate("BeamTreeDialog", "Beam of %1: translate a sentence to see its search.").replace(
            "%1", str(beam_size))
    counts = fill(QCoreApplication.translate("BeamTreeDialog", "1 step") if steps == 1 else
                  QCoreApplication.translate("BeamTreeDialog", "%1 steps"), steps)
    hypotheses = fill(QCoreApplication.translate("BeamTreeDialog", "1 finished hypothesis") if finished == 1 else
                      QCoreApplication.translate("BeamTreeDialog", "%1 finished hypotheses"), finished)
    return start + fill(QCoreApplication.translate(
        "BeamTreeDialog", "Beam of %1: %2, %3. Click a node to see its hypothesis and attention."),
        beam_size, counts, hypotheses)


class BeamTreeDialog(QDialog):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("beamTreeDialog")
        self.setWindowTitle(self.tr("Beam tree"))
        fit_to_screen(self, 900, 520)
        layout = QVBoxLayout(self)
        self.explanation = QLabel(self.tr(EXPLANATION))
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
