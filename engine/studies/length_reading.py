"""What a length study shows, in words, derived from its figures — never a fixed sentence.

Bahdanau et al.'s Figure 2 teaches that the fixed context C loses information as the input grows
and attention does not. Whether a given set of models shows that is a matter of their figures: the
caption of the Length study and docs/why-attention.md say what *these* models' lines do — every line may fall
with length while attention falls less, or attention may hold its BLEU — from the stored studies.

The rule, on the buckets ``1–10`` (short) and ``41+`` (long, the two longest buckets scored as one):

- a line *holds up* when it has a short-input BLEU above 0 and keeps at least ``HOLDS`` (0.8) of it on
  long inputs (a line that scores nothing on short inputs holds nothing up);
- the lesson names the attention scorer with the best long-input BLEU (ties: the better short-input
  BLEU), the share of its short-input BLEU it keeps, C's share, and how many times C's long-input BLEU
  it scores;
- it says *hold up* only of that scorer when it holds up, *every line falls* only when no line — C's
  included — holds up, and *attention falls less* only when the scorer keeps a larger share than C;
- when C is not behind on long inputs, it says so: those models do not show attention's advantage.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from engine.settings.scorer_table import FIXED_CONTEXT
from engine.studies.length_study import LengthStudy

SHORT, LONG = "1–10", "41+"
HOLDS = 0.8  # a line holds up when it keeps this share of its short-input BLEU on long inputs


def holds_up(short: float, long: float) -> bool:
    """Whether a line keeps at least ``HOLDS`` of a short-input BLEU above 0 on long inputs."""
    return short > 0 and long >= HOLDS * short


@dataclass(frozen=True)
class LengthLesson:
    """The figures behind the sentence (BLEU points; shares of the short-input BLEU)."""

    best: str  # the attention scorer with the best long-input BLEU
    best_short: float
    best_long: float
    fixed_short: float | None  # C's figures, None without a fixed-context study
    fixed_long: float | None
    all_fall: bool  # no line holds up: no attention scorer, and not C

    @property
    def kept(self) -> float:
        """The share of its short-input BLEU the best scorer keeps on long inputs."""
        return self.best_long / self.best_short if self.best_short > 0 else 0.0

    @property
    def holds(self) -> bool:
        """Whether the best scorer on long inputs holds up."""
        return holds_up(self.best_short, self.best_long)

    @property
    def fixed_kept(self) -> float | None:
        if self.fixed_short is None or self.fixed_long is None or self.fixed_short <= 0:
            return None
        return self.fixed_long / self.fixed_short

    @property
    def fixed_not_behind(self) -> bool:
        """Whether C scores at least the best attention scorer on long inputs."""
        return self.fixed_long is not None and self.best_long <= self.fixed_long

    @property
    def times_fixed(self) -> float | None:
        """The best scorer's long-input BLEU as a multiple of C's (None when C scores 0 or is absent)."""
        if self.fixed_long is None or self.fixed_long <= 0:
            return None
        return self.best_long / self.fixed_long

    def headline(self) -> str:
        """A few words for a plot's title."""
        if self.fixed_not_behind:
            return "the fixed context C is not behind"
        if self.holds:
            return "attention holds up" + (", C falls" if self.fixed_long is not None else "")
        if self.all_fall:
            return "every line falls" + (", attention less" if self._falls_less() else "")
        return f"the best on long inputs keeps {self.kept:.0%}"

    def _falls_less(self) -> bool:
        """Whether the best scorer keeps a larger share of its short-input BLEU than C (C absent: False)."""
        fixed_kept = self.fixed_kept
        return self.fixed_long is not None and (fixed_kept is None or self.kept > fixed_kept)

    def sentence(self, labels: Mapping[str, str] | None = None) -> str:
        """The lesson in one or two sentences (plain text); ``labels`` maps scorer names to display names."""
        name = (labels or {}).get(self.best, self.best)
        kept = f"keeps {self.kept:.0%} of its {SHORT}-token BLEU on {LONG} tokens ({self.best_long:.1f} against " \
               f"{self.best_short:.1f})"
        if self.fixed_long is None:
            return f"{self._verb()}: the best scorer on the longest inputs, {name}, {kept}."
        return self._against_fixed(name, kept)

    def _verb(self) -> str:
        """How the lines go with length, without C to compare with."""
        if self.holds:
            return "Long inputs hold up"
        return "Every line falls with length" if self.all_fall else "Long inputs are harder"

    def _against_fixed(self, name: str, kept: str) -> str:
        """sentence() with the fixed C's figures beside the best scorer's (``name``; ``kept``: its share)."""
        fixed = f"the fixed C keeps {self.fixed_kept:.0%}" if self.fixed_kept is not None else "the fixed C"
        if self.fixed_not_behind:
            return (f"On {LONG} tokens the fixed C ({self.fixed_long:.1f} BLEU) is not behind the best attention "
                    f"scorer ({name}, {self.best_long:.1f}): these models do not show attention's advantage.")
        times = f"{self.times_fixed:.1f}× C's BLEU" if self.times_fixed is not None else "where C scores nothing"
        if self.holds:
            return (f"With attention, long inputs hold up: {name} {kept}, while {fixed} "
                    f"({self.fixed_long:.1f} BLEU); on {LONG} tokens attention scores {times}.")
        if self.all_fall:
            how = "but attention falls less" if self._falls_less() else "and attention falls as far, from higher up"
            return (f"Every line falls with length — longer inputs are harder for every model — {how}: "
                    f"{name} {kept}, {fixed}; on {LONG} tokens attention scores {times} "
                    f"({self.best_long:.1f} against {self.fixed_long:.1f}).")
        return (f"Long inputs are harder: the best scorer on the longest inputs, {name}, {kept}, {fixed}; on "
                f"{LONG} tokens attention scores {times} ({self.best_long:.1f} against {self.fixed_long:.1f}).")


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
    best = max(attending, key=lambda name: (attending[name][1], attending[name][0], name))
    fixed_short, fixed_long = _fixed_bleus(studies.get(FIXED_CONTEXT))
    fixed_holds = fixed_short is not None and fixed_long is not None and holds_up(fixed_short, fixed_long)
    all_fall = not fixed_holds and not any(holds_up(short, long) for short, long in attending.values())
    return LengthLesson(best, *attending[best], fixed_short, fixed_long, all_fall)


def _fixed_bleus(fixed: LengthStudy | None) -> tuple[float | None, float | None]:
    """The fixed C's short- and long-input BLEU (None where it has none, or there is no C)."""
    if fixed is None:
        return None, None
    return _bleu(fixed, SHORT), _bleu(fixed, LONG)
