"""Reading a big corpus in one streaming pass, with bounded memory.

The first half of the token cache (engine/token_cache.py). Each line is checked and normalized as
:func:`engine.data.read_tsv` does, exact duplicates are dropped (by an 8-byte hash, not the text),
and each pair goes to its part by the same hash rule (:func:`engine.data.split_bucket`). What is
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
from dataclasses import dataclass
from pathlib import Path

from engine.data import (
    MAX_SENTENCE_CHARS,
    MAX_UNDECODABLE_SHARE,
    CorpusReport,
    OverlongLine,
    Pair,
    SkippedLine,
    _check_line,
    _cut,
    _raw_lines,
    check_split_rule,
    split_bucket,
)
from engine.errors import DataError
from engine.events import format_duration

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
    valid part too (as :func:`engine.data.split_pairs`). Raises DataError for an unreadable or
    binary file, or when no line yields a pair."""
    check_split_rule(split_rule)
    total_bytes = max(path.stat().st_size, 1) if path.is_file() else 1
    started = last_report = time.monotonic()
    rng = random.Random(seed)
    seen: set[int] = set()
    held_out: set[int] = set()
    parts: dict[str, list[Pair]] = {"valid": [], "test": []}
    sample: list[tuple[str, str]] = []
    skipped: list[SkippedLine] = []
    lines_read = duplicates = undecodable = skipped_count = written = bytes_read = 0
    with train_text.open("w", encoding="utf-8", newline="\n") as out:
        for raw in _raw_lines(path):
            lines_read += 1
            line, problem = _decoded(raw)
            bytes_read += (raw.length if isinstance(raw, OverlongLine) else len(raw)) + 1
            if problem is None:
                checked = _check_line(line, MAX_SENTENCE_CHARS, True) if line is not None else "undecodable"
                if isinstance(checked, str):
                    problem = checked
            if problem is not None:
                undecodable += problem.startswith("undecodable")
                skipped_count += 1
                if len(skipped) < MAX_REPORTED_SKIPS:
                    skipped.append(SkippedLine(lines_read, problem, _cut(line or "")))
                continue
            english, other, attribution = checked
            source, target = (other, english) if src == "zh" else (english, other)
            key = text_hash(f"{source}\t{target}")
            if key in seen:
                duplicates += 1
                continue
            seen.add(key)
            bucket = split_bucket(line.split("\t", 1)[0])
            if bucket != "train":
                held_out.add(text_hash(source))
                if len(parts[bucket]) < HELD_OUT_CAPS[bucket]:
                    parts[bucket].append(Pair(source, target, line.split("\t", 1)[0], attribution))
                if not (bucket == "valid" and split_rule == "peer"):
                    continue
            out.write(f"{source}\t{target}\n")
            written += 1
            if len(sample) < sample_size:
                sample.append((source, target))
            elif (slot := rng.randrange(written)) < sample_size:
                sample[slot] = (source, target)
            now = time.monotonic()
            if now - last_report >= PROGRESS_SECONDS:
                last_report = now
                on_progress(_progress_text("reading", lines_read, bytes_read / total_bytes, now - started))
    if lines_read and undecodable / lines_read > MAX_UNDECODABLE_SHARE:
        raise DataError(f"{path} does not look like a text corpus: {undecodable:,} of {lines_read:,} lines are "
                        "not UTF-8; save it as UTF-8, one English<TAB>Chinese pair a line")
    if written == 0 and not parts["valid"] and not parts["test"]:
        raise DataError(f"{path}: no line gave a sentence pair")
    report = CorpusReport(path=str(path), lines_read=lines_read, pairs_kept=len(seen), duplicates_removed=duplicates,
                          skipped=tuple(skipped), skipped_total=skipped_count)
    if split_rule == "strict":  # the sample only ever holds pairs the model trains on
        sample = [pair for pair in sample if text_hash(pair[0]) not in held_out]
    return StreamedPass(tuple(parts["valid"]), tuple(parts["test"]), tuple(sample), frozenset(held_out), written,
                        report)


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
