"""What-if in the Translate tab: what the user changed in the current sentence's decode (``whatif``:
a prefix typed or a hypothesis picked, an alternative chosen at a step, attention set by hand on a
map cell) and the decode again under it; a change that cannot apply is refused and says why."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication

from gui.attention.panel import HOVER_HINT
from gui.translate.whatif_state import WhatIf

SET_ATTENTION_HINT = QT_TRANSLATE_NOOP(
    "AttentionPanel", "Set attention: click a cell to put all of that step's attention on its source word · "
    "shift-click: share it with more · the model continues from there")

if TYPE_CHECKING:
    from PySide6.QtCore import SignalInstance
    from PySide6.QtWidgets import QAbstractButton, QLabel

    from engine.decoding import PreparedSource
    from gui.attention.map_units import MapUnits
    from gui.attention.record import DecodeRecord


class SteeringBar(Protocol):
    """What steering drives of the what-if bar (gui/translate/whatif_bar.py)."""

    @property
    def prefixEntered(self) -> SignalInstance: ...
    @property
    def undoRequested(self) -> SignalInstance: ...
    @property
    def attend_button(self) -> QAbstractButton: ...
    def reset(self) -> None: ...
    def show_state(self, summary: str) -> None: ...


class SteeringMap(Protocol):
    """What steering drives of the attention panel: its steps, its cells and its hint line."""

    @property
    def record(self) -> DecodeRecord: ...
    @property
    def alternativeChosen(self) -> SignalInstance: ...
    @property
    def cellClicked(self) -> SignalInstance: ...
    @property
    def hover_label(self) -> QLabel: ...
    hover_hint: object  # the hint's untranslated text (a QT_TRANSLATE_NOOP)
    def units(self) -> MapUnits: ...


class SteeringDecoder(Protocol):
    """What steering asks of the controller: the sentence and model in use, a decode under a what-if."""

    @property
    def whatIfRefused(self) -> SignalInstance: ...
    @property
    def bundle(self) -> object | None: ...
    @property
    def text(self) -> str: ...
    def translate(self, text: str, whatif: WhatIf | None = None) -> bool: ...
    def prepare(self, text: str) -> PreparedSource | None: ...


class WhatIfSteering:
    """The what-if state of the Translate tab's sentence, wired to the what-if bar and the map.

    ``show_hint(text, notice=True)`` writes the input's hint line, ``say`` the status bar and ``footer``
    renews the beam tree's footer after a what-if applied."""

    def __init__(self, bar: SteeringBar, panel: SteeringMap, controller: SteeringDecoder,
                 show_hint: Callable[..., None], say: Callable[[str], None], footer: Callable[[], None]) -> None:
        self.bar, self.panel, self.controller = bar, panel, controller
        self.show_hint, self.say, self.footer = show_hint, say, footer
        self.whatif = WhatIf()

    def connect(self) -> None:
        self.bar.prefixEntered.connect(lambda text: self.redecode(self.whatif.with_prefix_text(text)))
        self.bar.undoRequested.connect(self.undo)
        self.panel.alternativeChosen.connect(self.alternative_chosen)
        self.panel.cellClicked.connect(self.cell_clicked)
        self.bar.attend_button.toggled.connect(self._attend_mode)
        self.controller.whatIfRefused.connect(self._on_refused)

    def reset(self) -> None:
        """A new sentence or model: the model's own decode, nothing changed."""
        self.whatif = WhatIf()
        self.bar.reset()

    def redecode(self, whatif: WhatIf) -> None:
        """Decode the current sentence again under ``whatif`` (the change is kept only if it applies)."""
        controller = self.controller
        if controller.bundle is None or not controller.text.strip():
            return
        if controller.translate(controller.text, whatif):
            self.whatif = whatif
            prepared = controller.prepare(controller.text)
            self.bar.show_state(whatif.describe(prepared.tokens if prepared is not None else ()))
            self.footer()

    def alternative_chosen(self, step: int, token_id: int) -> None:
        output = [s.token_id for s in self.panel.record.steps]
        self.redecode(self.whatif.with_alternative(output, step, token_id))

    def cell_clicked(self, row: int, column: int, shift: bool) -> None:
        """A map cell clicked while "Set attention" is on: α of that step set there (shift: added). In the
        Words view the cell is a word of each side: every piece of the output word puts its attention on
        the source word's pieces, so that the word's row shows the 1.0 given (one piece set, its row was
        the average of that piece and its continuation: ~0.55)."""
        if not self.bar.attend_button.isChecked():
            return
        units = self.panel.units()
        steps = units.row_pieces(units.row_of(row)) or range(row, row + 1)
        positions = units.column_pieces(units.column_of(column)) or range(column, column + 1)
        self.redecode(self.whatif.with_attention_on(list(steps), list(positions), add=shift))

    def _attend_mode(self, on: bool) -> None:
        """The map's hint line says what a click does while "Set attention" is on."""
        hint = str(SET_ATTENTION_HINT if on else HOVER_HINT)
        self.panel.hover_hint = hint
        self.panel.hover_label.setText(QCoreApplication.translate("AttentionPanel", hint))

    def undo(self) -> None:
        self.bar.reset()
        self.redecode(WhatIf())

    def _on_refused(self, message: str) -> None:
        self.show_hint(QCoreApplication.translate("WhatIfSteering", "What-if not applied: %1.").replace(
            "%1", message), notice=True)
        self.say(message)
