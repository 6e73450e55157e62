"""The Train tab's page: a placeholder until the Training view (gui/training/panel.py) is built.

Building the view takes about half a second of the window's thread and wants the engine (PyTorch)
imported, so with ``defer`` the page waits until the engine is ready and the tab is first chosen
(the first translation does not wait for it); without, the view is built at once. The page
implements the main window's tab protocol (gui/common/tab_protocol.py).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QT_TRANSLATE_NOOP, Qt, Signal
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from gui.common.tab_protocol import CloseQuestion

if TYPE_CHECKING:
    from gui.training.panel import TrainingPanel

TRAINING_STOP_MS = 10000  # a run checkpoints before it stops
STOP_TRAINING = CloseQuestion(  # in English; TrainTab.close_question gives it in the interface's language
    QT_TRANSLATE_NOOP("TrainTab", "Training in progress"),
    QT_TRANSLATE_NOOP("TrainTab", "A model is being trained. Stop the training and quit?\n\n"
                      "The run is stopped cleanly and can be resumed from its checkpoint later."))


class TrainTab(QWidget):
    """The Train tab: ``panel`` is the Training view once built (None before)."""

    shutdown_ms = TRAINING_STOP_MS
    modelSaved = Signal(str)  # the view's: a run wrote its model folder
    pointChosen = Signal(str, float)  # the view's: a curve was clicked (the run's folder, the step)

    def __init__(self, defer: bool = False, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.panel: TrainingPanel | None = None
        self._engine_ready = not defer
        self._closed = False
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.placeholder: QLabel | None = QLabel(self.tr("Loading the training tools…"))
        self.placeholder.setAlignment(Qt.AlignmentFlag.AlignCenter)
        layout.addWidget(self.placeholder)
        if not defer:
            self.build()

    def engine_ready(self) -> None:
        """The engine is imported: build the view now if the tab is the one on screen, else when it
        is first chosen."""
        self._engine_ready = True
        if self.isVisibleTo(self.window()):
            self.build()

    def build(self) -> TrainingPanel | None:
        """Put the Training view in place of the placeholder (once; never after shutdown)."""
        if self.panel is None and not self._closed:
            from gui.training.panel import TrainingPanel

            panel = TrainingPanel()
            panel.modelSaved.connect(self.modelSaved)
            panel.pointChosen.connect(self.pointChosen)
            self.panel = panel
            self.layout().replaceWidget(self.placeholder, panel)
            self.placeholder.deleteLater()
            self.placeholder = None
            panel.show()  # at once when the tab is on screen, else when it is chosen
        return self.panel

    # -- the tab protocol -------------------------------------------------------------------
    def start(self) -> None:
        """Nothing runs from the start: the view is built when the tab is chosen."""

    def shown(self) -> None:
        if self._engine_ready:
            self.build()

    def save_settings(self) -> None:
        """The form remembers its recent corpora itself (gui/training/form.py)."""

    @property
    def title(self) -> str:  # in the interface's language
        return self.tr("Train")

    def close_question(self) -> CloseQuestion | None:
        if self.panel is None or not self.panel.is_training():
            return None
        return CloseQuestion(self.tr(STOP_TRAINING.title), self.tr(STOP_TRAINING.text))

    def shutdown(self, timeout_ms: int = TRAINING_STOP_MS) -> bool:
        """Stop the run (it checkpoints first) and the run watchers, with a bounded wait."""
        self._closed = True
        return self.panel.stop_and_wait(timeout_ms) if self.panel is not None else True
