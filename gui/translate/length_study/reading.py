"""A plain-language reading of how the scorers attend, written from the stored figures.

The length study's "How they attend" table lists, per scorer, the corpus attention statistics of
the test split (mean row entropy, mean largest weight, monotonic share, coverage deviation). Four
numbers for four scorers are hard to read at a glance, so :func:`attention_reading` says what they
show in one paragraph: which scorer spreads its attention most and which least, which covers the
source most evenly, how monotonic they all are, and whether the evenly covering scorer also
translates the longest inputs better. Every statement is derived from the figures passed in (the
comparisons can come out either way), never from what the shipped models happen to do.

Scorers not trained alike (engine.studies.training_budget: a converged model beside a 25-minute one) are not
set against each other: the reading compares within each group of two or more that were, and names it.

Pure Python (no Qt).
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import QCoreApplication

from engine.settings import FIXED_CONTEXT
from engine.studies import among
from gui.i18n import fill
from gui.scorer_labels import scorer_label
from gui.translate.length_study.model import LengthStudyData

NEEDED = ("mean_entropy", "mean_max_weight", "monotonic_share", "coverage_deviation")


@dataclass(frozen=True)
class _Scorer:
    name: str
    label: str
    entropy: float
    max_weight: float
    monotonic: float
    coverage_deviation: float


def _with_statistics(data: LengthStudyData) -> list[_Scorer]:
    """The attention scorers whose stored statistics have every figure the reading uses."""
    found = []
    for scorer in data.scorers:
        stats = scorer.attention or {}
        if scorer.name != FIXED_CONTEXT and all(key in stats for key in NEEDED):
            found.append(_Scorer(scorer.name, scorer_label(scorer.row), *(float(stats[key]) for key in NEEDED)))
    return found


def _longest_bucket_bleu(data: LengthStudyData, names: tuple[str, ...]) -> tuple[str, dict[str, float]] | None:
    """(label, BLEU by scorer name) of the longest bucket in which every one of ``names`` has a score."""
    series = {s.name: s for s in data.series}
    if not all(name in series for name in names):
        return None
    for label in reversed(data.buckets()):
        scores = {name: series[name].at(label) for name in names}
        if all(score is not None for score in scores.values()):
            return label, {name: score[1] for name, score in scores.items()}
    return None


def attention_reading(data: LengthStudyData) -> str:
    """One paragraph (plain text) reading the attention statistics of ``data``; "" when fewer than
    two attention scorers have them (there is nothing to compare). Scorers not trained alike are read
    within their groups: a paragraph per group of two or more, opening with who is in it."""
    scorers = _with_statistics(data)
    by_name = {scorer.name: scorer for scorer in scorers}
    groups = [[by_name[name] for name in group] for group in data.trained_alike_groups(list(by_name))]
    if len(groups) == 1:
        return _reading(data, scorers)
    return "\n\n".join(among([s.label for s in group]) + _reading(data, group) for group in groups if len(group) >= 2)


def _reading(data: LengthStudyData, scorers: list[_Scorer]) -> str:
    """The reading of ``scorers`` (trained alike); "" when fewer than two."""
    if len(scorers) < 2:
        return ""
    even = min(scorers, key=lambda s: s.coverage_deviation)
    uneven = max(scorers, key=lambda s: s.coverage_deviation)
    sentences = [_spread_sentence(scorers)]
    if even is not uneven:
        sentences.append(fill(QCoreApplication.translate(
            "AttentionReading", "%1 covers the source most evenly (coverage deviation %2: each source token attended "
            "about once in all), %3 least (%4: some tokens skipped, others attended twice)."),
            even.label, f"{even.coverage_deviation:.2f}", uneven.label, f"{uneven.coverage_deviation:.2f}"))
    sentences.append(_monotonic_sentence(scorers))
    if even is not uneven and (longest := _longest_bucket_bleu(data, (even.name, uneven.name))) is not None:
        sentences.append(_longest_inputs_sentence(data, even, uneven, *longest))
    return " ".join(sentences)


def _spread_sentence(scorers: list[_Scorer]) -> str:
    """Which scorer spreads its attention the most (highest row entropy) and which the least."""
    soft = max(scorers, key=lambda s: s.entropy)
    sharp = min(scorers, key=lambda s: s.entropy)
    return fill(QCoreApplication.translate(
        "AttentionReading", "%1 spreads its attention the most (row entropy %2 nats, %3 of a step on its favourite "
        "source token), %4 the least (%5 nats, %6)."), soft.label, f"{soft.entropy:.2f}", f"{soft.max_weight:.0%}",
        sharp.label, f"{sharp.entropy:.2f}", f"{sharp.max_weight:.0%}")


def _monotonic_sentence(scorers: list[_Scorer]) -> str:
    """How often the most-attended source token moves forward (one share, or the scorers' range)."""
    low = min(s.monotonic for s in scorers)
    high = max(s.monotonic for s in scorers)
    spread = f"{low:.0%}" if f"{low:.0%}" == f"{high:.0%}" else f"{low:.0%}–{high:.0%}"
    return QCoreApplication.translate(
        "AttentionReading", "Their most-attended source token moves forward, never back, at %1 of the steps.").replace(
        "%1", spread)


def _longest_inputs_sentence(data: LengthStudyData, even: _Scorer, uneven: _Scorer, label: str,
                             bleu: dict[str, float]) -> str:
    """Whether the evenly covering scorer translates the longest inputs (bucket ``label``) better than
    the unevenly covering one, and the fixed C's score there when it has one."""
    if bleu[even.name] > bleu[uneven.name]:
        verdict = fill(QCoreApplication.translate(
            "AttentionReading", "the even one translates better (BLEU %1 against %2): a source token that gets no "
            "attention is a word the output drops"), f"{bleu[even.name]:.1f}", f"{bleu[uneven.name]:.1f}")
    elif bleu[even.name] < bleu[uneven.name]:
        verdict = fill(QCoreApplication.translate(
            "AttentionReading", "the uneven one translates better here (BLEU %1 against %2): even coverage alone "
            "does not make a better translation"), f"{bleu[uneven.name]:.1f}", f"{bleu[even.name]:.1f}")
    else:
        verdict = QCoreApplication.translate("AttentionReading", "both score BLEU %1").replace(
            "%1", f"{bleu[even.name]:.1f}")
    fixed = _longest_bucket_bleu(data, (FIXED_CONTEXT,))
    if fixed is not None and fixed[0] == label:
        verdict += QCoreApplication.translate("AttentionReading", "; the fixed C, without attention, scores %1").replace(
            "%1", f"{fixed[1][FIXED_CONTEXT]:.1f}")
    return fill(QCoreApplication.translate("AttentionReading", "On the longest inputs (%1 source tokens) %2."),
                label, verdict)
