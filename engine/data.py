"""Corpus reading, text normalization and the deterministic train/valid/test split.

A corpus is a Tatoeba / manythings file: one pair a line, ``English<TAB>Other[<TAB>attribution]``,
UTF-8. The reader never crashes on a bad line and never mangles one silently: every line it does
not keep is reported with its 1-based number and the reason, in a :class:`CorpusReport`.

Lines are split on ``b"\\n"`` only, so a U+2028 LINE SEPARATOR inside a sentence (which
``str.splitlines`` would treat as a line break) stays inside its pair and is normalized to a space.
"""

from __future__ import annotations

import hashlib
import os
import re
import unicodedata
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import opencc

from engine.config import MAX_INPUT_CHARS
from engine.errors import ConfigError, DataError

# Column (0-based) of each supported language in a corpus line: English<TAB>Other[<TAB>attribution].
LANGUAGE_COLUMNS: dict[str, int] = {"en": 0, "zh": 1}
LANGUAGE_NAMES: dict[str, str] = {"en": "English", "zh": "Chinese"}

# A sentence longer than this (after normalization) is skipped and reported.
MAX_SENTENCE_CHARS = MAX_INPUT_CHARS

# Characters of a skipped line kept in its report entry.
REPORT_TEXT_CHARS = 80
# Bytes at the start of a file searched for NUL bytes (binary files have them, text never does).
BINARY_SNIFF_BYTES = 8192
MAX_LINE_BYTES = 64 * 1024  # a longer line is skipped unread (a pair is two sentences of ≤ 1,000 characters)
# Share of undecodable lines above which a file is refused as not being a UTF-8 text corpus.
MAX_UNDECODABLE_SHARE = 0.3
# Lines (or rows) looked at by the swapped-columns check.
SWAP_CHECK_ROWS = 200

_UTF8_BOM = b"\xef\xbb\xbf"
_UTF16_BOMS = (b"\xff\xfe", b"\xfe\xff")

# Invisible characters deleted outright: zero-width space / non-joiner / joiner, left-to-right and
# right-to-left marks, word joiner, zero-width no-break space (BOM).
_DELETED = "\u200b\u200c\u200d\u200e\u200f\u2060\ufeff"
# Characters turned into a space: bidi embeddings / overrides / isolates and the Unicode line and
# paragraph separators. C0 and C1 control characters (category Cc) are added below.
_SPACED = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u2028\u2029"
_CONTROL = [chr(c) for c in (*range(0x20), *range(0x7F, 0xA0)) if unicodedata.category(chr(c)) == "Cc"]
# Lone surrogates (U+D800–U+DFFF) are not characters: text decoded with ``surrogateescape`` or cut
# from invalid UTF-16 carries them, and no encoder accepts them. They become U+FFFD.
_SURROGATES = [chr(c) for c in range(0xD800, 0xE000)]
_CLEANUP_TABLE = str.maketrans({
    **dict.fromkeys(_DELETED), **dict.fromkeys(_SPACED, " "), **dict.fromkeys(_CONTROL, " "),
    **dict.fromkeys(_SURROGATES, "\ufffd"),
})

# A second column that is really the attribution: the tab between English and Chinese is missing.
_ATTRIBUTION = re.compile(r"^\s*CC[- ]BY\b|\bAttribution:", re.IGNORECASE)


def _is_cjk(ch: str) -> bool:
    """True for a CJK Unified Ideograph (base block, extensions A-F, compatibility ideographs)."""
    code = ord(ch)
    return (
        0x4E00 <= code <= 0x9FFF
        or 0x3400 <= code <= 0x4DBF
        or 0xF900 <= code <= 0xFAFF
        or 0x20000 <= code <= 0x2FFFF
    )


def _is_latin(ch: str) -> bool:
    """True for a Latin letter (ASCII, Latin-1 supplement, Latin extended A/B, full-width)."""
    return ch.isalpha() and (ord(ch) < 0x250 or 0xFF21 <= ord(ch) <= 0xFF5A)


@dataclass(frozen=True)
class Pair:
    """One sentence pair, normalized, in the direction the corpus was read."""

    source: str  # normalized source-language sentence
    target: str  # normalized target-language sentence
    english: str  # the raw English column exactly as read: the key of the split hash
    attribution: str = ""  # column 3 when present (licence / authors); keep it wherever data is shown


