"""The input's words the model never saw in training, named under the input and underlined in the
source tokens.

"grandparents" never occurs in the training corpus; 饺 was never seen, so SentencePiece spells it
as bytes; "Python" comes out as P ##y ##t ##h ##o ##n. Each model folder records the words of its
training sources (engine.text.training_words); when a run starts, the words of its input missing from
that record are named in one line — "never seen in training: grandparents" — and their source
pieces get a wavy underline. A model without a usable record (an older folder, or a damaged,
missing or oversize ``words.json``) still translates: the line says once, at the model's first run,
why the check is unavailable, and stays empty after.

:func:`unseen_text` words the line (plain function, tested); :class:`UnseenWordsLine` is the label
(``unseenWordsLine``); :class:`UnseenWords` fills it and the source strip at each run (the tab
holds one).
"""

from __future__ import annotations

import weakref
from collections.abc import Sequence
from typing import TYPE_CHECKING

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, Qt
from PySide6.QtWidgets import QLabel, QWidget

from engine.text import unseen_piece_indices  # torch-free

if TYPE_CHECKING:
    from gui.translate.controller import RunInfo
    from gui.translate.view import TranslateView

UNSEEN_PREFIX = QT_TRANSLATE_NOOP("UnseenWords", "never seen in training: ")
LINE_STYLE = "color: #a05a00;"
LINE_TIP = QT_TRANSLATE_NOOP(
    "UnseenWords", "Words of this input that never occur in the sentences this model was trained on (recorded "
    "with the model): it has never seen them, so what it makes of them is a guess. Their source tokens are "
    "underlined.")


def unseen_text(words: Sequence[str], characters: Sequence[str] = (), note: str = "") -> str:
    """The line: the unseen ``words`` (and the Chinese ``characters`` never seen at all), or ``note``
    (why the check is unavailable) when given instead; "" when there is nothing to say."""
    parts = []
    if words:
        parts.append(QCoreApplication.translate("UnseenWords", UNSEEN_PREFIX) + ", ".join(words))
    if characters:
        parts.append(QCoreApplication.translate("UnseenWords", "characters never seen: %1 (spelled as bytes)")
                     .replace("%1", " ".join(characters)))
    if parts:
        return " · ".join(parts)
    return QCoreApplication.translate("UnseenWords", "Unseen words are not checked: %1").replace("%1", note) if note else ""


class UnseenWordsLine(QLabel):
    """The line under the input naming its words the model never saw."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("unseenWordsLine")
        self.setWordWrap(True)
        self.setTextFormat(Qt.TextFormat.PlainText)
        self.setStyleSheet(LINE_STYLE)
        self.setToolTip(QCoreApplication.translate("UnseenWords", LINE_TIP))
        self.hide()

    def show_text(self, text: str) -> None:
        self.setText(text)
        self.setVisible(bool(text))


class UnseenWords:
    """Fills the line and underlines the source pieces for each run; says a model's missing record once."""

    def __init__(self, view: TranslateView) -> None:
        self.view = view
        self._noted: weakref.ref | None = None  # the translator whose missing record was last said
        self.words: list[str] = []  # the run's unseen words, as shown

    def run_started(self, info: RunInfo) -> None:
        translator, prepared = info.bundle.translator, info.prepared
        self.words = translator.unseen_words(prepared)
        characters = translator.unseen_characters(prepared)
        note = ""
        if translator.training_words is None and (self._noted is None or self._noted() is not translator):
            note, self._noted = translator.training_words_note, weakref.ref(translator)
        self.view.unseen_line.show_text(unseen_text(self.words, characters, note))
        self.view.source_tokens.set_marked(unseen_piece_indices(prepared.tokens, self.words))
