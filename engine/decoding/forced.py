"""Forced decoding: how a model scores a target it is given (teacher forcing at inference).

The decoder runs its usual steps, but the token fed back at step i is the given target's y_{i-1}
instead of the model's own choice. Each step's attention α_i, raw scores e_ij and the probability
of the given token p(y_i | y_<i, x) are kept, and their log sum is the target's log-probability.

With it every scorer of a direction can be put on the *same* target — the reference, or one
scorer's output — so their attention maps share rows and columns and a difference map α_A − α_B is
defined. Given a model's own greedy output, forced decoding reproduces that decode's α and
log-probability exactly (a test checks it).

Shapes: S source tokens, T target tokens (the given target's pieces plus ``</s>``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

from engine.decoding.teacher_forcing import teacher_force
from engine.decoding.translator import Translator
from engine.settings.config import MAX_SOURCE_TOKENS
from engine.settings.errors import EngineError
from engine.text.normalization import normalize
from engine.text.tokenizer import EOS_ID

MAX_TARGET_TOKENS = MAX_SOURCE_TOKENS  # the same cap as inputs: 200 sub-word tokens
BYTE_PIECE_PREFIX = "<0x"


class ForcedTargetError(EngineError):
    """The target cannot be scored (empty, too long, or the source is empty); says why."""


@dataclass(frozen=True)
class ForcedDecode:
    """A given target as one model scores it."""

    source: str
    source_tokens: tuple[str, ...]
    target: str  # as given
    tokens: tuple[str, ...]  # the target's pieces, then the end-of-sentence piece "</s>"
    attention: np.ndarray | None  # T×S α; None for the fixed-context scorer
    scores: np.ndarray | None  # T×S raw e_ij before the softmax
    probabilities: np.ndarray  # (T,) p(y_i | y_<i, x) of each given token
    log_probability: float  # Σ_i log p(y_i | y_<i, x), the EOS included
    notice: str = ""  # e.g. characters outside the target vocabulary scored as byte pieces
    head_attention: np.ndarray | None = None  # T×H×S each head's α (``attention`` is their mean); multi-head only

    def to_json(self) -> dict[str, Any]:
        def matrix(values: np.ndarray | None):
            return None if values is None else np.round(values.astype(np.float64), 6).tolist()

        return {
            "source": self.source, "source_tokens": list(self.source_tokens), "target": self.target,
            "tokens": list(self.tokens), "attention": matrix(self.attention), "scores": matrix(self.scores),
            "probabilities": np.round(self.probabilities.astype(np.float64), 6).tolist(),
            "log_probability": round(self.log_probability, 6), "forced": True, "notice": self.notice,
        } | ({} if self.head_attention is None else {"head_attention": matrix(self.head_attention)})


def target_ids(translator: Translator, target: str, target_language: str) -> tuple[list[int], str]:
    """The sub-word ids of ``target`` (normalized like training targets) and a notice ("" if none)."""
    normalized = normalize(target, target_language, translator.simplify_chinese)
    ids = translator.target_tokenizer.encode(normalized) if normalized else []
    if not ids:
        raise ForcedTargetError("the target is empty: nothing is left of it after normalization")
    if len(ids) > MAX_TARGET_TOKENS:
        raise ForcedTargetError(f"the target has {len(ids)} sub-word tokens; at most {MAX_TARGET_TOKENS} are scored")
    pieces = translator.target_tokenizer.pieces(ids)
    byte_pieces = sum(piece.startswith(BYTE_PIECE_PREFIX) for piece in pieces)
    notice = (f"{byte_pieces} byte piece{'s' if byte_pieces != 1 else ''} stand for characters outside the "
              "target vocabulary (SentencePiece byte fallback)") if byte_pieces else ""
    return ids, notice


def force_decode(translator: Translator, source: str, target: str, target_language: str,
                 batched_output: bool = False) -> ForcedDecode:
    """Score ``target`` as the translation of ``source`` under ``translator``'s model (the target cut
    into sub-words by the model's tokenizer, as training targets are). ``batched_output``: faster,
    log-probabilities to float32 rounding (engine.decoding.teacher_forcing)."""
    ids, notice = target_ids(translator, target, target_language)
    return force_decode_ids(translator, source, ids, target, notice, batched_output)


@torch.inference_mode()  # no autograd bookkeeping at all: ~10 % faster than no_grad for a step-by-step decoder
def force_decode_ids(translator: Translator, source: str, ids: list[int] | tuple[int, ...], target: str = "",
                     notice: str = "", batched_output: bool = False) -> ForcedDecode:
    """Score the target sub-word ``ids`` (no EOS; it is added) as the translation of ``source``. A
    decode's own ids reproduce its attention and log-probability exactly (the same operations run)."""
    prepared = translator.prepare(source)
    if prepared.empty:
        raise ForcedTargetError("the source is empty: nothing to translate")
    ids = _without_eos(ids)
    target = target or translator.target_tokenizer.decode(ids)
    given = ids + [EOS_ID]
    model = translator.model
    encoded = translator.encoded(prepared)  # the decode just shown's, when it was this sentence
    run = teacher_force(model, encoded, given, batched_output=batched_output)
    per_token = run.token_log_probs().tolist()
    total = sum(per_token)  # left to right, as the free decode adds its log-probabilities
    notices = "; ".join(n for n in (prepared.notice, notice) if n)
    return ForcedDecode(
        source=source, source_tokens=prepared.tokens, target=target,
        tokens=tuple(translator.target_tokenizer.pieces(given)),
        attention=_numpy(run.weights), scores=_numpy(run.scores),  # T×S
        probabilities=np.exp(np.array(per_token, dtype=np.float64)), log_probability=total, notice=notices,
        head_attention=_numpy(run.head_weights),  # T×H×S
    )


def _without_eos(ids: list[int] | tuple[int, ...]) -> list[int]:
    """The target ids as ints, any EOS left out; ForcedTargetError when more than MAX_TARGET_TOKENS remain."""
    ids = [int(i) for i in ids if int(i) != EOS_ID]
    if len(ids) > MAX_TARGET_TOKENS:
        raise ForcedTargetError(f"the target has {len(ids)} sub-word tokens; at most {MAX_TARGET_TOKENS} are scored")
    return ids


def _numpy(values: torch.Tensor | None) -> np.ndarray | None:
    return None if values is None else values.cpu().numpy()
