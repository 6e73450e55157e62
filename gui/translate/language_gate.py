"""The language check between the Translate controller and the input's status line.

With the setting on (``translate/ask_language``, the default) the controller refuses an input that
is not in the model's source language (engine.text.language_check) and the status line says why, with
one click to switch to the direction that reads it, to translate it anyway, or to stop asking. With
it off the input is decoded, and the status line still says what it looks like, with one click to
switch direction or to be asked again. The tab acts on the clicks (``switchRequested``,
``anywayRequested``); this object keeps the setting and what the line says.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, QSettings, Signal

from gui.stored_settings import stored_flag
from gui.translate.language_notice import notice_text

if TYPE_CHECKING:
    from engine.text import LanguageCheck
    from gui.translate.controller import RunInfo, TranslateController
    from gui.translate.language_notice import LanguageNotice
    from gui.translate.view import TranslateView

ASK_LANGUAGE = "translate/ask_language"  # QSettings key: refuse input in another language (else decode it with a note)


class LanguageGate(QObject):
    switchRequested = Signal(str)  # translate the input with this direction's model
    anywayRequested = Signal(str)  # decode this input with the model in use, as it is

    def __init__(self, controller: TranslateController, notice: LanguageNotice, parent: QObject | None = None,
                 view: TranslateView | None = None) -> None:
        """``view``: the Translate view whose previous sentence's tokens and map a refused input clears."""
        super().__init__(parent)
        self.controller = controller
        self.notice = notice
        self.view = view
        controller.ask_language = stored_flag(QSettings(), ASK_LANGUAGE, True)
        controller.languageRefused.connect(self._refused)
        notice.switchRequested.connect(self._on_switch)
        notice.anywayRequested.connect(self._on_anyway)
        notice.askingChanged.connect(self.set_asking)

    @property
    def asking(self) -> bool:
        return self.controller.ask_language

    def set_asking(self, ask: bool) -> None:
        """Refuse input in another language (True), or decode it with a note (False: "Don't ask
        again" also translates the input the line was shown for)."""
        self.controller.ask_language = ask
        QSettings().setValue(ASK_LANGUAGE, ask)
        text = self.notice.text
        self.notice.clear()
        if not ask and text:
            self.anywayRequested.emit(text)

    def save(self, settings: QSettings) -> None:
        settings.setValue(ASK_LANGUAGE, self.controller.ask_language)

    def show(self, text: str, check: LanguageCheck, decoded: bool) -> None:
        """Say that ``text`` is not in the model's source language: refused, or ``decoded`` as asked;
        offer the direction whose models read the language it looks like, when there is one."""
        choices, entry = self.controller.choices, self.controller.entry
        direction = entry.direction if entry is not None else ""
        label = choices.direction_label(direction) if choices is not None else direction
        switch = None
        if check.detected is not None and choices is not None:
            other = choices.direction_from(check.detected, check.expected)
            if other is not None and other != direction:
                switch = (other, choices.direction_label(other))
        self.notice.show_check(text, notice_text(check, label, decoded), decoded, switch)

    def _refused(self, text: str, check: LanguageCheck) -> None:
        """The line is up for an input not decoded: the previous sentence's tokens, output and map go with
        it (left there, they lay under a Direction box that may name another model than theirs)."""
        if self.view is not None:
            self.view.source_tokens.set_pieces([])
            self.view.target_output.set_pieces([])
            self.view.attention_panel.clear()
        self.show(text, check, decoded=False)

    def run_started(self, info: RunInfo) -> None:
        """A decode began: the line goes, unless the check is off and the input is in another
        language — then it says so."""
        self.notice.clear()
        if not self.controller.ask_language:
            check = info.bundle.translator.check_language(info.prepared)
            if not check.ok:
                self.show(info.prepared.text, check, decoded=True)

    def input_changed(self, text: str) -> None:
        """The input line changed: a line about another input goes."""
        if self.notice.text and text != self.notice.text:
            self.notice.clear()

    def _on_switch(self, direction: str) -> None:
        self.notice.clear()
        self.switchRequested.emit(direction)

    def _on_anyway(self, text: str) -> None:
        self.notice.clear()
        self.anywayRequested.emit(text)