@dataclass(frozen=True)
class SkippedLine:
    """A corpus line that was not kept, and why."""

    line_number: int  # 1-based
    reason: str  # e.g. "no tab separator", "empty English side", "undecodable bytes (not UTF-8)"
    text: str  # the line, cut to REPORT_TEXT_CHARS characters, decoded with errors="replace"


def _plural(count: int, singular: str, plural: str) -> str:
    return f"{count:,} {singular if count == 1 else plural}"


@dataclass(frozen=True)
class CorpusReport:
    """What :func:`read_tsv` did with a file: counts, every skipped line, and a hint if any."""

    path: str
    lines_read: int
    pairs_kept: int
    duplicates_removed: int
    skipped: tuple[SkippedLine, ...]
    suggestion: str | None = None  # e.g. the columns look swapped; None when nothing looks off
    skipped_total: int | None = None  # lines skipped when ``skipped`` keeps only the first (a streamed corpus)

    @property
    def skipped_count(self) -> int:
        return len(self.skipped) if self.skipped_total is None else self.skipped_total

    def summary(self) -> str:
        """One line, e.g. "27,729 lines read, 27,700 pairs kept, 12 duplicates removed, 17 lines skipped"."""
        return ", ".join(
            (
                _plural(self.lines_read, "line read", "lines read"),
                _plural(self.pairs_kept, "pair kept", "pairs kept"),
                _plural(self.duplicates_removed, "duplicate removed", "duplicates removed"),
                _plural(self.skipped_count, "line skipped", "lines skipped"),
            )
        )

    def details(self, limit: int = 20) -> list[str]:
        """One string per skipped line ("line 123: no tab separator: <text>"), at most ``limit``.

        When more lines were skipped, a last entry says how many were left out.
        """
        shown = [f"line {s.line_number}: {s.reason}: {s.text}" for s in self.skipped[: max(limit, 0)]]
        hidden = self.skipped_count - len(shown)
        if hidden > 0:
            shown.append(f"... and {_plural(hidden, 'more skipped line', 'more skipped lines')}")
        return shown


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


# --------------------------------------------------------------------------------------------------
# Normalization


@lru_cache(maxsize=1)
def _t2s_converter() -> opencc.OpenCC:
    """The Traditional -> Simplified converter, built once (building it reads dictionaries)."""
    return opencc.OpenCC("t2s")


def to_simplified(text: str) -> str:
    """Convert Traditional Chinese characters to Simplified ones (OpenCC ``t2s``)."""
    return _t2s_converter().convert(text)


def normalize(text: str, language: str, simplify_chinese: bool = True) -> str:
    """Normalize one sentence for training and translation.

    Deletes zero-width characters, turns control characters, bidi controls and the Unicode line /
    paragraph separators into spaces, lone surrogates into U+FFFD, applies Unicode NFKC (full-width letters and digits become
    ASCII ones), collapses whitespace runs to one space and strips the ends. For
    ``language == "zh"`` with ``simplify_chinese``, Traditional characters become Simplified ones.
    """
    cleaned = unicodedata.normalize("NFKC", text.translate(_CLEANUP_TABLE))
    cleaned = " ".join(cleaned.translate(_CLEANUP_TABLE).split())
    if language == "zh" and simplify_chinese and cleaned:
        cleaned = to_simplified(cleaned)
    return cleaned


# --------------------------------------------------------------------------------------------------
# Reading


def _check_languages(src: str, tgt: str) -> None:
    choices = ", ".join(LANGUAGE_COLUMNS)
    for name, value in (("src", src), ("tgt", tgt)):
        if value not in LANGUAGE_COLUMNS:
            raise DataError(f"{name} language must be one of {choices}; got {value!r}")
    if src == tgt:
        raise DataError(f"src and tgt must be different languages (one of {choices} each); both are {src!r}")


def _open_corpus(path: Path):
    """Open ``path`` for binary reading, turning every failure into a DataError naming the path."""
    if not path.exists():
        raise DataError(f"corpus file not found: {path}")
    if path.is_dir():
        raise DataError(f"{path} is a folder, not a corpus file")
    if not path.is_file():  # a FIFO, socket or device would block or never end: checked before opening
        raise DataError(f"{path} is not a regular file (a pipe, socket or device); give a corpus file")
    try:
        return path.open("rb")
    except OSError as error:
        raise DataError(f"cannot read {path}: {error.strerror or error}") from error


