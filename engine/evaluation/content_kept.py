"""Content kept: how much of a reference's content an output carries — the check for dropped content.

BLEU rewards an output for what it gets right and barely notices what it leaves out when what is left
is fluent: "我妹妹喜欢在花园里。" for "我妹妹喜欢在花园里看书。" keeps most n-grams while the verb and
its object are gone. *Content kept* is the share of the reference's content units that the output
also holds, each unit counted at most as often as it occurs in the output (clipped recall):

- Chinese: the reference's Han characters, without the function characters in ``ZH_FUNCTION``
  (particles, pronouns, copulas, measure words: they say nothing of what the sentence is about);
- English (any other language): the reference's lower-cased words of letters and digits, without
  the stop words in ``EN_STOP``.

A corpus figure sums the units over all pairs (kept units / reference units), so long references
weigh by their length, as corpus BLEU does. It is a recall, so it says nothing of what an output adds:
read it beside BLEU, never alone.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

ZH_FUNCTION = frozenset("的了是在我你他她它们吗呢吧啊呀不也都和就要会这那有一个些把被很太得地着过么么与及或而")
EN_STOP = frozenset([
    "a", "an", "the", "and", "or", "but", "if", "of", "to", "in", "on", "at", "by", "for", "with", "from", "as",
    "is", "are", "was", "were", "be", "been", "being", "am", "i", "you", "he", "she", "it", "we", "they", "me",
    "him", "her", "us", "them", "my", "your", "his", "its", "our", "their", "this", "that", "these", "those",
    "there", "here", "do", "does", "did", "not", "no", "don't", "doesn't", "didn't", "i'm", "it's", "that's",
    "will", "would", "can", "could", "shall", "should", "may", "might", "must", "have", "has", "had", "so", "than",
    "then", "too", "very", "just", "what", "which", "who", "whom", "whose", "when", "where", "why", "how"
])
_WORD = re.compile(r"[a-z0-9']+")


def content_units(text: str, language: str) -> Counter[str]:
    """The content units of ``text`` with their counts (Han characters for ``zh``, words otherwise)."""
    if language == "zh":
        return Counter(ch for ch in text if "\u4e00" <= ch <= "\u9fff" and ch not in ZH_FUNCTION)
    return Counter(word for word in _WORD.findall(text.lower()) if word not in EN_STOP)


@dataclass(frozen=True)
class ContentKept:
    kept: int  # reference units the outputs hold (clipped)
    total: int  # reference units

    @property
    def share(self) -> float:
        """Kept over total; 1.0 when the references hold no content unit at all."""
        return self.kept / self.total if self.total else 1.0


def content_kept(outputs: Sequence[str], references: Sequence[str], language: str) -> ContentKept:
    """The corpus figure of ``outputs`` against ``references`` in the target ``language``."""
    if len(outputs) != len(references):
        raise ValueError(f"{len(outputs)} outputs for {len(references)} references")
    kept = total = 0
    for output, reference in zip(outputs, references, strict=True):
        wanted, present = content_units(reference, language), content_units(output, language)
        total += sum(wanted.values())
        kept += sum(min(count, present[unit]) for unit, count in wanted.items())
    return ContentKept(kept, total)
