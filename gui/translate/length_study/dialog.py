"""The length study as a non-modal dialog of the Translate tab, for the direction on screen.

:meth:`LengthStudyDialog.show_direction` reads the study stored in the model folder behind each
scorer of the direction (``config.json`` only, through the engine) and draws them; it is called
when the dialog is opened and again whenever the Translate tab's direction or catalog changes.
The decoding chooser offers every beam size some model of the direction stored a study at
(greedy first, then e.g. beam 5, where a beam that goes round in circles shows in the loop line).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QT_TRANSLATE_NOOP, Signal
from PySide6.QtWidgets import QComboBox, QDialog, QDialogButtonBox, QHBoxLayout, QLabel, QVBoxLayout, QWidget

from gui.screen_fit import fit_to_screen
from gui.translate.length_study.model import beam_label, gather, read_studies, study_beams
from gui.translate.length_study.view import LengthStudyView

if TYPE_CHECKING:
    from gui.translate.choices import ModelChoices, ScorerOption

STUDY_BEAM = 1  # the study drawn first: greedy decoding
NO_DIRECTION = QT_TRANSLATE_NOOP("LengthStudyDialog", "No model yet: train one in the Train tab, then record its length study.")


class LengthStudyDialog(QDialog):
    """A window beside the main one: the length study of one direction's models."""

    rowChosen = Signal(str)  # a source text to translate in the Translate view

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("lengthStudyDialog")
        self.setModal(False)
        self.setWindowTitle(self.tr("Length study"))
        fit_to_screen(self, 1100, 820)  # or less: its Close button stays on screen
        self.direction: str | None = None
        self._key: tuple[object, ...] | None = None
        self._options: list[ScorerOption] = []  # the direction's scorers, with the model behind each
        self.heading = QLabel()
        self.heading.setObjectName("lengthStudyHeading")
        self.beam_combo = QComboBox()
        self.beam_combo.setObjectName("lengthStudyBeamCombo")
        self.beam_combo.setToolTip(self.tr("The decoding whose study is drawn: greedy, or beam search with each "
                                           "model's own length and coverage penalties (as the Translate view decodes "
                                           "at that beam)"))
        self.view = LengthStudyView()
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.close)
        top = QHBoxLayout()
        top.addWidget(self.heading, 1)
        decoding = QLabel(self.tr("&Decoding"))
        decoding.setBuddy(self.beam_combo)  # Alt+D, and a screen reader names the box
        top.addWidget(decoding)
        top.addWidget(self.beam_combo)
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(self.view, 1)
        layout.addWidget(buttons)
        self.view.rowChosen.connect(self.rowChosen)
        self.beam_combo.currentIndexChanged.connect(self._on_beam)

    @property
    def beam(self) -> int:
        """The beam size of the study on screen (the one a chosen row is decoded at)."""
        value = self.beam_combo.currentData()
        return value if isinstance(value, int) else STUDY_BEAM

    def show_beam(self, beam: int) -> bool:
        """Draw the studies decoded at ``beam`` (as choosing it in the list does); False when no
        model of the direction stored one."""
        index = self.beam_combo.findData(beam)
        if index < 0:
            return False
        self.beam_combo.setCurrentIndex(index)  # _on_beam draws it (or it is drawn already)
        return True

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
        self._options = list(options)
        self._show_heading(choices.direction_label(direction) if known else "")
        self._fill_beams(study_beams(options))
        self._draw()
        return True

    def _fill_beams(self, beams: tuple[int, ...]) -> None:
        """List ``beams`` (greedy when none is stored); the chosen beam stays when it is still there."""
        previous = self.beam
        beams = beams or (STUDY_BEAM,)
        self.beam_combo.blockSignals(True)
        self.beam_combo.clear()
        for beam in beams:
            self.beam_combo.addItem(beam_label(beam), beam)
        chosen = previous if previous in beams else (STUDY_BEAM if STUDY_BEAM in beams else beams[0])
        self.beam_combo.setCurrentIndex(self.beam_combo.findData(chosen))
        self.beam_combo.setEnabled(len(beams) > 1)
        self.beam_combo.blockSignals(False)

    def _on_beam(self, index: int) -> None:
        if index >= 0:
            self._draw()

    def _draw(self) -> None:
        beam = self.beam
        target = next((o.entry.target_language for o in self._options if o.entry is not None), "")
        self.view.set_data(gather(read_studies(self._options, beam), beam, target))

    def _show_heading(self, label: str) -> None:
        """The window's title and heading name the direction (``label``; "" when there is none)."""
        self.setWindowTitle(self.tr("Length study — %1").replace("%1", label) if label else self.tr("Length study"))
        self.heading.setText(self.tr("<h3>%1: quality against source length</h3>").replace("%1", label) if label
                             else self.tr(NO_DIRECTION))
