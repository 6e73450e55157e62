"""Long examples made from the corpus itself: consecutive sentence pairs joined into one pair.

Concatenation augmentation (Nguyen et al. 2021, "Data augmentation by concatenation for
low-resource translation"; Varis & Bojar 2021, "Sequence length is a domain"): a model that only
ever saw single short sentences stops after the first clause of a longer input. Joining k pairs
— the Chinese sides without a separator, the English sides with one space — gives it inputs of
every length up to the sum of k sentences, with references that are exact by construction.

Two uses, one rule:

- :func:`joined_training_pairs` — each epoch, extra training examples of k = 2…K pairs drawn by
  walking a seeded shuffle of the *training* pairs (valid and test pairs are never joined), added
  to the single pairs so that joined examples make up a chosen share of the epoch's examples.
- :func:`long_test_set` — the test pairs cut into consecutive groups of 1…8 (after one seeded
  shuffle), each test pair used exactly once: the long test set of the length study.

Both are deterministic in their seed and never read anything but the pairs they are given.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from engine.corpus.corpus_read import Pair

# The largest group of the long test set (issue: groups of 1 to 8 test pairs) and its seed.
LONG_TEST_MAX_GROUP = 8
LONG_TEST_SEED = 2014  # Bahdanau et al.'s year: any fixed value gives one fixed set


def join_text(parts: Sequence[str], language: str) -> str:
    """Join sentences of one language: Chinese without a separator, any other language with one space."""
    return ("" if language == "zh" else " ").join(part.strip() for part in parts)


def join_pairs(pairs: Sequence[Pair], source_language: str, target_language: str) -> Pair:
    """One pair made of ``pairs`` in order. Its ``english`` key joins the members' keys with a tab,
    so the members can always be recovered (and checked, e.g. against the split)."""
    if not pairs:
        raise ValueError("join_pairs needs at least one pair")
    if len(pairs) == 1:
        return pairs[0]
    attributions = [p.attribution for p in pairs if p.attribution]
    return Pair(
        source=join_text([p.source for p in pairs], source_language),
        target=join_text([p.target for p in pairs], target_language),
        english="\t".join(p.english for p in pairs),
        attribution=" | ".join(dict.fromkeys(attributions)),
    )


def member_keys(pair: Pair) -> tuple[str, ...]:
    """The raw English keys of the pairs a (possibly joined) pair was made of."""
    return tuple(pair.english.split("\t"))


def joined_count(singles: int, share: float) -> int:
    """How many joined examples make them ``share`` of all examples next to ``singles`` single pairs."""
    if share <= 0 or singles <= 0:
        return 0
    return round(singles * share / (1.0 - share))


def _groups(count: int, sizes: Sequence[int], rng: random.Random, order: list[int]) -> list[list[int]]:
    """``count`` groups of consecutive indices of ``order`` (reshuffled each time it runs out)."""
    groups, position = [], 0
    for _ in range(count):
        size = rng.choice(sizes)
        group: list[int] = []
        while len(group) < size:
            if position == len(order):
                rng.shuffle(order)
                position = 0
            group.append(order[position])
            position += 1
        groups.append(group)
    return groups


def joined_training_pairs(
    train: Sequence[Pair],
    exclude: Sequence[Pair],
    max_group: int,
    share: float,
    seed: int,
    source_language: str,
    target_language: str,
) -> list[Pair]:
    """The joined examples of one epoch: k = 2…``max_group`` consecutive pairs of a seeded shuffle
    of ``train`` each (k uniform), as many as make them ``share`` of the epoch's examples next to the
    single pairs. Pairs that also occur in ``exclude`` (the valid and test parts — under the peer
    split rule the valid part is inside ``train``) are never joined. ``seed`` should differ per
    epoch (e.g. seed·1000 + epoch) so every epoch joins different neighbours. Empty when
    ``max_group`` < 2 or ``share`` is 0."""
    if max_group < 2 or share <= 0:
        return []
    held_out = {(p.source, p.target) for p in exclude}
    joinable = [p for p in train if (p.source, p.target) not in held_out]
    if len(joinable) < 2:
        return []
    rng = random.Random(seed)
    order = list(range(len(joinable)))
    rng.shuffle(order)
    sizes = list(range(2, max_group + 1))
    groups = _groups(joined_count(len(train), share), sizes, rng, order)
    return [join_pairs([joinable[i] for i in group], source_language, target_language) for group in groups]


def long_test_set(
    test: Sequence[Pair],
    source_language: str,
    target_language: str,
    max_group: int = LONG_TEST_MAX_GROUP,
    seed: int = LONG_TEST_SEED,
) -> list[Pair]:
    """The test pairs in consecutive groups of 1…``max_group`` after one seeded shuffle; the group
    sizes cycle through a seeded permutation of 1…max_group, so every size is equally common and
    every test pair is used exactly once (the last group may be shorter)."""
    if max_group < 1:
        raise ValueError(f"max_group must be at least 1; got {max_group}")
    rng = random.Random(seed)
    order = list(range(len(test)))
    rng.shuffle(order)
    sizes: list[int] = []
    result, position = [], 0
    while position < len(order):
        if not sizes:
            sizes = list(range(1, max_group + 1))
            rng.shuffle(sizes)
        size = sizes.pop()
        group = order[position : position + size]
        position += size
        result.append(join_pairs([test[i] for i in group], source_language, target_language))
    return result

