"""What-if decoding: building a :class:`~engine.decoding.search.Steering` from what a person gives.

- A **prefix** is target text the output must start with (a correction): it is normalized and
  cut into sub-words like training targets, and fed to the decoder token by token (teacher-forced);
  the model continues from there, in greedy or beam mode.
- An **attention override** sets α_i by hand at step i: one source position (a one-hot α), or
  weights over several, renormalized to sum to 1. The context c_i = Σ_j α_ij h_j is formed from
  them and the model continues from that step; e_ij and the model's own α_i are still reported.

The fixed-context scorer has no attention to override: every step reads the same C.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from engine.decoding.search import Steering
from engine.decoding.translator import PreparedSource, Translator
from engine.settings.config import MAX_SOURCE_TOKENS
from engine.settings.errors import EngineError
from engine.text.normalization import normalize

MAX_OVERRIDE_STEP = 4 * MAX_SOURCE_TOKENS


class SteeringError(EngineError):
    """A prefix or an override that cannot be applied; the message says why."""


def prefix_ids(translator: Translator, prefix: str, target_language: str) -> tuple[int, ...]:
    """The sub-word ids of a target prefix ("" → no prefix)."""
    normalized = normalize(prefix, target_language, translator.simplify_chinese)
    ids = tuple(translator.target_tokenizer.encode(normalized)) if normalized else ()
    if len(ids) > MAX_SOURCE_TOKENS:
        raise SteeringError(f"the prefix has {len(ids)} sub-word tokens; at most {MAX_SOURCE_TOKENS}")
    return ids


def override_weights(weights: Mapping[int, float] | Any, source_length: int) -> np.ndarray:
    """α over the source positions from {position: weight} (or a full vector), renormalized."""
    if isinstance(weights, Mapping):
        vector = np.zeros(source_length, dtype=np.float64)
        for position, weight in weights.items():
            if not isinstance(position, int) or not 0 <= position < source_length:
                raise SteeringError(f"source position {position!r} is outside 0…{source_length - 1}")
            vector[position] = float(weight)
    else:
        vector = np.asarray(weights, dtype=np.float64).reshape(-1)
        if vector.size != source_length:
            raise SteeringError(f"an attention row needs {source_length} weights (one per source token); "
                                f"got {vector.size}")
    if not np.all(np.isfinite(vector)) or np.any(vector < 0):
        raise SteeringError("attention weights must be finite and not negative")
    total = float(vector.sum())
    if total <= 0:
        raise SteeringError("attention weights must not all be zero")
    return (vector / total).astype(np.float32)


def make_steering(translator: Translator, prepared: PreparedSource, target_language: str, prefix: str = "",
                  overrides: Mapping[int, Mapping[int, float] | Any] | None = None) -> Steering:
    """A Steering for ``prepared`` under ``translator``'s model; refuses what cannot apply, saying why."""
    overrides = dict(overrides or {})
    if overrides and not translator.uses_attention:
        raise SteeringError("the fixed-context scorer has no attention to override: every step reads the same C")
    rows = {}
    for step, weights in overrides.items():
        if not isinstance(step, int) or not 0 <= step < MAX_OVERRIDE_STEP:
            raise SteeringError(f"step {step!r} is not an output position (0…{MAX_OVERRIDE_STEP - 1})")
        rows[step] = override_weights(weights, len(prepared.ids))
    return Steering(prefix_ids(translator, prefix, target_language), rows)


def parse_override(text: str) -> tuple[int, dict[int, float]]:
    """``STEP:POS`` (one-hot) or ``STEP:POS=W,POS=W…`` (command-line form) → (step, {position: weight})."""
    try:
        step_text, spec = text.split(":", 1)
        weights: dict[int, float] = {}
        for part in spec.split(","):
            position, _, weight = part.partition("=")
            weights[int(position)] = float(weight) if weight else 1.0
        return int(step_text), weights
    except ValueError:
        raise SteeringError(f"--attend {text!r}: write STEP:POSITION or STEP:POSITION=WEIGHT,POSITION=WEIGHT "
                            "(0-based output step and source positions)") from None
