"""The Training tab (being built): the main window relies on this interface."""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QWidget


class TrainingPanel(QWidget):
    modelSaved = Signal(str)  # a model folder was written (best model of a run)

    def is_training(self) -> bool:
        return False

    def stop_and_wait(self, timeout_ms: int = 5000) -> bool:
        """Stop the run (a resumable checkpoint is saved) and wait for its thread; True if ended."""
        return True
