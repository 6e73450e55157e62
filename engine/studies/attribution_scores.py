"""The stored attribution study: its per-step figures, the summary they give, and the checked reader of the
study a model folder's config.json holds (``metrics.attribution``). No PyTorch: the app reads it before the
engine is loaded; engine.studies.attribution_study measures it.

Per decode step of the sample (every row of each greedy output, the end-of-sentence row included):

- ``agree``: 1 when the source piece with the largest α is the one whose occlusion lowers log p(y_i) most;
- ``rho``: Spearman's ρ between α_i and |IG| over the source pieces (None where a row has fewer than two
  pieces or either side is constant);
- ``changed``: the share of the random permutations of α_i within the row (Jain & Wallace 2019) after which the
  step's most probable token is another one; ``tvd``: the mean total variation distance
  ½ Σ_v |p(v) - p_permuted(v)| between the two output distributions;
- ``share``: IG's source share Σ|source| / (Σ|source| + Σ|prefix|) (engine.explain.StepAttribution);
- ``pieces``: the number S of source pieces (1/S is the agreement two random choices would have).

The first four are None for the fixed-context model (no α). The summary is the mean of each over the steps
where it is defined; the reader recomputes it from the steps and refuses a study whose summary disagrees.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from engine.files.schema import Int, ListOf, Num, Obj, SchemaError
from engine.settings.errors import StoredFileError

STUDY_KEY = "attribution"
STUDY_VERSION = 1
MEASURES = ("agree", "rho", "changed", "tvd", "share")
MAX_STEPS = 200_000


def spearman(first: Sequence[float], second: Sequence[float]) -> float | None:
    """Spearman's rank correlation (ties ranked by their mean rank); None when fewer than two values or either
    side is constant."""
    a, b = np.asarray(first, dtype=np.float64), np.asarray(second, dtype=np.float64)
    if a.size < 2 or np.ptp(a) == 0 or np.ptp(b) == 0:
        return None
    ra, rb = _ranks(a), _ranks(b)
    ra, rb = ra - ra.mean(), rb - rb.mean()
    return float(np.clip((ra * rb).sum() / math.sqrt((ra * ra).sum() * (rb * rb).sum()), -1.0, 1.0))


def _ranks(values: np.ndarray) -> np.ndarray:
    order = np.argsort(values, kind="stable")
    ranks = np.empty(values.size)
    ranks[order] = np.arange(values.size, dtype=np.float64)
    for value in np.unique(values):  # ties: their mean rank
        tied = values == value
        if tied.sum() > 1:
            ranks[tied] = ranks[tied].mean()
    return ranks


def mean_defined(values: Sequence[float | None] | None) -> float | None:
    """The mean of the values that are not None; None when there are none (or no list)."""
    defined = [v for v in values or () if v is not None]
    return float(np.mean(defined)) if defined else None


@dataclass(frozen=True)
class AttributionStudy:
    """One model's attribution study over a sample of its test split (per-step figures, in order)."""

    sentences: int  # test pairs translated and explained
    test_pairs: int  # the test split it was drawn from
    seed: int  # the sample's seed (engine.studies.attribution_study.sample_pairs)
    ig_steps: int
    draws: int  # random permutations of α per step
    agree: tuple[float, ...] | None  # per step; None for the fixed context
    rho: tuple[float | None, ...] | None
    changed: tuple[float, ...] | None
    tvd: tuple[float, ...] | None
    share: tuple[float, ...]
    pieces: tuple[int, ...]  # S at each step
    seconds: float

    @property
    def steps(self) -> int:
        return len(self.share)

    def figure(self, measure: str) -> float | None:
        """The mean of ``measure`` (one of MEASURES) over the steps where it is defined."""
        return mean_defined(getattr(self, measure))

    @property
    def chance_agreement(self) -> float:
        """The agreement of two independent uniform choices of a source piece: the mean of 1/S over the steps."""
        return float(np.mean([1.0 / n for n in self.pieces]))

    def to_json(self) -> dict[str, Any]:
        def listed(values):
            return None if values is None else [None if v is None else round(float(v), 4) for v in values]

        return {"version": STUDY_VERSION, "sentences": self.sentences, "test_pairs": self.test_pairs,
                "seed": self.seed, "ig_steps": self.ig_steps, "draws": self.draws, "seconds": round(self.seconds, 1),
                "steps": {measure: listed(getattr(self, measure)) for measure in MEASURES} | {"pieces": list(self.pieces)},
                "summary": {measure: _rounded(mean_defined(listed(getattr(self, measure)))) for measure in MEASURES}}

    @staticmethod
    def from_json(data: Any) -> AttributionStudy:
        """The stored study, checked (StoredFileError names the first fault)."""
        try:
            SCHEMA.check(data)
        except SchemaError as error:
            raise StoredFileError(f"the attribution study is refused: {error}") from None
        if data["version"] != STUDY_VERSION:
            raise StoredFileError(f"the attribution study is of version {data['version']}; this app reads {STUDY_VERSION}")
        steps = data["steps"]
        _check_steps(steps)
        _check_summary(steps, data["summary"])

        def values(measure):
            listed = steps.get(measure)
            return None if listed is None else tuple(listed)

        return AttributionStudy(data["sentences"], data["test_pairs"], data["seed"], data["ig_steps"], data["draws"],
                                values("agree"), values("rho"), values("changed"), values("tvd"),
                                tuple(steps["share"]), tuple(steps["pieces"]), float(data["seconds"]))


