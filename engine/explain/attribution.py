"""Attribution beside attention: how much each source piece and each earlier output piece contributed to
one decode step's log p(y_i | y_<i, x) — the question attention alone cannot answer (Jain & Wallace 2019;
Wiegreffe & Pinter 2019).

Three methods (``ATTRIBUTION_METHODS``):

- ``ig``: Integrated Gradients (Sundararajan et al. 2017) over the source and prefix embeddings, from the
  zero embedding, with ``ig_steps`` (≥ 32 by default) interpolation points in one batched forward — Captum
  (engine.explain.gradients);
- ``grad``: input × gradient at the embeddings — Captum (engine.explain.gradients);
- ``occlusion``: each piece replaced by ``<unk>``, the drop in log p (engine.explain.occlusion, batched by
  hand: why Captum's Occlusion does not fit is said there).

Every step is attributed over the source (S,) and over the output prefix y_0..y_{i-1} (i,) — Inseq's
target-side attribution — so a step says how much came from the input and how much from the words already
written (:attr:`StepAttribution.source_share`). With a contrast piece y' for a step (Yin & Neubig 2022), the
attributed quantity is log p(y_i) - log p(y'): which pieces made the model prefer y_i over y'.

The translation's own tokens are teacher-forced through the model (engine.explain.forced_rows): the model's
own computation, for every family and mechanism. Attention set by hand at a step (what-if decoding) is not
reproduced: the attribution explains what the model itself computes for those tokens.

Work runs in chunks of consecutive steps sized so that a chunk's batch stays under ``budget`` row-positions
(memory bounded for the longest input), and the generator yields each step as its chunk finishes; closing it
stops the work before the next chunk.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from engine.explain.forced_rows import NO_CONTRAST, ForcedRows
from engine.explain.gradients import gradient_chunk
from engine.explain.occlusion import occlusion_chunk
from engine.networks.model import EncoderDecoder
from engine.settings.errors import ConfigError

ATTRIBUTION_METHODS: tuple[str, ...] = ("ig", "grad", "occlusion")  # CLI names, in this order
METHOD_LABELS: dict[str, str] = {"ig": "integrated gradients", "grad": "input × gradient", "occlusion": "occlusion"}
DEFAULT_IG_STEPS = 32
MAX_CHUNK_STEPS = 16  # and at most this many steps a chunk: the first step comes soon, a close stops soon
DEFAULT_BUDGET = 16_384  # rows × (S + T) positions in one batched forward: memory and the time to stop bounded

@dataclass(frozen=True)
class StepAttribution:
    """The attribution of one decode step (immutable: safe to send between threads)."""

    index: int  # output position i (DecodeStep.index, the row of Translation.tokens)
    method: str  # one of ATTRIBUTION_METHODS
    source: np.ndarray  # (S,) contribution of each source piece to log p(y_i | y_<i, x) (or to log p(y_i) - log p(y'))
    prefix: np.ndarray  # (i,) contribution of each earlier output piece y_0 .. y_{i-1}
    target_log_prob: float  # log p(y_i | y_<i, x)
    contrast_token: str | None = None  # y' for a contrastive attribution
    delta: float = 0.0  # IG only: (sum of the attributions) - (score(x) - score(baseline)), the quadrature error

    @property
    def source_share(self) -> float:
        """sum|source| / (sum|source| + sum|prefix|); 1.0 when both are 0."""
        on_source, on_prefix = float(np.abs(self.source).sum()), float(np.abs(self.prefix).sum())
        total = on_source + on_prefix
        return 1.0 if total == 0.0 else on_source / total

def check_method(method: str) -> str:
    """``method`` when it is one of ATTRIBUTION_METHODS, else ConfigError naming them."""
    if method not in ATTRIBUTION_METHODS:
        raise ConfigError(f"unknown attribution method {method!r}; choose one of: {', '.join(ATTRIBUTION_METHODS)}")
    return method

def explain_steps(translator, translation, method: str, *, ig_steps: int = DEFAULT_IG_STEPS,
                  contrast: Mapping[int, str] | None = None, budget: int = DEFAULT_BUDGET) -> Iterator[StepAttribution]:
    """One StepAttribution per row of ``translation.tokens`` (the EOS row included), in order, computed by
    teacher-forcing the translation's own tokens through ``translator``'s model; closing the generator stops
    the work. ``contrast`` maps an output position to an alternative piece y' (a piece string of the target
    vocabulary) for which that step's attribution is contrastive. Raises ConfigError (naming the valid
    choices) for an unknown method, a contrast position outside the output or a contrast that is no piece."""
    check_method(method)
    if translation.empty or not translation.tokens:
        return iter(())
    prepared = translator.prepare(translation.source)
    if prepared.tokens != tuple(translation.source_tokens):
        raise ConfigError("the translation's source pieces are not what this model's tokenizer makes of its text")
    tokenizer = translator.target_tokenizer
    target_ids = [step.token_id for step in translation.steps] if len(translation.steps) == len(translation.tokens) \
        else [_piece_id(tokenizer, piece) for piece in translation.tokens]
    contrast_ids = contrast_ids_of(tokenizer, translation.tokens, contrast or {})
    return explain_ids(translator.model, prepared.ids, target_ids, method, ig_steps=ig_steps,
                       contrast_ids=contrast_ids, budget=budget, namer=tokenizer.pieces)

def contrast_ids_of(tokenizer, tokens: Sequence[str], contrast: Mapping[int, str]) -> dict[int, int]:
    """{position: id of y'} from {position: piece}; ConfigError for a position outside the output, a piece the
    target vocabulary lacks, or a contrast equal to the output piece itself."""
    ids = {}
    for position, piece in contrast.items():
        if not 0 <= position < len(tokens):
            raise ConfigError(f"contrast position {position} is outside the output (0 to {len(tokens) - 1})")
        index = _piece_id(tokenizer, piece)
        if piece == tokens[position]:
            raise ConfigError(f"the contrast {piece!r} at position {position} is the output piece itself")
        ids[position] = index
    return ids

def _piece_id(tokenizer, piece: str) -> int:
    index = tokenizer.piece_id(piece)
    if index is None:
        raise ConfigError(f"{piece!r} is not a piece of the target vocabulary")
    return index

def explain_ids(model: EncoderDecoder, source_ids: Sequence[int], target_ids: Sequence[int], method: str, *,
                ig_steps: int = DEFAULT_IG_STEPS, contrast_ids: Mapping[int, int] | None = None,
                budget: int = DEFAULT_BUDGET, namer=None) -> Iterator[StepAttribution]:
    """:func:`explain_steps` on ids: ``source_ids`` (S ≥ 1) and the output ``target_ids`` (T ≥ 1, EOS included
    when emitted) of ``model``; ``namer`` turns ids into piece strings (for ``contrast_token``)."""
    check_method(method)
    if method == "ig" and ig_steps < 2:
        raise ConfigError(f"Integrated Gradients needs at least 2 interpolation steps, not {ig_steps}")
    contrast_ids = dict(contrast_ids or {})
    return _explain(ForcedRows(model, source_ids, target_ids), method, ig_steps, contrast_ids, budget, namer)

def _explain(rows: ForcedRows, method: str, ig_steps: int, contrast_ids: dict[int, int], budget: int,
             namer) -> Iterator[StepAttribution]:
    log_probs = rows.log_probs().cpu().numpy().astype(np.float64)  # T
    total = rows.target_length
    chunk = chunk_size(method, rows.source_length, total, ig_steps, budget)
    for start in range(0, total, chunk):
        steps = list(range(start, min(start + chunk, total)))
        contrasts = [contrast_ids.get(step, NO_CONTRAST) for step in steps]
        if method == "occlusion":
            source, prefix = occlusion_chunk(rows, steps, contrasts)
            deltas = np.zeros(len(steps))
        else:
            source, prefix, deltas = gradient_chunk(rows, method, steps, contrasts, ig_steps)
        for row, step in enumerate(steps):
            contrast = contrasts[row]
            yield StepAttribution(
                index=step, method=method, source=_frozen(source[row]), prefix=_frozen(prefix[row, :step]),
                target_log_prob=float(log_probs[step]), delta=float(deltas[row]),
                contrast_token=None if contrast == NO_CONTRAST else (namer([contrast])[0] if namer else str(contrast)))

def chunk_size(method: str, sources: int, targets: int, ig_steps: int, budget: int = DEFAULT_BUDGET) -> int:
    """How many consecutive steps one batched forward attributes: its rows × (S + T) positions within
    ``budget`` (IG: ``ig_steps`` rows a step; occlusion: 1 + S + T variants a step; input × gradient: 1), and at
    most ``MAX_CHUNK_STEPS`` (a long output's later steps run the decoder further: a chunk of many is costly)."""
    per_step = {"ig": ig_steps, "grad": 1, "occlusion": 1 + sources + targets}[method] * (sources + targets)
    return max(1, min(MAX_CHUNK_STEPS, budget // per_step))

def _frozen(values: np.ndarray) -> np.ndarray:
    copy = np.array(values, dtype=np.float64)
    copy.setflags(write=False)
    return copy
