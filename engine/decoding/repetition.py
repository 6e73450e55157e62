"""Looping outputs: does a translation repeat itself, and how many outputs of a list do.

An output *loops* when some word n-gram (n = 3) occurs three or more times in it — the symptom of
a beam that goes round in circles on a long input ("…made a mistake for her father" three times).
Words are whitespace tokens, as written (case and punctuation kept), for every language but
Chinese; Chinese has no spaces between words, so its "words" are its characters (whitespace
dropped, punctuation kept: "我很好。我很好。我很好。" loops on "我很好"). Occurrences are counted
at every position, so they may overlap: "ha ha ha ha ha" holds "ha ha ha" three times.

The same measure is applied to the references, whose share says how much repetition the language
itself has (a list of chores may repeat "I have to" on purpose). A set of outputs loops *too often*
when its share exceeds ``loop_bound`` of the references' share: twice their share, and never less than
3 % (a few looping outputs in a hundred are tolerated even when the references have none).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

LOOP_NGRAM = 3  # word n-grams counted
LOOP_COUNT = 3  # occurrences of one n-gram that make an output loop
LOOP_BOUND_FLOOR = 0.03  # the looping share tolerated whatever the references' share
LOOP_BOUND_TIMES = 2.0  # … and the multiple of the references' share tolerated above it


def loop_bound(references_share: float) -> float:
    """The largest share of looping outputs tolerated beside references that loop in ``references_share``."""
    return max(LOOP_BOUND_TIMES * references_share, LOOP_BOUND_FLOOR)


def words(text: str, language: str) -> list[str]:
    """The units n-grams are made of: whitespace tokens, or, for Chinese (``"zh"``), characters."""
    if language == "zh":
        return [character for character in text if not character.isspace()]
    return text.split()


def most_repeated(text: str, language: str, n: int = LOOP_NGRAM) -> tuple[tuple[str, ...], int]:
    """The n-gram of ``text`` that occurs most often (the first such one) and its count; ((), 0)
    when the text has fewer than n words."""
    units = words(text, language)
    counts = Counter(tuple(units[i : i + n]) for i in range(len(units) - n + 1))
    if not counts:
        return (), 0
    return counts.most_common(1)[0]


def loops(text: str, language: str, n: int = LOOP_NGRAM, count: int = LOOP_COUNT) -> bool:
    """True when some n-gram of words occurs ``count`` or more times in ``text``."""
    return most_repeated(text, language, n)[1] >= count


def looping_share(texts: Sequence[str], language: str, n: int = LOOP_NGRAM, count: int = LOOP_COUNT) -> float:
    """The share (0–1) of ``texts`` that loop; 0.0 for an empty list."""
    if not texts:
        return 0.0
    return sum(loops(text, language, n, count) for text in texts) / len(texts)