def _sniff_binary(path: Path, head: bytes) -> None:
    """Refuse files that are plainly not UTF-8 text (UTF-16, or NUL bytes near the start)."""
    if head.startswith(_UTF16_BOMS):
        raise DataError(
            f"{path} does not look like a text corpus: it is UTF-16 encoded; save it as UTF-8, "
            "one English<TAB>Chinese pair a line"
        )
    if b"\x00" in head:
        raise DataError(
            f"{path} does not look like a text corpus (it contains NUL bytes); expected UTF-8 text, "
            "one English<TAB>Chinese pair a line"
        )


@dataclass(frozen=True)
class OverlongLine:
    """A line longer than MAX_LINE_BYTES: never held in memory, only its length is known."""

    length: int  # bytes, the line break excluded


def _raw_lines(path: Path) -> Iterator[bytes | OverlongLine]:
    """The file's lines as bytes, split on b"\\n" only, without CR/LF and without a leading BOM.
    A line over MAX_LINE_BYTES is read through in chunks and given as an :class:`OverlongLine`, so
    memory stays bounded whatever the file holds (a 2 GB file without a line break included)."""
    with _open_corpus(path) as handle:
        try:
            head = handle.read(BINARY_SNIFF_BYTES)
            _sniff_binary(path, head)
            handle.seek(0)
            number = 0
            while raw := handle.readline(MAX_LINE_BYTES + 1):
                number += 1
                if len(raw) > MAX_LINE_BYTES and not raw.endswith(b"\n"):
                    length = len(raw)
                    while (chunk := handle.readline(1 << 20)) and not chunk.endswith(b"\n"):
                        length += len(chunk)
                    length += len(chunk.removesuffix(b"\n"))
                    yield OverlongLine(length)
                    continue
                raw = raw.removesuffix(b"\n").removesuffix(b"\r")
                if number == 1:
                    raw = raw.removeprefix(_UTF8_BOM)
                yield raw
        except OSError as error:
            raise DataError(f"cannot read {path}: {error.strerror or error}") from error


def _cut(text: str) -> str:
    return text[:REPORT_TEXT_CHARS]


def _check_line(line: str, max_chars: int, simplify_chinese: bool) -> tuple[str, str, str] | str:
    """Normalize one decoded line to (english, chinese, attribution), or return the skip reason."""
    if not line.strip():
        return "empty line"
    if "\t" not in line:
        return "no tab separator"
    columns = line.split("\t")
    english_raw, other_raw = columns[0], columns[1]
    if _ATTRIBUTION.search(other_raw):
        return "no tab separator between English and Chinese (column 2 is the attribution)"
    english = normalize(english_raw, "en")
    other = normalize(other_raw, "zh", simplify_chinese)
    if not english:
        return "empty English side"
    if not other:
        return "empty Chinese side"
    if not any(_is_cjk(ch) for ch in other):
        return "Chinese side has no Chinese characters"
    longest = max(len(english), len(other))
    if longest > max_chars:
        return f"too long ({longest} > {max_chars} characters)"
    attribution = " ".join("\t".join(columns[2:]).split())
    return english, other, attribution


