"""What a length study shows, in words, derived from its figures — never a fixed sentence.

Bahdanau et al.'s Figure 2 teaches that the fixed context C loses information as the input grows
and attention does not. Whether a given set of models shows that is a matter of their figures: the
caption of the Length study and the README say what *these* models' lines do — every line may fall
with length while attention falls less, or attention may hold its BLEU — from the stored studies.

The rule, on the buckets ``1–10`` (short) and ``41+`` (long, the two longest buckets scored as one):

- a line *holds up* when its long-input BLEU is at least ``HOLDS`` (0.8) of its short-input BLEU;
- the lesson names the attention scorer with the best long-input BLEU, the share of its short-input
  BLEU it keeps, C's share, and how many times C's long-input BLEU it scores;
- when C is not behind on long inputs, it says so: those models do not show attention's advantage.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from engine.length_study import LengthStudy
from engine.scorer_table import FIXED_CONTEXT

SHORT, LONG = "1–10", "41+"
HOLDS = 0.8  # a line holds up when it keeps this share of its short-input BLEU on long inputs


@dataclass(frozen=True)
class LengthLesson:
    """The figures behind the sentence (BLEU points; shares of the short-input BLEU)."""

    best: str  # the attention scorer with the best long-input BLEU
    best_short: float
    best_long: float
    fixed_short: float | None  # C's figures, None without a fixed-context study
    fixed_long: float | None
    all_fall: bool  # no attention scorer holds up

    @property
    def kept(self) -> float:
        """The share of its short-input BLEU the best scorer keeps on long inputs."""
        return self.best_long / self.best_short if self.best_short > 0 else 0.0

    @property
    def fixed_kept(self) -> float | None:
        if self.fixed_short is None or self.fixed_long is None or self.fixed_short <= 0:
            return None
        return self.fixed_long / self.fixed_short

    @property
    def times_fixed(self) -> float | None:
        """The best scorer's long-input BLEU as a multiple of C's (None when C scores 0 or is absent)."""
        if self.fixed_long is None or self.fixed_long <= 0:
            return None
        return self.best_long / self.fixed_long

    def sentence(self, labels: Mapping[str, str] | None = None) -> str:
        """The lesson in one or two sentences (plain text); ``labels`` maps scorer names to display names."""
        name = (labels or {}).get(self.best, self.best)
        kept = f"keeps {self.kept:.0%} of its {SHORT}-token BLEU on {LONG} tokens ({self.best_long:.1f} against " \
               f"{self.best_short:.1f})"
        if self.fixed_long is None:
            verb = "Long inputs hold up" if not self.all_fall else "Every line falls with length"
            return f"{verb}: the best scorer on the longest inputs, {name}, {kept}."
        fixed = f"the fixed C keeps {self.fixed_kept:.0%}" if self.fixed_kept is not None else "the fixed C"
        if self.best_long <= self.fixed_long:
            return (f"On {LONG} tokens the fixed C ({self.fixed_long:.1f} BLEU) is not behind the best attention "
                    f"scorer ({name}, {self.best_long:.1f}): these models do not show attention's advantage.")
        times = f"{self.times_fixed:.1f}× C's BLEU" if self.times_fixed is not None else "where C scores nothing"
        if self.all_fall:
            return (f"Every line falls with length — longer inputs are harder for every model — but attention "
                    f"falls less: {name} {kept}, {fixed}; on {LONG} tokens attention scores {times} "
                    f"({self.best_long:.1f} against {self.fixed_long:.1f}).")
        return (f"With attention, long inputs hold up: {name} {kept}, while {fixed} "
                f"({self.fixed_long:.1f} BLEU); on {LONG} tokens attention scores {times}.")


def _bleu(study: LengthStudy, label: str) -> float | None:
    score = study.bucket(label)
    return None if score is None or score.n == 0 else float(score.bleu)


def length_lesson(studies: Mapping[str, LengthStudy]) -> LengthLesson | None:
    """The lesson of the studies of one direction (scorer name → study), or None when no attention
    scorer has both a short- and a long-input figure."""
    attending = {}
    for name, study in studies.items():
        short, long = _bleu(study, SHORT), _bleu(study, LONG)
        if name != FIXED_CONTEXT and short is not None and long is not None:
            attending[name] = (short, long)
    if not attending:
        return None
    best = max(attending, key=lambda name: (attending[name][1], name))
    fixed = studies.get(FIXED_CONTEXT)
    fixed_short = _bleu(fixed, SHORT) if fixed is not None else None
    fixed_long = _bleu(fixed, LONG) if fixed is not None else None
    all_fall = all(long < HOLDS * short for short, long in attending.values())
    return LengthLesson(best, *attending[best], fixed_short, fixed_long, all_fall)
