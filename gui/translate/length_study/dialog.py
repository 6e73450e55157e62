"""The length study as a non-modal dialog of the Translate tab, for the direction on screen.

:meth:`LengthStudyDialog.show_direction` reads the study stored in the model folder behind each
scorer of the direction (``config.json`` only, through the engine) and draws them; it is called
when the dialog is opened and again whenever the Translate tab's direction or catalog changes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QLabel, QVBoxLayout, QWidget

from gui.screen_fit import fit_to_screen
from gui.translate.length_study.model import gather, read_studies
from gui.translate.length_study.view import LengthStudyView

if TYPE_CHECKING:
    from gui.translate.choices import ModelChoices

STUDY_BEAM = 1  # the app draws the greedy study
NO_DIRECTION = "No model yet: train one in the Train tab, then record its length study."


class LengthStudyDialog(QDialog):
    """A window beside the main one: the length study of one direction's models."""

    rowChosen = Signal(str)  # a source text to translate in the Translate view

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("lengthStudyDialog")
        self.setModal(False)
        self.setWindowTitle("Length study")
        fit_to_screen(self, 1100, 820)  # or less: its Close button stays on screen
        self.direction: str | None = None
        self._key: tuple[object, ...] | None = None
        self.heading = QLabel()
        self.heading.setObjectName("lengthStudyHeading")
        self.view = LengthStudyView()
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.close)
        layout = QVBoxLayout(self)
        layout.addWidget(self.heading)
        layout.addWidget(self.view, 1)
        layout.addWidget(buttons)
        self.view.rowChosen.connect(self.rowChosen)

    def show_direction(self, choices: ModelChoices | None, direction: str | None, force: bool = False) -> bool:
        """Draw the studies of ``direction``'s models; unchanged models are not read again unless
        ``force``. Returns whether the view was redrawn."""
        known = choices is not None and bool(direction)
        options = choices.options(direction) if known else []
        key = (direction, tuple(str(o.entry.folder) if o.entry is not None else "" for o in options))
        if key == self._key and not force:
            return False
        self._key = key
        self.direction = direction
        self._show_heading(choices.direction_label(direction) if known else "")
        self.view.set_data(gather(read_studies(options, STUDY_BEAM)))
        return True

    def _show_heading(self, label: str) -> None:
        """The window's title and heading name the direction (``label``; "" when there is none)."""
        self.setWindowTitle(f"Length study — {label}" if label else "Length study")
        self.heading.setText(f"<h3>{label}: quality against source length</h3>" if label else NO_DIRECTION)
