"""Whether the Translate button can act on what is typed, and the hint that says why not: a plain
function of the text, the model's view of it and whether a model is coming (no Qt, unit-tested)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

EMPTY_HINT = "Type a sentence (or pick one under Examples) and press Enter."
BLANK_HINT = "Nothing to translate: the input is only spaces."
LOADING_HINT = "The model is still loading; the sentence is translated as soon as it is ready."
NO_MODEL_HINT = "No model is loaded: choose a direction and scorer that have a model."


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
        return InputState(False, EMPTY_HINT)
    if not text.strip():
        return InputState(False, BLANK_HINT)
    if prepared is not None:
        if prepared.empty:
            return InputState(False, f"Nothing to translate: {prepared.notice}.")
        if prepared.truncated:
            return InputState(True, f"Long input: {prepared.notice}. Only that part is translated.", True)
        return InputState(True, "")
    if model_coming:
        return InputState(True, LOADING_HINT)
    return InputState(False, NO_MODEL_HINT)
