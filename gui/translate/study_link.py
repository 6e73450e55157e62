"""The Length study from the Translate tab: the dialog (built on first use: it needs the engine)
shows the chosen direction's studies, follows the direction while open, and a row chosen in its
table is translated in the tab as the study decoded it (greedy)."""

from __future__ import annotations

from typing import TYPE_CHECKING

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
        """A row of the length study: translate it as the study's table did (greedy: the beam is set
        to 1, and the hint says so when it was not) and bring the main window to the front."""
        from gui.translate.length_study.dialog import STUDY_BEAM  # the beam of the study's outputs

        tab = self.tab
        reference = self.dialog.view.table.reference_for(source) if self.dialog else ""
        if reference:
            tab.add_reference(source, reference)
        spin = tab.view.choice_bar.beam_spin
        previous = spin.value()
        if previous != STUDY_BEAM:
            spin.blockSignals(True)  # no re-decode of the sentence on screen: the row's is next
            spin.setValue(STUDY_BEAM)
            spin.blockSignals(False)
            tab.controller.set_beam_size(STUDY_BEAM)
        tab.translate_text(source)
        if previous != STUDY_BEAM:
            tab.view.show_hint(f"Beam set from {previous} to {STUDY_BEAM} (greedy search): the length study's "
                               "outputs are greedy decodes, and this one is decoded the same way.", notice=True)
        window = tab.window()
        window.raise_()
        window.activateWindow()
