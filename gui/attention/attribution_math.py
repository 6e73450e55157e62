"""What the map and the inspector make of attributions (engine/explain: ``StepAttribution``), beside α.

Pure numpy (no Qt, no torch): the attributions of one run kept per method and step
(:class:`AttributionStore`), the map's matrix of a method (rows not computed yet are NaN), the
agreement of one step's α with its attribution — Spearman's rank correlation and whether the top
source word is the same — and the diverging colour scale of signed values.

**Signed, compared by magnitude.** An attribution is signed (positive: the source word raised
log p(y_i); negative: it lowered it). The map draws the sign on a diverging scale centred on 0
(blue −, white 0, red +). The comparison with α, which is never negative, ranks the attribution's
magnitude |a_ij| (how much the output depends on the word, in either direction), as the source
share does (engine/explain: Σ|source| over Σ|source| + Σ|prefix|).

**Words.** A word's attribution is the sum of its pieces' (attributions are additive), as α is summed
over a source word's pieces; an output word's row averages its pieces' rows, as α's does
(engine/text/words.py), so a word's map row is on the scale of its pieces' rows.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

ALPHA = "alpha"  # the map shows the attention weights themselves
MAP_METHODS: tuple[str, ...] = (ALPHA, "ig", "grad", "occlusion")  # engine.explain.ATTRIBUTION_METHODS after α
SHORT_NAMES: dict[str, str] = {ALPHA: "α", "ig": "IG", "grad": "x·∇", "occlusion": "occl."}  # symbols, not words
DIVERGING_MAP = "CET-D1"  # blue – white – red, centred on 0 (the Compare tab's difference map uses it too)


class StepAttributionLike(Protocol):
    """What the GUI reads of an ``engine.explain.StepAttribution`` (see docs of engine/explain)."""

    index: int
    method: str
    source: np.ndarray  # (S,)
    prefix: np.ndarray  # (i,)
    target_log_prob: float
    contrast_token: str | None

    @property
    def source_share(self) -> float: ...


def check_method(name: str) -> str:
    """``name`` when it is one of MAP_METHODS; the error lists the valid names."""
    if name not in MAP_METHODS:
        raise ValueError(f"unknown map content {name!r}: choose one of {', '.join(MAP_METHODS)}")
    return name


@dataclass
class AttributionStore:
    """The attributions of the run on screen: per method, per output position; contrastive ones by
    (position, alternative piece)."""

    source_count: int = 0
    steps: dict[str, dict[int, StepAttributionLike]] = field(default_factory=dict)
    contrasts: dict[tuple[str, int, str], StepAttributionLike] = field(default_factory=dict)

    def add(self, item: StepAttributionLike) -> None:
        if item.contrast_token is not None:
            self.contrasts[(item.method, int(item.index), item.contrast_token)] = item
        else:
            self.steps.setdefault(item.method, {})[int(item.index)] = item

    def step(self, method: str, index: int) -> StepAttributionLike | None:
        return self.steps.get(method, {}).get(index)

    def contrast(self, method: str, index: int, token: str) -> StepAttributionLike | None:
        return self.contrasts.get((method, index, token))

    def count(self, method: str) -> int:
        """How many steps of ``method`` are in."""
        return len(self.steps.get(method, {}))

    def complete(self, method: str, rows: int) -> bool:
        """Every one of ``rows`` output positions has its ``method`` attribution."""
        done = self.steps.get(method, {})
        return rows > 0 and all(i in done for i in range(rows))

    def matrix(self, method: str, rows: int) -> np.ndarray:
        """Rows = output positions 0..rows-1, columns = source pieces: the attribution to the source;
        NaN for a row not computed yet (drawn transparent)."""
        out = np.full((rows, self.source_count), np.nan, np.float32)
        for index, item in self.steps.get(method, {}).items():
            if index < rows and len(item.source) == self.source_count:
                out[index] = item.source
        return out

    def shares(self, method: str, rows: int) -> np.ndarray:
        """(rows,) the share of each step's attribution on the source (NaN where not computed)."""
        out = np.full(rows, np.nan, np.float32)
        for index, item in self.steps.get(method, {}).items():
            if index < rows:
                out[index] = float(item.source_share)
        return out


def merge_word_rows(shares: np.ndarray, starts: Sequence[int]) -> np.ndarray:
    """Per-piece values (a source share per step) → per output word: the mean of its pieces' (NaN
    pieces left out; NaN when none of them is in)."""
    values = np.asarray(shares, dtype=np.float64)
    bounds = [s for s in starts if s < len(values)] + [len(values)]
    out = []
    for start, stop in zip(bounds[:-1], bounds[1:], strict=False):
        part = values[start:stop]
        part = part[~np.isnan(part)]
        out.append(float(part.mean()) if part.size else math.nan)
    return np.asarray(out, dtype=np.float32)


