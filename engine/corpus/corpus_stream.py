"""Reading a big corpus in one streaming pass, with bounded memory.

The first half of the token cache (engine/corpus/token_cache.py). Each line is checked and normalized as
:func:`engine.corpus.corpus_read.read_tsv` does, exact duplicates are dropped (by an 8-byte hash, not the text),
and each pair goes to its part by the same hash rule (:func:`engine.corpus.data.split_bucket`). What is
kept in memory is small whatever the corpus: the held-out pairs up to a cap per part, the hashes of
every held-out source (so that, under the strict rule, no training pair shares a source with them),
and a seeded reservoir sample of training pairs for the tokenizers. The training pairs themselves
go, normalized, to a text file beside the cache, which the encoding pass reads back.
"""

from __future__ import annotations

import hashlib
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

from engine.corpus.corpus_read import (
    MAX_SENTENCE_CHARS,
    CorpusReport,
    OverlongLine,
    Pair,
    SkippedLine,
    check_line,
    oriented,
    raw_lines,
    refuse_mostly_undecodable,
    report_text,
)
from engine.corpus.data import check_split_rule, split_bucket
from engine.settings.errors import DataError
from engine.text.readable import format_duration

HELD_OUT_CAPS = {"valid": 1000, "test": 2000}  # pairs kept per held-out part; the rest are never trained on
DEFAULT_TOKENIZER_SAMPLE = 200_000  # training pairs the tokenizers learn from (a seeded reservoir sample)
MAX_REPORTED_SKIPS = 200  # skipped lines kept for the report (all are counted)
PROGRESS_SECONDS = 2.0


def text_hash(text: str) -> int:
    """An 8-byte hash of ``text`` (duplicates and held-out sources are recognised by it)."""
    return int.from_bytes(hashlib.blake2b(text.encode("utf-8"), digest_size=8).digest(), "little")


@dataclass(frozen=True)
class StreamedPass:
    """What the streaming pass keeps: held-out pairs, the tokenizers' sample and the counts."""

    valid: tuple[Pair, ...]
    test: tuple[Pair, ...]
    sample: tuple[tuple[str, str], ...]  # (source, target) training pairs for the tokenizers
    held_out_sources: frozenset[int]  # text_hash of every source in the valid and test parts, capped or not
    train_written: int  # training pairs written to the text file
    report: CorpusReport


def stream_pairs(path: Path, src: str, tgt: str, split_rule: str, train_text: Path, sample_size: int,
                 on_progress: Callable[[str], None] = lambda message: None, seed: int = 1) -> StreamedPass:
    """One pass over the corpus at ``path``: the training pairs are written to ``train_text``
    (``source<TAB>target`` per line, normalized), the rest is returned. ``peer`` trains on the
    valid part too (as :func:`engine.corpus.data.split_pairs`). Raises DataError for an unreadable or
    binary file, or when no line yields a pair."""
    check_split_rule(split_rule)
    clock = ProgressClock()
    total_bytes = max(path.stat().st_size, 1) if path.is_file() else 1
    tally = _Tally()
    seen: set[int] = set()
    with train_text.open("w", encoding="utf-8", newline="\n") as out:
        kept = _Kept(out, split_rule, sample_size, seed)
        for raw in raw_lines(path):
            checked = tally.take(raw)
            if checked is None:
                continue
            line, (english, other, attribution) = checked
            source, target = oriented(english, other, src)
            key = text_hash(f"{source}\t{target}")
            if key in seen:
                tally.duplicates += 1
                continue
            seen.add(key)
            trained = kept.add(source, target, line.split("\t", 1)[0], attribution)
            if trained and (seconds := clock.due()) is not None:
                on_progress(_progress_text("reading", tally.lines_read, tally.bytes_read / total_bytes, seconds))
    refuse_mostly_undecodable(path, tally.undecodable, tally.lines_read)
    if kept.written == 0 and not kept.parts["valid"] and not kept.parts["test"]:
        raise DataError(f"{path}: no line gave a sentence pair")
    report = CorpusReport(path=str(path), lines_read=tally.lines_read, pairs_kept=len(seen),
                          duplicates_removed=tally.duplicates, skipped=tuple(tally.skipped),
                          skipped_total=tally.skipped_count)
    return kept.result(report)


