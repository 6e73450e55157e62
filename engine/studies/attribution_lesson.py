"""What an attribution study shows, in words, derived from its figures — never a fixed sentence.

The readings of docs/attribution-study.md (and of whatever else shows the stored studies) follow from the
figures of one direction's models (engine.studies.attribution_scores):

- **agreement**: the scorer whose most-attended piece is most often the piece occlusion finds most needed, and
  the one least often; each compared with chance (the mean 1/S of its steps): *above chance* when its
  agreement is at least ``ABOVE_CHANCE`` (1.5) times chance, *near chance* otherwise;
- **rank correlation**: the mean Spearman ρ(α, |IG|) named *weak* below ``WEAK`` (0.2), *moderate* below
  ``STRONG`` (0.5), *strong* from there, for the scorers with the highest and the lowest ρ;
- **permutation**: the scorer whose output moves most when α is shuffled within the row and the one that
  moves least; a model whose token changes at fewer than ``BARELY`` (10%) of the steps *barely depends on where
  α falls* (Jain & Wallace's finding), one at ``MATTERS`` (30%) or more *depends on it*;
- **source share**: the fixed-context model's share of attribution on the source beside the attention models'
  mean, when both are there (*about as much as* within ``SAME_SHARE``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

ABOVE_CHANCE = 1.5
WEAK, STRONG = 0.2, 0.5
BARELY, MATTERS = 0.10, 0.30
SAME_SHARE = 0.01  # source shares this close read as "about as much as"


@dataclass(frozen=True)
class AttributionFigures:
    """One model's summary figures (None where the model has no α)."""

    scorer: str
    label: str  # how the reading names it, e.g. "`additive`"
    agree: float | None
    chance: float
    rho: float | None
    changed: float | None
    tvd: float | None
    share: float


@dataclass(frozen=True)
class _Attending:
    """The figures of a model that has α: every measure present."""

    label: str
    agree: float
    chance: float
    rho: float
    changed: float
    tvd: float
    share: float

    @staticmethod
    def of(figures: AttributionFigures) -> _Attending | None:
        """``figures`` with every measure present, or None for a model without α."""
        f = figures
        if f.agree is None or f.rho is None or f.changed is None or f.tvd is None:
            return None
        return _Attending(f.label, f.agree, f.chance, f.rho, f.changed, f.tvd, f.share)


def strength(rho: float) -> str:
    """'weak', 'moderate' or 'strong', by |ρ|."""
    size = abs(rho)
    return "weak" if size < WEAK else "moderate" if size < STRONG else "strong"


def dependence(changed: float) -> str:
    """How much a model's output depends on where α falls, by the share of steps whose token a permutation changes."""
    if changed < BARELY:
        return "barely depends on where α falls"
    return "depends on where α falls" if changed >= MATTERS else "depends on it at some steps"


def attribution_reading(figures: Sequence[AttributionFigures]) -> str:
    """A paragraph on one direction's models; "" when none has a study."""
    attending = [a for a in map(_Attending.of, figures) if a is not None]
    sentences = []
    if attending:
        sentences += [_agreement_sentence(attending), _ranking_sentence(attending), _dependence_sentence(attending)]
    fixed = [f for f in figures if f.agree is None]
    if fixed:
        sentences.append(_fixed_sentence(fixed[0], attending))
    return " ".join(sentences)


def _agreement_sentence(attending: list[_Attending]) -> str:
    """Whose most-attended piece is most (and least) often the one occlusion finds most needed."""
    best = max(attending, key=lambda f: f.agree)
    worst = min(attending, key=lambda f: f.agree)
    return _agreement(best, "most often") + ("" if worst is best else f"; {_agreement(worst, 'least often')}") + "."


def _ranking_sentence(attending: list[_Attending]) -> str:
    """How alike α and |IG| rank the source pieces, for the most and the least alike."""
    high = max(attending, key=lambda f: f.rho)
    low = min(attending, key=lambda f: f.rho)
    return (f"Attention and |IG| rank the source pieces alike to a {strength(high.rho)} degree for "
            f"{high.label} (mean ρ {high.rho:.2f})"
            + ("" if low is high else f" and a {strength(low.rho)} one for {low.label} ({low.rho:.2f})") + ".")


def _dependence_sentence(attending: list[_Attending]) -> str:
    """How often shuffling α changes the token, for the models it changes most and least."""
    most = max(attending, key=lambda f: f.changed)
    least = min(attending, key=lambda f: f.changed)
    return (f"Shuffling α within the row changes {most.label}'s token at {most.changed:.0%} of the steps "
            f"(total variation {most.tvd:.2f}): its output {dependence(most.changed)}" + (
                "" if least is most else
                f"; {least.label}'s at {least.changed:.0%} (total variation {least.tvd:.2f}): "
                f"its output {dependence(least.changed)}") + ".")


def _fixed_sentence(fixed: AttributionFigures, attending: list[_Attending]) -> str:
    """The fixed C's share of attribution on the source, beside the attention models' mean when there are some."""
    if not attending:
        return f"{fixed.label} has no α; {fixed.share:.0%} of its attribution is on the source."
    mean_share = sum(f.share for f in attending) / len(attending)
    gap = fixed.share - mean_share
    more = "about as much as" if abs(gap) < SAME_SHARE else "more than" if gap > 0 else "less than"
    return (f"Without attention, {fixed.label} draws {fixed.share:.0%} of its attribution from the "
            f"source, {more} the attention models' {mean_share:.0%} on average.")


def _agreement(figures: _Attending, how: str) -> str:
    ratio = figures.agree / figures.chance if figures.chance > 0 else 0.0
    where = "above chance" if ratio >= ABOVE_CHANCE else "near chance"
    return (f"{figures.label}'s most-attended piece is {how} the one occlusion finds most needed "
            f"({figures.agree:.0%} of the steps, chance {figures.chance:.0%}: {where})")
