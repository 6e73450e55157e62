"""Finite results only: what a model computes is checked before it is printed or shown.

A model whose weights are finite as stored can still overflow on an input (weights scaled far up:
NaN attention, NaN probabilities, an empty text read from them). The command line checks each JSON
document before it prints it (``translate``, ``evaluate``: never a bare ``NaN`` or ``Infinity``), and
the app checks each step of a decode as it comes (:func:`finite_steps`, in the decode's worker). Both
refuse in one line with :class:`engine.settings.errors.NonFiniteError`, a model error. Pure Python and numpy:
no torch, no Qt.
"""

from __future__ import annotations

import json
import math
from collections.abc import Generator
from typing import Any

import numpy as np

from engine.settings.errors import NonFiniteError

# What a decoding step (engine.decoding.search.DecodeStep) and a translation carry that a model computes.
STEP_FIELDS = ("probability", "log_probability", "attention", "head_attention", "layer_attention", "self_attention")
TRANSLATION_FIELDS = ("attention", "score")


def non_finite_fields(value: Any, where: str = "") -> list[str]:
    """The fields of ``value`` (numbers, numpy arrays, and dicts and lists of them) that hold NaN or an
    infinity, each named by its top-level key (``attention``, ``score``, …), each once."""
    if isinstance(value, dict):
        found = [field for key, item in value.items() for field in non_finite_fields(item, where or str(key))]
        return list(dict.fromkeys(found))
    if isinstance(value, (list, tuple)):
        return next((found for item in value if (found := non_finite_fields(item, where))), [])
    return [] if _finite(value) else [where or "the value"]


def _finite(value: Any) -> bool:
    """False for a float or a float/complex array holding NaN or an infinity; True for anything else."""
    if isinstance(value, (float, np.floating)):
        return math.isfinite(value)
    if isinstance(value, np.ndarray):
        return value.dtype.kind not in "fc" or bool(np.isfinite(value).all())
    return True


def refusal(what: str, fields: list[str], where: str, consequence: str) -> NonFiniteError:
    """The one-line error for a model whose ``fields`` came out non-finite ``where``."""
    return NonFiniteError(f"{what}: the model's {', '.join(fields)} came out non-finite (NaN or infinity) {where}: "
                          f"its weights overflow; {consequence}")


def json_line(document: Any, what: str, where: str = "on this input") -> str:
    """``document`` as one line of strict JSON; NonFiniteError naming the fields that are not finite."""
    fields = non_finite_fields(document)
    if fields:
        raise refusal(what, fields, where, "no result is printed")
    return json.dumps(document, ensure_ascii=False, allow_nan=False)


def _computed(item: Any, names: tuple[str, ...]) -> dict[str, Any]:
    return {name: getattr(item, name, None) for name in names}


def check_step(step: Any, what: str = "decoding") -> None:
    """Refuse a decoding step whose probability or attention is not finite (NonFiniteError)."""
    fields = non_finite_fields(_computed(step, STEP_FIELDS))
    if fields:
        raise refusal(what, fields, f"at output step {getattr(step, 'index', '?')} of this input",
                      "the decode is stopped")


def finite_steps(steps: Generator[Any, None, Any], what: str = "decoding") -> Generator[Any, None, Any]:
    """``steps`` (a decode: engine.decoding.translator.Translator.steps) passed on step by step, each checked
    before it is yielded, and its translation checked before it is returned."""
    try:
        while True:
            try:
                step = next(steps)
            except StopIteration as finished:
                translation = finished.value
                fields = non_finite_fields(_computed(translation, TRANSLATION_FIELDS))
                if fields:
                    raise refusal(what, fields, "in this input's translation", "the decode is stopped") from None
                return translation
            check_step(step, what)
            yield step
    finally:
        steps.close()