class ProgressClock:
    """When a long pass tells its progress: at most every PROGRESS_SECONDS."""

    def __init__(self) -> None:
        self.started = self.last = time.monotonic()

    def due(self) -> float | None:
        """The seconds since the start when it is time to tell the progress again, else None."""
        now = time.monotonic()
        if now - self.last < PROGRESS_SECONDS:
            return None
        self.last = now
        return now - self.started


@dataclass
class _Tally:
    """The pass's counts, and the first skipped lines (all are counted)."""

    lines_read: int = 0
    bytes_read: int = 0
    duplicates: int = 0
    undecodable: int = 0
    skipped_count: int = 0
    skipped: list[SkippedLine] = field(default_factory=list)

    def take(self, raw: bytes | OverlongLine) -> tuple[str, tuple[str, str, str]] | None:
        """(line, (english, chinese, attribution)) of a line that checks out; None for a line
        skipped (and counted, with its reason)."""
        self.lines_read += 1
        self.bytes_read += (raw.length if isinstance(raw, OverlongLine) else len(raw)) + 1
        line, problem = _decoded(raw)
        if problem is None:
            assert line is not None  # _decoded gives the line whenever it finds nothing wrong
            checked = check_line(line, MAX_SENTENCE_CHARS, True)
            if not isinstance(checked, str):
                return line, checked
            problem = checked
        self.undecodable += problem.startswith("undecodable")
        self.skipped_count += 1
        if len(self.skipped) < MAX_REPORTED_SKIPS:
            self.skipped.append(SkippedLine(self.lines_read, problem, report_text(line or "")))
        return None


class _Kept:
    """Where the pass sends each new pair: the held-out parts (capped) and the hashes of their
    sources, the training text file, and a seeded reservoir sample of training pairs for the tokenizers."""

    def __init__(self, out: TextIO, split_rule: str, sample_size: int, seed: int) -> None:
        self.out, self.split_rule, self.sample_size = out, split_rule, sample_size
        self.rng = random.Random(seed)
        self.parts: dict[str, list[Pair]] = {"valid": [], "test": []}
        self.held_out: set[int] = set()
        self.sample: list[tuple[str, str]] = []
        self.written = 0

    def add(self, source: str, target: str, english: str, attribution: str) -> bool:
        """Send the pair to its part (by its raw English column); True when it is trained on."""
        bucket = split_bucket(english)
        if bucket != "train":
            self.held_out.add(text_hash(source))
            if len(self.parts[bucket]) < HELD_OUT_CAPS[bucket]:
                self.parts[bucket].append(Pair(source, target, english, attribution))
            if not (bucket == "valid" and self.split_rule == "peer"):
                return False
        self.out.write(f"{source}\t{target}\n")
        self.written += 1
        if len(self.sample) < self.sample_size:
            self.sample.append((source, target))
        elif (slot := self.rng.randrange(self.written)) < self.sample_size:
            self.sample[slot] = (source, target)
        return True

    def result(self, report: CorpusReport) -> StreamedPass:
        sample = self.sample
        if self.split_rule == "strict":  # the sample only ever holds pairs the model trains on
            sample = [pair for pair in sample if text_hash(pair[0]) not in self.held_out]
        return StreamedPass(tuple(self.parts["valid"]), tuple(self.parts["test"]), tuple(sample),
                            frozenset(self.held_out), self.written, report)


def _decoded(raw: bytes | OverlongLine) -> tuple[str | None, str | None]:
    """(line, None), or (text to show, why it is skipped)."""
    if isinstance(raw, OverlongLine):
        return None, f"too long ({raw.length:,} bytes)"
    try:
        return raw.decode("utf-8"), None
    except UnicodeDecodeError:
        return raw.decode("utf-8", errors="replace"), "undecodable bytes (not UTF-8)"


def _progress_text(what: str, count: int, fraction: float, seconds: float) -> str:
    """E.g. "reading: 1,200,000 lines (60 %), 95,000 lines/s, ETA 0:13"."""
    remaining = seconds * (1 - fraction) / max(fraction, 1e-9)
    return (f"{what}: {count:,} lines ({fraction:.0%}), {count / max(seconds, 1e-9):,.0f} lines/s, "
            f"ETA {format_duration(remaining)}")
