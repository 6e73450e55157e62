"""The beam tree docked under the Translate view's map (a splitter pane, objectName ``beamTreeDialog``): the
search of the sentence on screen, growing live in beam mode (the tree itself is gui.attention.beam_tree).
Its footer (``beamTreeStatus``) reads the current state (:func:`tree_footer`) or the node chosen."""

from __future__ import annotations

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QSizePolicy, QToolButton, QVBoxLayout, QWidget

from gui.attention.beam_tree import BeamTreeView
from gui.i18n import fill

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


class BeamTreePane(QFrame):
    """The beam tree docked under the map (a pane of the view's splitter, objectName ``beamTreeDialog`` as
    when it was a window of its own, 900 × 520 over the output, the map and the inspector): a title with
    the way to close it, the tree, its footer."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("beamTreeDialog")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 2, 4, 2)
        header = QHBoxLayout()
        self.title = QLabel("<b>" + self.tr("Beam tree") + "</b> — " + self.tr("hover for how to read it"))
        self.explanation = self.title  # how to read the tree: its tooltip (five lines over the map, as text)
        self.title.setToolTip(self.tr(EXPLANATION))
        self.title.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        header.addWidget(self.title, 1)
        self.close_button = QToolButton()
        self.close_button.setObjectName("beamTreeCloseButton")
        self.close_button.setText("×")
        self.close_button.setAutoRaise(True)
        self.close_button.setToolTip(self.tr("Hide the beam tree (the Beam tree button shows it again)"))
        self.close_button.clicked.connect(self.hide)
        header.addWidget(self.close_button)
        layout.addLayout(header)
        self.tree = BeamTreeView()
        self.tree.setToolTip(self.tr(EXPLANATION))
        self.tree.setMinimumHeight(80)
        layout.addWidget(self.tree, 1)
        self.status = QLabel()
        self.status.setObjectName("beamTreeStatus")
        self.status.setWordWrap(True)
        self.status.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)  # never widens the view
        layout.addWidget(self.status)

    def show_levels(self, levels: list[tuple[int, tuple]]) -> None:
        """Redraw the whole tree from the levels recorded so far (the footer is the tab's to set)."""
        self.tree.clear()
        self.tree.add_levels(levels)
        self.tree.fit()


BeamTreeDialog = BeamTreePane  # its name when it was a window of its own