def _check_steps(steps: dict[str, Any]) -> None:
    """StoredFileError unless the stored step lists are of one length, with share and pieces, and only rho
    has missing steps."""
    lengths = {measure: len(steps[measure]) for measure in (*MEASURES, "pieces") if steps.get(measure) is not None}
    if len(set(lengths.values())) != 1 or "share" not in lengths or "pieces" not in lengths:
        raise StoredFileError(f"the attribution study is refused: its step lists differ in length ({lengths})")
    if any(v is None for measure in ("agree", "changed", "tvd", "share") for v in steps.get(measure) or ()):
        raise StoredFileError("the attribution study is refused: only rho may be missing at a step")


def _check_summary(steps: dict[str, Any], summary: dict[str, Any]) -> None:
    """StoredFileError unless each stored mean is the mean of its steps (within 1e-3), missing where they are."""
    for measure in MEASURES:
        stored, recomputed = summary.get(measure), mean_defined(steps.get(measure))
        if (stored is None) != (recomputed is None) or (stored is not None and abs(stored - recomputed) > 1e-3):
            raise StoredFileError(f"the attribution study is refused: its {measure} summary is {stored} but its "
                                  f"steps give {recomputed}")


def _rounded(value: float | None) -> float | None:
    return None if value is None else round(value, 4)


_STEP_LIST = ListOf(Num(-1.0, 1.0, nullable=True), max_items=MAX_STEPS, nullable=True)
SCHEMA = Obj({"version": Int(1, 1000), "sentences": Int(1), "test_pairs": Int(1), "seed": Int(0),
              "ig_steps": Int(2, 10_000), "draws": Int(1, 10_000), "seconds": Num(0.0),
              "steps": Obj({measure: _STEP_LIST for measure in MEASURES} | {"pieces": ListOf(Int(1), max_items=MAX_STEPS)},
                           frozenset({"share", "pieces"})),
              "summary": Obj({measure: Num(-1.0, 1.0, nullable=True) for measure in MEASURES}, frozenset(MEASURES))},
             frozenset({"version", "sentences", "test_pairs", "seed", "ig_steps", "draws", "seconds", "steps",
                        "summary"}))


def stored_attribution_study(info: dict[str, Any]) -> AttributionStudy | None:
    """The study stored in a config.json (as engine.models.config_file.read_config returns it); None when there
    is none; StoredFileError with the reason when it is there but damaged."""
    metrics = info.get("metrics") if isinstance(info, dict) else None
    if not isinstance(metrics, dict) or STUDY_KEY not in metrics:
        return None
    return AttributionStudy.from_json(metrics[STUDY_KEY])
