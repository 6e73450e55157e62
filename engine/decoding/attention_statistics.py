"""Statistics of an attention matrix α (rows: output steps i, columns: source tokens j): the numbers
that tell scorers apart on one sentence and over a corpus.

- **Row entropy** H_i = −Σ_j α_ij log α_ij (nats): 0 when a step looks at one source token, log S
  when it spreads evenly. Its mean over steps says how sharp a scorer's attention is.
- **Max weight** max_j α_ij: the share of the step's attention on its favourite token.
- **Coverage** c_j = Σ_i α_ij: the total attention source token j received over the whole output.
  About 1 per token for a one-to-one translation; near 0 flags a word the output may have dropped
  (under-translation), well above 1 one it may have translated twice (over-translation; Tu et al.
  2016, "Modeling coverage for neural machine translation").
- **Coverage deviation**: the mean |c_j − 1| over source tokens.
- **Monotonic share**: of the steps after the first, the share whose argmax source position does
  not move left of the previous step's — how closely the scorer reads the source in order.

Rows of the end-of-sentence step are included: they are part of what the model computed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class AttentionStats:
    mean_entropy: float  # nats
    mean_max_weight: float
    coverage: tuple[float, ...]  # c_j, one per source token
    coverage_deviation: float
    monotonic_share: float  # NaN with fewer than two steps
    steps: int

    def to_json(self) -> dict[str, object]:
        return {"mean_entropy": round(self.mean_entropy, 4), "mean_max_weight": round(self.mean_max_weight, 4),
                "coverage": [round(c, 4) for c in self.coverage],
                "coverage_deviation": round(self.coverage_deviation, 4),
                "monotonic_share": None if np.isnan(self.monotonic_share) else round(self.monotonic_share, 4),
                "steps": self.steps}


def row_entropy(attention: np.ndarray) -> np.ndarray:
    """attention: T×S (rows sum to 1) → (T,) entropies in nats (0·log 0 taken as 0)."""
    weights = np.clip(np.asarray(attention, dtype=np.float64), 0.0, 1.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(weights > 0, weights * np.log(weights), 0.0)
    return -terms.sum(axis=1)


def monotonic_share(attention: np.ndarray) -> float:
    """Share of steps i ≥ 1 whose argmax_j α_ij ≥ argmax_j α_{i-1,j}; NaN with fewer than 2 steps."""
    peaks = np.asarray(attention).argmax(axis=1)
    if len(peaks) < 2:
        return float("nan")
    return float(np.mean(peaks[1:] >= peaks[:-1]))


def attention_stats(attention: np.ndarray) -> AttentionStats:
    """The statistics of one T×S attention matrix (T ≥ 1, S ≥ 1)."""
    matrix = np.asarray(attention, dtype=np.float64)
    if matrix.ndim != 2 or matrix.shape[0] == 0 or matrix.shape[1] == 0:
        raise ValueError(f"an attention matrix has at least one row and one column; got shape {matrix.shape}")
    coverage = matrix.sum(axis=0)
    return AttentionStats(
        mean_entropy=float(row_entropy(matrix).mean()),
        mean_max_weight=float(matrix.max(axis=1).mean()),
        coverage=tuple(float(c) for c in coverage),
        coverage_deviation=float(np.abs(coverage - 1.0).mean()),
        monotonic_share=monotonic_share(matrix),
        steps=matrix.shape[0],
    )


@dataclass(frozen=True)
class CorpusAttentionStats:
    """The sentence statistics averaged over a corpus (each sentence weighs the same)."""

    sentences: int
    mean_entropy: float
    mean_max_weight: float
    monotonic_share: float
    coverage_deviation: float

    def to_json(self) -> dict[str, float | int]:
        return {"sentences": self.sentences, "mean_entropy": round(self.mean_entropy, 4),
                "mean_max_weight": round(self.mean_max_weight, 4),
                "monotonic_share": round(self.monotonic_share, 4),
                "coverage_deviation": round(self.coverage_deviation, 4)}


def corpus_attention_stats(matrices: Sequence[np.ndarray | None]) -> CorpusAttentionStats | None:
    """Mean statistics over the non-empty matrices; None when there is none (the ``none`` scorer)."""
    stats = [attention_stats(m) for m in matrices if m is not None and m.size]
    if not stats:
        return None
    return CorpusAttentionStats(
        sentences=len(stats),
        mean_entropy=float(np.mean([s.mean_entropy for s in stats])),
        mean_max_weight=float(np.mean([s.mean_max_weight for s in stats])),
        monotonic_share=_mean_of_defined([s.monotonic_share for s in stats]),
        coverage_deviation=float(np.mean([s.coverage_deviation for s in stats])),
    )


def _mean_of_defined(values: list[float]) -> float:
    """The mean of the values that are not NaN (a sentence of one step has no monotonic share); NaN if none is."""
    defined = [v for v in values if not np.isnan(v)]
    return float(np.mean(defined)) if defined else float("nan")
