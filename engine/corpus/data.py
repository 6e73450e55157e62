"""A corpus's sentence pairs and their deterministic train/valid/test split.

Reading a corpus file (its checks, its report of every line not kept) is engine.corpus.corpus_read, text
normalization engine.text.normalization.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass

from engine.corpus.corpus_read import Pair
from engine.settings.errors import ConfigError


@dataclass(frozen=True)
class Split:
    """Train / valid / test pairs. Under the default (strict) rule, train never shares a source
    sentence with valid or test."""

    train: tuple[Pair, ...]
    valid: tuple[Pair, ...]
    test: tuple[Pair, ...]
    train_removed_overlap: int = 0  # train pairs dropped because their source is in valid or test

    def sizes(self) -> dict[str, int]:
        """Pair counts of each part, plus the train pairs removed for overlap."""
        return {
            "train": len(self.train),
            "valid": len(self.valid),
            "test": len(self.test),
            "train_removed_overlap": self.train_removed_overlap,
        }


def split_bucket(english: str) -> str:
    """The part ("train", "valid" or "test") a pair belongs to, from its raw English sentence.

    sha256 of the stripped, lower-cased sentence: a first hex digit "0" means test, "1" valid,
    anything else train (about 1/16, 1/16 and 14/16). Every translation of one English sentence
    lands in the same part, and the answer never depends on the rest of the corpus.
    """
    digest = hashlib.sha256(english.strip().lower().encode("utf-8")).hexdigest()
    if digest[0] == "0":
        return "test"
    if digest[0] == "1":
        return "valid"
    return "train"


SPLIT_RULES = ("strict", "peer")
SPLIT_RULE_TEXT = {
    "strict": "sha256(english.strip().lower()) hex digest: 0… test, 1… valid, else train; training pairs whose "
              "source occurs in valid/test removed",
    "peer": "sha256(english.strip().lower()) hex digest: 0… test, everything else train (the valid part, 1…, "
            "included and used only to choose the checkpoint); the protocol of the Joey NMT peer figures",
}


def check_split_rule(rule: str) -> None:
    """Raise ConfigError naming the valid split rules unless ``rule`` is one of them."""
    if rule not in SPLIT_RULES:
        raise ConfigError(f"split rule must be one of {', '.join(SPLIT_RULES)}; got {rule!r}")


def split_pairs(pairs: Sequence[Pair], rule: str = "strict") -> Split:
    """Split pairs deterministically by :func:`split_bucket`, keeping the input order in each part.

    ``strict`` (the default): train pairs whose source sentence is also a source in valid or test are
    dropped (counted in ``train_removed_overlap``), so held-out sentences are never seen in training.
    ``peer``: the protocol behind the Joey NMT figures the quality report compares with — train on
    every pair outside the test part, the valid part included (it then only chooses the checkpoint)
    and sources shared with test pairs kept. The test part is the same under both rules.
    """
    check_split_rule(rule)
    parts: dict[str, list[Pair]] = {"train": [], "valid": [], "test": []}
    outside_test: list[Pair] = []  # the peer rule's training part, in input order
    for pair in pairs:
        bucket = split_bucket(pair.english)
        parts[bucket].append(pair)
        if bucket != "test":
            outside_test.append(pair)
    if rule == "peer":
        return Split(train=tuple(outside_test), valid=tuple(parts["valid"]), test=tuple(parts["test"]))
    held_out = {pair.source for pair in parts["valid"]} | {pair.source for pair in parts["test"]}
    train = [pair for pair in parts["train"] if pair.source not in held_out]
    return Split(
        train=tuple(train),
        valid=tuple(parts["valid"]),
        test=tuple(parts["test"]),
        train_removed_overlap=len(parts["train"]) - len(train),
    )
