"""Reading a corpus file into normalized sentence pairs, with a report of every line not kept.

A corpus is a Tatoeba / manythings file: one pair a line, ``English<TAB>Other[<TAB>attribution]``,
UTF-8. The reader never crashes on a bad line and never mangles one silently: every line it does
not keep is reported with its 1-based number and the reason, in a :class:`CorpusReport`.

Lines are split on ``b"\\n"`` only, so a U+2028 LINE SEPARATOR inside a sentence (which
``str.splitlines`` would treat as a line break) stays inside its pair and is normalized to a space.
The streaming reader of big corpora (engine.corpus.corpus_stream) checks each line with the same rules.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from engine.files.safe_open import open_regular
from engine.settings.config import MAX_INPUT_CHARS
from engine.settings.errors import DataError
from engine.text.normalization import is_cjk, is_latin, normalize

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

# A second column that is really the attribution: the tab between English and Chinese is missing.
_ATTRIBUTION = re.compile(r"^\s*CC[- ]BY\b|\bAttribution:", re.IGNORECASE)


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


# --------------------------------------------------------------------------------------------------
# Lines of a file


def _check_languages(src: str, tgt: str) -> None:
    choices = ", ".join(LANGUAGE_COLUMNS)
    for name, value in (("src", src), ("tgt", tgt)):
        if value not in LANGUAGE_COLUMNS:
            raise DataError(f"{name} language must be one of {choices}; got {value!r}")
    if src == tgt:
        raise DataError(f"src and tgt must be different languages (one of {choices} each); both are {src!r}")


def _open_corpus(path: Path):
    """Open ``path`` for binary reading, turning every failure into a DataError naming the path. A
    pipe, socket, device or folder is refused by the opener of every stored file (engine.files.safe_open:
    opened without blocking, judged by what was opened), in one line."""
    if not path.exists() and not path.is_symlink():
        raise DataError(f"corpus file not found: {path}")
    return open_regular(path, DataError, expected="a corpus file")


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


def raw_lines(path: Path) -> Iterator[bytes | OverlongLine]:
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
                    yield OverlongLine(_read_through(handle, len(raw)))
                    continue
                raw = raw.removesuffix(b"\n").removesuffix(b"\r")
                if number == 1:
                    raw = raw.removeprefix(_UTF8_BOM)
                yield raw
        except OSError as error:
            raise DataError(f"cannot read {path}: {error.strerror or error}") from error


def _read_through(handle, length: int) -> int:
    """Read the rest of an overlong line in chunks; its whole length in bytes (the line break excluded)."""
    while (chunk := handle.readline(1 << 20)) and not chunk.endswith(b"\n"):
        length += len(chunk)
    return length + len(chunk.removesuffix(b"\n"))


def report_text(text: str) -> str:
    """A skipped line as its report entry keeps it."""
    return text[:REPORT_TEXT_CHARS]


def check_line(line: str, max_chars: int, simplify_chinese: bool) -> tuple[str, str, str] | str:
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
    if not any(is_cjk(ch) for ch in other):
        return "Chinese side has no Chinese characters"
    longest = max(len(english), len(other))
    if longest > max_chars:
        return f"too long ({longest} > {max_chars} characters)"
    attribution = " ".join("\t".join(columns[2:]).split())
    return english, other, attribution


def oriented(english: str, chinese: str, src: str) -> tuple[str, str]:
    """(source, target) of a checked line for the direction ``src`` → the other language."""
    return (chinese, english) if src == "zh" else (english, chinese)


def refuse_mostly_undecodable(path: Path, undecodable: int, lines_read: int) -> None:
    """Raise DataError when more than MAX_UNDECODABLE_SHARE of the lines read were not UTF-8."""
    if lines_read and undecodable / lines_read > MAX_UNDECODABLE_SHARE:
        raise DataError(
            f"{path} does not look like a text corpus: {undecodable:,} of {lines_read:,} lines are "
            "not UTF-8; save it as UTF-8, one English<TAB>Chinese pair a line"
        )


# --------------------------------------------------------------------------------------------------
# A whole corpus


class _Reading:
    """What :func:`read_tsv` gathers, line by line: the pairs kept, the lines skipped and why, the
    counts, and the first raw rows for the swapped-columns check."""

    def __init__(self, src: str, simplify_chinese: bool, max_chars: int) -> None:
        self.src, self.simplify_chinese, self.max_chars = src, simplify_chinese, max_chars
        self.pairs: list[Pair] = []
        self.skipped: list[SkippedLine] = []
        self.seen: set[tuple[str, str]] = set()
        self.rows: list[tuple[str, str]] = []  # first raw (column 1, column 2) rows, for the swap check
        self.lines_read = self.duplicates = self.undecodable = 0

    def take(self, raw: bytes | OverlongLine) -> None:
        self.lines_read += 1
        line = self._decoded(raw)
        if line is None:
            return
        if len(self.rows) < SWAP_CHECK_ROWS and "\t" in line:
            columns = line.split("\t")
            self.rows.append((columns[0], columns[1]))
        checked = check_line(line, self.max_chars, self.simplify_chinese)
        if isinstance(checked, str):
            self._skip(checked, report_text(line))
            return
        english, other, attribution = checked
        source, target = oriented(english, other, self.src)
        if (source, target) in self.seen:
            self.duplicates += 1
            return
        self.seen.add((source, target))
        english_raw = line.split("\t", 1)[0]
        self.pairs.append(Pair(source=source, target=target, english=english_raw, attribution=attribution))

    def _decoded(self, raw: bytes | OverlongLine) -> str | None:
        """The line as text; None (and the line skipped) when it is too long or not UTF-8."""
        if isinstance(raw, OverlongLine):
            self._skip(f"too long ({raw.length:,} bytes; a line holds at most {MAX_LINE_BYTES:,})", "")
            return None
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError:
            self.undecodable += 1
            self._skip("undecodable bytes (not UTF-8)", report_text(raw.decode("utf-8", errors="replace")))
            return None

    def _skip(self, reason: str, text: str) -> None:
        self.skipped.append(SkippedLine(self.lines_read, reason, text))

    def report(self, corpus: Path) -> CorpusReport:
        return CorpusReport(
            path=str(corpus),
            lines_read=self.lines_read,
            pairs_kept=len(self.pairs),
            duplicates_removed=self.duplicates,
            skipped=tuple(self.skipped),
            suggestion=detect_swapped_columns(self.rows),
        )


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
    reading = _Reading(src, simplify_chinese, max_chars)
    for raw in raw_lines(corpus):
        reading.take(raw)
    refuse_mostly_undecodable(corpus, reading.undecodable, reading.lines_read)
    report = reading.report(corpus)
    if not reading.pairs:
        hint = f"; {report.suggestion}" if report.suggestion else ""
        first = report.details(limit=1)
        example = f"; first problem: {first[0]}" if first else ""
        raise DataError(f"no valid sentence pairs in {corpus} ({report.summary()}){hint}{example}")
    return reading.pairs, report


def preview(path: str | os.PathLike[str], count: int = 10) -> list[tuple[str, str]]:
    """The first ``count`` non-blank lines as raw (column 1, column 2) rows, for a quick look.

    Nothing is normalized; undecodable bytes show as U+FFFD and a line without a tab gives
    ``(line, "")``. Only the lines needed are read. Raises :class:`DataError` when the file is
    missing, unreadable or binary.
    """
    rows: list[tuple[str, str]] = []
    if count <= 0:
        return rows
    for raw in raw_lines(Path(path)):
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
                if is_cjk(ch):
                    counts[column][0] += 1
                elif is_latin(ch):
                    counts[column][1] += 1
    (cjk_1, latin_1), (cjk_2, latin_2) = counts
    if cjk_1 > latin_1 and latin_2 > cjk_2:
        return (
            "column 1 looks Chinese and column 2 English: the file's columns seem swapped; "
            "the expected format is English<TAB>Chinese[<TAB>attribution]"
        )
    return None
