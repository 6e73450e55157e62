"""Link sets scored against the aligner's, and the stored alignment study: figures only, no PyTorch.

The study itself (``engine.studies.alignment_study``) forces a model through the test split; this module
holds what it measures and stores — link counts, AER, precision, recall — and the checked reader of
the study a model folder's config.json holds (``metrics.alignment``), so that the app can show it
without loading PyTorch. Links are (source word, output word) index pairs.

    precision = |A∩S| / |A|     recall = |A∩S| / |S|     AER = 1 − 2|A∩S| / (|A| + |S|)

(Och & Ney 2003 with sure links only: 1 − F1.) Shapes: Wt output words × Ws source words.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from engine.studies.align_words import WORD_RULE_VERSION
from engine.studies.alignment_store import AlignmentFileError
from engine.studies.symmetrize import Link

THRESHOLD = 0.3  # α at or above which an (output word, source word) pair counts as a link: a third of the step
TIE_TOLERANCE = 1e-9
STUDY_KEY = "alignment"


@dataclass(frozen=True)
class LinkScores:
    """Link counts summed over a corpus and the rates they give."""

    predicted: int  # |A|: the attention's links
    sure: int  # |S|: the aligner's links
    matched: int  # |A∩S|

    @property
    def precision(self) -> float:
        return self.matched / self.predicted if self.predicted else 0.0

    @property
    def recall(self) -> float:
        return self.matched / self.sure if self.sure else 0.0

    @property
    def aer(self) -> float:
        """1 − 2|A∩S| / (|A| + |S|); 1 when both sets are empty (nothing agrees)."""
        total = self.predicted + self.sure
        return 1.0 - 2.0 * self.matched / total if total else 1.0

    def __add__(self, other: LinkScores) -> LinkScores:
        return LinkScores(self.predicted + other.predicted, self.sure + other.sure, self.matched + other.matched)

    def to_json(self) -> dict[str, Any]:
        return {"predicted": self.predicted, "sure": self.sure, "matched": self.matched,
                "precision": round(self.precision, 4), "recall": round(self.recall, 4), "aer": round(self.aer, 4)}


def score_links(predicted: frozenset[Link], sure: frozenset[Link]) -> LinkScores:
    """The counts of one sentence: |A|, |S| and |A∩S|."""
    return LinkScores(len(predicted), len(sure), len(predicted & sure))


def argmax_links(attention: np.ndarray) -> frozenset[Link]:
    """Wt×Ws word attention → {(source word, output word)}: each output word with any attention
    linked to its most-attended source word(s) (every word within TIE_TOLERANCE of the maximum)."""
    links: set[Link] = set()
    for i, row in enumerate(np.asarray(attention, dtype=np.float64)):
        if row.size and row.max() > 0:
            links.update((int(j), i) for j in np.flatnonzero(row >= row.max() - TIE_TOLERANCE))
    return frozenset(links)


def threshold_links(attention: np.ndarray, threshold: float = THRESHOLD) -> frozenset[Link]:
    """Wt×Ws word attention → {(source word, output word) : α ≥ threshold}."""
    rows, columns = np.nonzero(np.asarray(attention, dtype=np.float64) >= threshold)
    return frozenset((int(j), int(i)) for i, j in zip(rows, columns, strict=True))


@dataclass(frozen=True)
class AlignmentStudy:
    """One model's attention against the aligner on the test split."""

    sentences: int  # test pairs scored
    skipped: int  # test pairs without aligner links, or whose source was cut
    argmax: LinkScores
    thresholded: LinkScores
    threshold: float
    aligner: str  # the alignment's description, e.g. "eflomal 2.0.0, grow-diag-final-and, 27,617 pairs of …"
    alignment_digest: str  # CorpusAlignment.digest of the links scored against
    seconds: float  # wall time of the study
    word_rule_version: int = WORD_RULE_VERSION

    def to_json(self) -> dict[str, Any]:
        return {"sentences": self.sentences, "skipped": self.skipped, "argmax": self.argmax.to_json(),
                "threshold": {"alpha": self.threshold, **self.thresholded.to_json()}, "aligner": self.aligner,
                "alignment_digest": self.alignment_digest, "seconds": round(self.seconds, 1),
                "word_rule_version": self.word_rule_version}

    @staticmethod
    def from_json(data: Any) -> AlignmentStudy:
        """The stored study, checked (AlignmentFileError names the first fault)."""
        def require(condition: bool, reason: str) -> None:
            if not condition:
                raise AlignmentFileError(f"the alignment study is refused: {reason}")

        def count(value: Any, what: str) -> int:
            require(isinstance(value, int) and not isinstance(value, bool) and value >= 0,
                    f"{what} must be a whole number ≥ 0; got {value!r}")
            return value

        def number(value: Any, what: str, low: float, high: float) -> float:
            require(isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)
                    and low <= value <= high, f"{what} must be a finite number in {low:g}–{high:g}; got {value!r}")
            return float(value)

        def scores(block: Any, what: str) -> LinkScores:
            require(isinstance(block, dict), f"{what} must be an object")
            found = LinkScores(count(block.get("predicted"), f"{what}.predicted"),
                               count(block.get("sure"), f"{what}.sure"), count(block.get("matched"), f"{what}.matched"))
            require(found.matched <= min(found.predicted, found.sure),
                    f"{what}: {found.matched} matched links out of {found.predicted} and {found.sure}")
            for rate in ("precision", "recall", "aer"):
                stored = number(block.get(rate), f"{what}.{rate}", 0.0, 1.0)
                require(abs(stored - getattr(found, rate)) <= 1e-3,
                        f"{what}.{rate} is {stored} but its counts give {getattr(found, rate):.4f}")
            return found

        require(isinstance(data, dict), "it must be an object")
        require(data.get("word_rule_version") == WORD_RULE_VERSION,
                f"made with word rule version {data.get('word_rule_version')!r}; this version reads {WORD_RULE_VERSION}")
        threshold = data.get("threshold")
        require(isinstance(threshold, dict), "threshold must be an object")
        sentences = count(data.get("sentences"), "sentences")
        require(sentences > 0, "it scored no sentence")
        require(isinstance(data.get("aligner"), str) and isinstance(data.get("alignment_digest"), str),
                "the aligner and the alignment's digest must be named")
        return AlignmentStudy(sentences, count(data.get("skipped"), "skipped"), scores(data.get("argmax"), "argmax"),
                              scores(threshold, "threshold"), number(threshold.get("alpha"), "threshold.alpha", 0.0, 1.0),
                              data["aligner"], data["alignment_digest"],
                              number(data.get("seconds"), "seconds", 0.0, math.inf))


def stored_alignment_study(info: dict[str, Any]) -> AlignmentStudy | None:
    """The study stored in a config.json (as engine.models.bundle.read_config returns it); None when there
    is none; AlignmentFileError with the reason when it is there but damaged."""
    metrics = info.get("metrics") if isinstance(info, dict) else None
    if not isinstance(metrics, dict) or STUDY_KEY not in metrics:
        return None
    return AlignmentStudy.from_json(metrics[STUDY_KEY])
