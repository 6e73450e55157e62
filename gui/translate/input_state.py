"""Whether the Translate button can act on what is typed, and the hint that says why not: a plain
function of the text, the model's view of it and whether a model is coming (no widgets, unit-tested; its
words through Qt's translation: the constants are the English source text)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication

EMPTY_HINT = QT_TRANSLATE_NOOP("InputState", "Type a sentence (or pick one under Examples) and press Enter.")
BLANK_HINT = QT_TRANSLATE_NOOP("InputState", "Nothing to translate: the input is only spaces.")
LOADING_HINT = QT_TRANSLATE_NOOP(
    "InputState", "The model is still loading; the sentence is translated as soon as it is ready.")
NO_MODEL_HINT = QT_TRANSLATE_NOOP("InputState", "No model is loaded: choose a direction and scorer that have a model.")


def hint_text(hint: str) -> str:
    """One of the hints above in the interface's language."""
    return QCoreApplication.translate("InputState", hint)


class PreparedView(Protocol):
    """What :class:`engine.decoding.translator.PreparedSource` tells about an input."""

    empty: bool
    truncated: bool
    notice: str


@dataclass(frozen=True)
class InputState:
    enabled: bool  # the Translate button acts
    hint: str  # shown under the input (and as the button's tooltip when disabled)
    notice: bool = False  # the hint is a warning (a long input is cut), not a help text


def input_state(text: str, prepared: PreparedView | None, model_coming: bool) -> InputState:
    """The button and hint for ``text``: ``prepared`` is the model in use's view of it (None without
    a model), ``model_coming`` whether a model is being scanned for or loaded."""
    if not text:
        return InputState(False, hint_text(EMPTY_HINT))
    if not text.strip():
        return InputState(False, hint_text(BLANK_HINT))
    if prepared is not None:
        if prepared.empty:
            return InputState(False, QCoreApplication.translate("InputState", "Nothing to translate: %1.")
                              .replace("%1", prepared.notice))
        if prepared.truncated:
            return InputState(True, QCoreApplication.translate(
                "InputState", "Long input: %1. Only that part is translated.").replace("%1", prepared.notice), True)
        return InputState(True, "")
    if model_coming:
        return InputState(True, hint_text(LOADING_HINT))
    return InputState(False, hint_text(NO_MODEL_HINT))
