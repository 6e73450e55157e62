"""What-if in the Translate tab: what the user changed in the current sentence's decode (``whatif``:
a prefix typed or a hypothesis picked, an alternative chosen at a step, attention set by hand on a
map cell) and the decode again under it; a change that cannot apply is refused and says why."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QCoreApplication

from gui.translate.whatif_state import WhatIf

if TYPE_CHECKING:
    from gui.translate.tab import TranslateTab


class WhatIfSteering:
    """The what-if state of the Translate tab's sentence, wired to the what-if bar and the map."""

    def __init__(self, tab: TranslateTab) -> None:
        self.tab = tab
        self.whatif = WhatIf()

    def connect(self) -> None:
        view, panel = self.tab.view, self.tab.view.attention_panel
        view.whatif_bar.prefixEntered.connect(lambda text: self.redecode(self.whatif.with_prefix_text(text)))
        view.whatif_bar.undoRequested.connect(self.undo)
        panel.alternativeChosen.connect(self.alternative_chosen)
        panel.cellClicked.connect(self.cell_clicked)
        self.tab.controller.whatIfRefused.connect(self._on_refused)

    def reset(self) -> None:
        """A new sentence or model: the model's own decode, nothing changed."""
        self.whatif = WhatIf()
        self.tab.view.whatif_bar.reset()

    def redecode(self, whatif: WhatIf) -> None:
        """Decode the current sentence again under ``whatif`` (the change is kept only if it applies)."""
        controller = self.tab.controller
        if controller.bundle is None or not controller.text.strip():
            return
        if controller.translate(controller.text, whatif):
            self.whatif = whatif
            prepared = controller.prepare(controller.text)
            self.tab.view.whatif_bar.show_state(whatif.describe(prepared.tokens if prepared is not None else ()))
            self.tab.beam_tree.update_footer()

    def alternative_chosen(self, step: int, token_id: int) -> None:
        output = [s.token_id for s in self.tab.view.attention_panel.record.steps]
        self.redecode(self.whatif.with_alternative(output, step, token_id))

    def cell_clicked(self, row: int, column: int, shift: bool) -> None:
        """A map cell clicked while "Set attention" is on: α of that step set there (shift: added)."""
        if self.tab.view.whatif_bar.attend_button.isChecked():
            self.redecode(self.whatif.with_attention(row, column, add=shift))

    def undo(self) -> None:
        self.tab.view.whatif_bar.reset()
        self.redecode(WhatIf())

    def _on_refused(self, message: str) -> None:
        self.tab.view.show_hint(QCoreApplication.translate("WhatIfSteering", "What-if not applied: %1.").replace(
            "%1", message), notice=True)
        self.tab.statusMessage.emit(message)