def read_tsv(
    path: str | os.PathLike[str],
    src: str = "zh",
    tgt: str = "en",
    simplify_chinese: bool = True,
    max_chars: int = MAX_SENTENCE_CHARS,
) -> tuple[list[Pair], CorpusReport]:
    """Read a ``English<TAB>Chinese[<TAB>attribution]`` corpus into normalized pairs.

    ``src="zh", tgt="en"`` makes column 2 the source and column 1 the target; ``src="en",
    tgt="zh"`` the other way round. Bad lines are skipped and reported (never fatal); exact
    duplicate pairs after normalization are removed and counted. Raises :class:`DataError` for a
    missing or unreadable file, a file that is not UTF-8 text, bad arguments, or when no line at
    all yields a pair.
    """
    _check_languages(src, tgt)
    if max_chars < 1:
        raise DataError(f"max_chars must be at least 1; got {max_chars}")
    corpus = Path(path)
    pairs: list[Pair] = []
    skipped: list[SkippedLine] = []
    seen: set[tuple[str, str]] = set()
    rows: list[tuple[str, str]] = []  # first raw (column 1, column 2) rows, for the swap check
    lines_read = duplicates = undecodable = 0
    for raw in _raw_lines(corpus):
        lines_read += 1
        if isinstance(raw, OverlongLine):
            skipped.append(SkippedLine(lines_read, f"too long ({raw.length:,} bytes; a line holds at most "
                                                   f"{MAX_LINE_BYTES:,})", ""))
            continue
        try:
            line = raw.decode("utf-8")
        except UnicodeDecodeError:
            undecodable += 1
            text = _cut(raw.decode("utf-8", errors="replace"))
            skipped.append(SkippedLine(lines_read, "undecodable bytes (not UTF-8)", text))
            continue
        if len(rows) < SWAP_CHECK_ROWS and "\t" in line:
            columns = line.split("\t")
            rows.append((columns[0], columns[1]))
        checked = _check_line(line, max_chars, simplify_chinese)
        if isinstance(checked, str):
            skipped.append(SkippedLine(lines_read, checked, _cut(line)))
            continue
        english, other, attribution = checked
        source, target = (other, english) if src == "zh" else (english, other)
        if (source, target) in seen:
            duplicates += 1
            continue
        seen.add((source, target))
        english_raw = line.split("\t", 1)[0]
        pairs.append(Pair(source=source, target=target, english=english_raw, attribution=attribution))
    if lines_read and undecodable / lines_read > MAX_UNDECODABLE_SHARE:
        raise DataError(
            f"{corpus} does not look like a text corpus: {undecodable:,} of {lines_read:,} lines are "
            "not UTF-8; save it as UTF-8, one English<TAB>Chinese pair a line"
        )
    report = CorpusReport(
        path=str(corpus),
        lines_read=lines_read,
        pairs_kept=len(pairs),
        duplicates_removed=duplicates,
        skipped=tuple(skipped),
        suggestion=detect_swapped_columns(rows),
    )
    if not pairs:
        hint = f"; {report.suggestion}" if report.suggestion else ""
        first = report.details(limit=1)
        example = f"; first problem: {first[0]}" if first else ""
        raise DataError(f"no valid sentence pairs in {corpus} ({report.summary()}){hint}{example}")
    return pairs, report


def preview(path: str | os.PathLike[str], count: int = 10) -> list[tuple[str, str]]:
    """The first ``count`` non-blank lines as raw (column 1, column 2) rows, for a quick look.

    Nothing is normalized; undecodable bytes show as U+FFFD and a line without a tab gives
    ``(line, "")``. Only the lines needed are read. Raises :class:`DataError` when the file is
    missing, unreadable or binary.
    """
    rows: list[tuple[str, str]] = []
    if count <= 0:
        return rows
    for raw in _raw_lines(Path(path)):
        if isinstance(raw, OverlongLine):
            rows.append((f"(a line of {raw.length:,} bytes: too long to show)", ""))
            if len(rows) >= count:
                break
            continue
        line = raw.decode("utf-8", errors="replace")
        if not line.strip():
            continue
        first, _, rest = line.partition("\t")
        rows.append((first, rest.split("\t", 1)[0]))
        if len(rows) >= count:
            break
    return rows


def detect_swapped_columns(rows: Sequence[tuple[str, str]]) -> str | None:
    """Suggest a fix when column 1 looks Chinese and column 2 English, else return None.

    Counts CJK ideographs and Latin letters in each column over the first
    :data:`SWAP_CHECK_ROWS` rows (e.g. from :func:`preview`); the expected format is
    ``English<TAB>Chinese[<TAB>attribution]``.
    """
    counts = [[0, 0], [0, 0]]  # per column: [CJK ideographs, Latin letters]
    for row in rows[:SWAP_CHECK_ROWS]:
        for column, text in enumerate(row[:2]):
            for ch in text:
                if _is_cjk(ch):
                    counts[column][0] += 1
                elif _is_latin(ch):
                    counts[column][1] += 1
    (cjk_1, latin_1), (cjk_2, latin_2) = counts
    if cjk_1 > latin_1 and latin_2 > cjk_2:
        return (
            "column 1 looks Chinese and column 2 English: the file's columns seem swapped; "
            "the expected format is English<TAB>Chinese[<TAB>attribution]"
        )
    return None


# --------------------------------------------------------------------------------------------------
# Split


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
