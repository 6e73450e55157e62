"""The Length study from the Translate tab: the dialog (built on first use: it needs the engine)
shows the chosen direction's studies, follows the direction while open, and a row chosen in its
table is translated in the tab as the study on screen decoded it (greedy, or its beam size)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QCoreApplication

from gui.i18n import fill

if TYPE_CHECKING:
    from gui.translate.choices import ModelChoices
    from gui.translate.length_study.dialog import LengthStudyDialog
    from gui.translate.tab import TranslateTab


class LengthStudyLink:
    """The Translate tab's Length study dialog."""

    def __init__(self, tab: TranslateTab) -> None:
        self.tab = tab
        self.dialog: LengthStudyDialog | None = None

    def open(self) -> LengthStudyDialog:
        """Show the length study of the current direction beside the main window (non-modal)."""
        from gui.translate.length_study.dialog import LengthStudyDialog

        if self.dialog is None:
            self.dialog = LengthStudyDialog(self.tab)
            self.dialog.rowChosen.connect(self._on_row)
        dialog = self.dialog
        dialog.show_direction(self.tab.controller.choices, self.tab.view.choice_bar.current_direction(), force=True)
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
        tab = self.tab
        dialog = self.dialog
        spin = tab.view.choice_bar.beam_spin
        beam = min(max(dialog.beam if dialog is not None else 1, spin.minimum()), spin.maximum())
        reference = dialog.view.table.reference_for(source) if dialog is not None else ""
        if reference:
            tab.add_reference(source, reference)
        previous = spin.value()
        if previous != beam:
            spin.blockSignals(True)  # no re-decode of the sentence on screen: the row's is next
            spin.setValue(beam)
            spin.blockSignals(False)
            tab.controller.set_beam_size(beam)
        tab.translate_text(source)
        if previous != beam:
            search = (QCoreApplication.translate("LengthStudyLink", "greedy search") if beam == 1
                      else QCoreApplication.translate("LengthStudyLink", "beam search"))
            tab.view.show_hint(fill(QCoreApplication.translate(
                "LengthStudyLink", "Beam set from %1 to %2 (%3): the length study's outputs on screen were decoded "
                "that way, and this one is decoded the same way."), previous, beam, search), notice=True)
        window = tab.window()
        window.raise_()
        window.activateWindow()