def ranks(values: np.ndarray) -> np.ndarray:
    """1-based ranks, ties sharing their average rank (as Spearman's ρ wants)."""
    values = np.asarray(values, dtype=np.float64)
    order = np.argsort(values, kind="stable")
    ranked = np.empty(len(values), dtype=np.float64)
    ranked[order] = np.arange(1, len(values) + 1)
    for value in np.unique(values):
        tied = values == value
        if tied.sum() > 1:
            ranked[tied] = ranked[tied].mean()
    return ranked


def spearman(a: np.ndarray, b: np.ndarray) -> float:
    """Spearman's rank correlation of two equally long vectors; NaN when either is constant or shorter
    than 2 (no ranking to compare)."""
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    if len(a) != len(b) or len(a) < 2:
        return math.nan
    ra, rb = ranks(a), ranks(b)
    if np.ptp(ra) == 0 or np.ptp(rb) == 0:
        return math.nan
    return float(np.corrcoef(ra, rb)[0, 1])


@dataclass(frozen=True)
class Agreement:
    """One step's α beside its attribution (both over the same source units)."""

    rho: float  # Spearman ρ(α_i, |a_i|); NaN when undefined
    top_alpha: int  # the source unit with the largest α
    top_attribution: int  # the source unit with the largest |a|

    @property
    def agrees(self) -> bool:
        return self.top_alpha == self.top_attribution


def agreement(alpha: np.ndarray, attribution: np.ndarray) -> Agreement:
    """How α_i and a step's attribution agree: ρ over |a|, and their top source units."""
    alpha, magnitude = np.asarray(alpha, dtype=np.float64), np.abs(np.asarray(attribution, dtype=np.float64))
    return Agreement(spearman(alpha, magnitude), int(np.argmax(alpha)), int(np.argmax(magnitude)))


def diverging_levels(matrix: np.ndarray) -> float:
    """The half-range of the diverging scale for ``matrix``: its largest |value| (1 when all are 0 or NaN)."""
    values = np.abs(np.asarray(matrix, dtype=np.float64))
    values = values[~np.isnan(values)]
    top = float(values.max()) if values.size else 0.0
    return top if top > 0 else 1.0


@dataclass(frozen=True)
class DivergingScale:
    """The colours of a signed map (the heatmap's colour-scale protocol, as gui/attention/color_scale.py's):
    symmetric around 0, from −m to +m with m the map's largest |value|, or (``per_row``, the Colours box's
    *Per row*) each row divided by its own largest |value|. The colour bar's labels are given, in the
    interface's language: ``map_label`` with %1 for m, ``row_label``."""

    map_label: str
    row_label: str
    per_row: bool = False

    def apply(self, matrix: np.ndarray) -> tuple[np.ndarray, tuple[float, float], str]:
        """The image values for ``matrix`` (rows × columns, NaN where not computed), the levels, the bar's label."""
        matrix = np.asarray(matrix, dtype=np.float32)
        if self.per_row:
            magnitude = np.abs(matrix)
            top = np.nanmax(np.where(np.isnan(magnitude), 0.0, magnitude), axis=1, keepdims=True) if matrix.size \
                else np.ones((matrix.shape[0], 1), np.float32)
            top = np.where(top > 0, top, 1.0).astype(np.float32)
            return matrix / top, (-1.0, 1.0), self.row_label
        top = diverging_levels(matrix)
        return matrix, (-top, top), self.map_label.replace("%1", f"{top:.2f}")


def attribution_json(store: AttributionStore, method: str, rows: int) -> dict[str, Any] | None:
    """The export's record of ``method``'s attributions (None when none is in): per output position its
    source and prefix attributions, log p(y_i), the source share; contrastive ones listed apart."""
    steps: Mapping[int, StepAttributionLike] = store.steps.get(method, {})
    if not steps:
        return None

    def one(item: StepAttributionLike) -> dict[str, Any]:
        return {"index": int(item.index), "source": [round(float(v), 6) for v in item.source],
                "prefix": [round(float(v), 6) for v in item.prefix],
                "target_log_prob": round(float(item.target_log_prob), 6),
                "source_share": round(float(item.source_share), 6)}

    contrasts = [{**one(item), "contrast_token": item.contrast_token}
                 for (name, _i, _t), item in sorted(store.contrasts.items()) if name == method]
    return {"method": method, "complete": store.complete(method, rows),
            "steps": [one(steps[i]) for i in sorted(steps) if i < rows], "contrastive": contrasts,
            "signs": "positive: the source piece raised log p(y_i | y_<i, x); negative: it lowered it"}
