"""What the alignment studies say, in words: which scorer aligns best, and whether aligning better goes
with translating long inputs better.

Written from the figures passed in (each scorer's stored AER, precision and recall against the word
aligner, and its stored greedy BLEU on the longest inputs of the length study), never from what the
shipped models happen to do: every comparison can come out either way, and the sentence says which
way it came out. Pure Python; the quality and alignment reports and the app's Length study use it.

"Goes with" is counted over pairs of scorers: a pair agrees when the one with the lower AER has the
higher long-input BLEU, disagrees when it has the lower one (a tie in either figure counts neither).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations


@dataclass(frozen=True)
class AlignmentFigures:
    """One attention scorer's stored figures."""

    name: str  # registry name, e.g. "additive"
    label: str  # as shown, e.g. "Additive (Bahdanau)"
    aer: float  # argmax links against the aligner, 0–1
    precision: float
    recall: float
    long_bleu: float | None = None  # greedy BLEU on the longest inputs (41+ source sub-words); None if not stored


@dataclass(frozen=True)
class Agreement:
    """Pairs of scorers whose AER order and long-input BLEU order agree, disagree, or tie."""

    agree: int
    disagree: int
    ties: int

    @property
    def pairs(self) -> int:
        return self.agree + self.disagree + self.ties


def agreement(figures: Sequence[AlignmentFigures]) -> Agreement:
    """How often, over pairs of scorers with a long-input BLEU, the lower AER has the higher BLEU."""
    agree = disagree = ties = 0
    for a, b in combinations([f for f in figures if f.long_bleu is not None], 2):
        product = (a.aer - b.aer) * (a.long_bleu - b.long_bleu)  # type: ignore[operator]
        if product < 0:
            agree += 1
        elif product > 0:
            disagree += 1
        else:
            ties += 1
    return Agreement(agree, disagree, ties)


def _verdict(found: Agreement, long_label: str) -> str:
    inputs = f"the longest inputs ({long_label} source sub-words)"
    if found.agree == found.pairs:
        return (f"Aligning better goes with translating long inputs better: of every two scorers, the one with the "
                f"lower AER scores the higher BLEU on {inputs}.")
    if found.disagree == found.pairs:
        return (f"Aligning better does not go with translating long inputs better: of every two scorers, the one "
                f"with the lower AER scores the lower BLEU on {inputs}.")
    counts = f"{found.agree} of {found.pairs} pairs of scorers agree, {found.disagree} disagree"
    if found.agree > found.disagree:
        return f"Aligning better mostly goes with translating {inputs} better ({counts})."
    if found.disagree > found.agree:
        return f"Aligning better mostly does not go with translating {inputs} better ({counts})."
    return f"Aligning better and translating {inputs} better show no common order ({counts})."


def alignment_reading(figures: Sequence[AlignmentFigures], long_label: str = "41+") -> str:
    """One paragraph reading ``figures`` (one per attention scorer); "" with fewer than two scorers."""
    if len(figures) < 2:
        return ""
    ranked = sorted(figures, key=lambda f: f.aer)
    best, worst = ranked[0], ranked[-1]
    if best.aer == worst.aer:
        sentences = [f"All {len(figures)} scorers align equally well against the word aligner (AER {best.aer:.2f})."]
    else:
        sentences = [f"{best.label} aligns best against the word aligner (AER {best.aer:.2f}: {best.precision:.0%} of "
                     f"its argmax links are the aligner's, and it finds {best.recall:.0%} of them), {worst.label} "
                     f"worst (AER {worst.aer:.2f})."]
    found = agreement(figures)
    if found.pairs:
        sentences.append(_verdict(found, long_label))
        with_bleu = [f for f in figures if f.long_bleu is not None]
        top = max(with_bleu, key=lambda f: f.long_bleu)  # type: ignore[arg-type,return-value]
        if best.long_bleu is not None and top.long_bleu > best.long_bleu and best.aer != worst.aer:  # type: ignore[operator]
            sentences.append(f"The best aligner scores {best.long_bleu:.1f} BLEU there; {top.label} scores the most, "
                             f"{top.long_bleu:.1f}, with AER {top.aer:.2f}.")
    return " ".join(sentences)
