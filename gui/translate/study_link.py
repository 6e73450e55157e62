"""The Length study from the Translate tab: the dialog (built on first use: it needs the engine)
shows the chosen direction's studies, follows the direction while open, and a row chosen in its
table is translated in the tab as the study on screen decoded it (greedy, or its beam size)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from PySide6.QtCore import QCoreApplication

from gui.i18n import fill

if TYPE_CHECKING:
    from PySide6.QtWidgets import QWidget

    from gui.translate.choices import ModelChoices
    from gui.translate.length_study.dialog import LengthStudyDialog


class StudyModels(Protocol):
    """What the study link asks of the controller: the models on offer, and the beam to decode at."""

    @property
    def choices(self) -> ModelChoices | None: ...
    def set_beam_size(self, size: int) -> None: ...


class BeamBox(Protocol):
    """The Beam box (a QSpinBox): set to a study's beam without a decode of its own."""

    def minimum(self) -> int: ...
    def maximum(self) -> int: ...
    def value(self) -> int: ...
    def setValue(self, value: int) -> None: ...
    def blockSignals(self, block: bool) -> bool: ...


@dataclass(frozen=True)
class StudyParts:
    """What the Length study link drives of the Translate tab."""

    window: QWidget  # the dialog's parent, brought to the front when a row is chosen
    controller: StudyModels
    beam_box: BeamBox
    direction: Callable[[], str | None]  # the direction chosen in the tab
    translate: Callable[[str], None]  # put a text in the input line and translate it
    remember: Callable[[str, str], None]  # a row's reference translation, kept by source text
    show_hint: Callable[..., None]  # the input's hint line: (text, notice=True)


class LengthStudyLink:
    """The Translate tab's Length study dialog."""

    def __init__(self, parts: StudyParts) -> None:
        self.parts = parts
        self.dialog: LengthStudyDialog | None = None

    def open(self) -> LengthStudyDialog:
        """Show the length study of the current direction beside the main window (non-modal)."""
        from gui.translate.length_study.dialog import LengthStudyDialog

        if self.dialog is None:
            self.dialog = LengthStudyDialog(self.parts.window)
            self.dialog.rowChosen.connect(self._on_row)
        dialog = self.dialog
        dialog.show_direction(self.parts.controller.choices, self.parts.direction(), force=True)
        dialog.show()
        dialog.raise_()
        dialog.activateWindow()
        return dialog

    def follow(self, choices: ModelChoices, direction: str | None) -> None:
        """The direction shown in the tab changed: the open dialog shows its studies."""
        if self.dialog is not None and self.dialog.isVisible():
            self.dialog.show_direction(choices, direction)

    def _on_row(self, source: str) -> None:
        """A row of the length study: translate it as the study's table did (at the study's beam: the
        beam is set to it, and the hint says so when it was not) and bring the main window to the front."""
        parts, dialog = self.parts, self.dialog
        spin = parts.beam_box
        beam = min(max(dialog.beam if dialog is not None else 1, spin.minimum()), spin.maximum())
        reference = dialog.view.table.reference_for(source) if dialog is not None else ""
        if reference:
            parts.remember(source, reference)
        previous = spin.value()
        if previous != beam:
            spin.blockSignals(True)  # no re-decode of the sentence on screen: the row's is next
            spin.setValue(beam)
            spin.blockSignals(False)
            parts.controller.set_beam_size(beam)
        parts.translate(source)
        if previous != beam:
            search = (QCoreApplication.translate("LengthStudyLink", "greedy search") if beam == 1
                      else QCoreApplication.translate("LengthStudyLink", "beam search"))
            parts.show_hint(fill(QCoreApplication.translate(
                "LengthStudyLink", "Beam set from %1 to %2 (%3): the length study's outputs on screen were decoded "
                "that way, and this one is decoded the same way."), previous, beam, search), notice=True)
        window = parts.window.window()
        window.raise_()
        window.activateWindow()
