"""What-if in the Translate tab: what the user changed in the current sentence's decode (``whatif``:
a prefix typed or a hypothesis picked, an alternative chosen at a step, attention set by hand on a
map cell) and the decode again under it; a change that cannot apply is refused and says why."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication

from gui.attention.panel import HOVER_HINT
from gui.translate.whatif_state import WhatIf

SET_ATTENTION_HINT = QT_TRANSLATE_NOOP(
    "AttentionPanel", "Set attention: click a cell to put all of that step's attention on its source word · "
    "shift-click: share it with more · the model continues from there")

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
        view.whatif_bar.attend_button.toggled.connect(self._attend_mode)
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
        """A map cell clicked while "Set attention" is on: α of that step set there (shift: added). In the
        Words view the cell is a word of each side: every piece of the output word puts its attention on
        the source word's pieces, so that the word's row shows the 1.0 given (one piece set, its row was
        the average of that piece and its continuation: ~0.55)."""
        if not self.tab.view.whatif_bar.attend_button.isChecked():
            return
        units = self.tab.view.attention_panel.units()
        steps = units.row_pieces(units.row_of(row)) or range(row, row + 1)
        positions = units.column_pieces(units.column_of(column)) or range(column, column + 1)
        self.redecode(self.whatif.with_attention_on(list(steps), list(positions), add=shift))

    def _attend_mode(self, on: bool) -> None:
        """The map's hint line says what a click does while "Set attention" is on."""
        panel = self.tab.view.attention_panel
        panel.hover_hint = SET_ATTENTION_HINT if on else HOVER_HINT
        panel.hover_label.setText(QCoreApplication.translate("AttentionPanel", panel.hover_hint))

    def undo(self) -> None:
        self.tab.view.whatif_bar.reset()
        self.redecode(WhatIf())

    def _on_refused(self, message: str) -> None:
        self.tab.view.show_hint(QCoreApplication.translate("WhatIfSteering", "What-if not applied: %1.").replace(
            "%1", message), notice=True)
        self.tab.statusMessage.emit(message)
