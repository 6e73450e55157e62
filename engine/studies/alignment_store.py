"""A corpus's word alignment, as the aligner left it: stored once, read by the studies and the app.

Aligning the corpus takes about a minute (``engine.studies.aligner``); the models' alignment studies and the
Compare tab's aligner map read the result from one gzip'd JSON file instead:

```
{"format": "attention-studio-alignment", "format_version": 1,
 "languages": ["zh", "en"], "aligner": "eflomal 2.0.0", "symmetrization": "grow-diag-final-and",
 "word_rule_version": 1, "corpus": {"name": "cmn-eng.tsv", "sha256": "…", "pairs": 27617},
 "seconds": 48.5,
 "pairs": [["<16 hex digits>", source words, target words, "0-0 1-1 …", "0-0 2-1 …"], …],
 "priors": {"lex": [[source word, target word, count], …], "hmm_forward": [[jump, count], …],
            "hmm_reverse": […], "fertility_forward": [[source word, fertility, count], …],
            "fertility_reverse": […]}}
```

Each pair is keyed by the first 16 hex digits of sha256(first-language text, TAB, second-language
text), normalized as the corpus reader normalizes them, with its word counts by
``engine.studies.align_words`` (a pair whose text now splits into other counts is not looked up) and its
forward and reverse links (source-target, in the file's language order). The priors are what the
aligner learnt from the whole corpus, so that a pair the corpus does not hold can be aligned alone
in about a second (``engine.studies.aligner.align_pair``).

Reading checks everything before anything is used and refuses a damaged, edited or foreign file with
the reason (:class:`AlignmentFileError`); it never executes anything.
"""

from __future__ import annotations

import functools
import gzip
import hashlib
import io
import json
import math
import re
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engine.files.atomic import write_bytes_atomic
from engine.files.safe_open import read_capped
from engine.settings.errors import ModelFileError
from engine.studies.align_words import WORD_RULE_VERSION, split_words
from engine.studies.symmetrize import SYMMETRIZATIONS, Link, format_links, parse_links, symmetrize

ALIGNMENT_FORMAT = "attention-studio-alignment"
ALIGNMENT_FORMAT_VERSION = 1
MAX_FILE_BYTES = 64 * 1024 * 1024  # gzip'd; the shipped file is well under 1 MB
MAX_JSON_BYTES = 512 * 1024 * 1024  # once unpacked: a gzip bomb stops here
_KEY = re.compile(r"[0-9a-f]{16}")
_LINKS = re.compile(r"(?:\d{1,4}-\d{1,4}(?: \d{1,4}-\d{1,4})*)?")
_SPACE = re.compile(r"\s")
PRIOR_KINDS = ("lex", "hmm_forward", "hmm_reverse", "fertility_forward", "fertility_reverse")


class AlignmentFileError(ModelFileError):
    """A stored alignment (the corpus's file, or a study in a model's config.json) is missing,
    damaged, edited or of another version; the message says which and what is wrong."""


def pair_key(first: str, second: str) -> str:
    """The key of a pair whose texts are ``first`` and ``second`` in the file's language order."""
    return hashlib.sha256(f"{first}\t{second}".encode()).hexdigest()[:16]


@dataclass(frozen=True)
class AlignedPair:
    """One pair's word counts and the aligner's links in both directions (file language order), as
    Pharaoh text ("0-0 1-2"): checked for form when the file is read, parsed and checked against the
    word counts when the pair is looked up (27,617 pairs are read in well under a second)."""

    source_words: int
    target_words: int
    forward_text: str
    reverse_text: str

    @staticmethod
    def of(source_words: int, target_words: int, forward: frozenset[Link], reverse: frozenset[Link]) -> AlignedPair:
        return AlignedPair(source_words, target_words, format_links(forward), format_links(reverse))

    @property
    def forward(self) -> frozenset[Link]:
        return _links(self.forward_text, self.source_words, self.target_words, "the forward links")

    @property
    def reverse(self) -> frozenset[Link]:
        return _links(self.reverse_text, self.source_words, self.target_words, "the reverse links")


@dataclass(frozen=True)
class CorpusAlignment:
    """The aligned pairs of a corpus, by key, and the aligner's priors (see the module docstring)."""

    languages: tuple[str, str]
    aligner: str  # e.g. "eflomal 2.0.0"
    symmetrization: str  # one of engine.studies.symmetrize.SYMMETRIZATIONS
    corpus_name: str
    corpus_sha256: str
    seconds: float  # the aligner's wall time over the whole corpus
    pairs: dict[str, AlignedPair] = field(repr=False)
    priors: dict[str, list] = field(repr=False)  # PRIOR_KINDS → rows
    word_rule_version: int = WORD_RULE_VERSION

    @property
    def description(self) -> str:
        """'eflomal 2.0.0, grow-diag-final-and, 27,617 pairs of cmn-eng.tsv'."""
        return f"{self.aligner}, {self.symmetrization}, {len(self.pairs):,} pairs of {self.corpus_name}"

    def links(self, source: str, target: str, source_language: str, target_language: str) -> frozenset[Link] | None:
        """The symmetrized links of the pair (``source``, ``target``) as (source word, target word)
        indices in the asked direction, or None when the file does not hold that pair (or its
        texts now split into other word counts)."""
        if (source_language, target_language) == self.languages:
            first, second, flipped = source, target, False
        elif (target_language, source_language) == self.languages:
            first, second, flipped = target, source, True
        else:
            return None
        stored = self.pairs.get(pair_key(first, second))
        if stored is None or (stored.source_words, stored.target_words) != (
                len(split_words(first, self.languages[0])), len(split_words(second, self.languages[1]))):
            return None
        links = symmetrize(stored.forward, stored.reverse, self.symmetrization)
        return frozenset((t, s) for s, t in links) if flipped else links

    @functools.cached_property
    def digest(self) -> str:
        """A short fingerprint of the links (what a study was measured against); computed once."""
        text = "\n".join(f"{key} {p.forward_text} | {p.reverse_text}" for key, p in sorted(self.pairs.items()))
        return hashlib.sha256(f"{self.aligner}|{self.symmetrization}|{text}".encode()).hexdigest()[:16]

    def to_json(self) -> dict[str, Any]:
        return {"format": ALIGNMENT_FORMAT, "format_version": ALIGNMENT_FORMAT_VERSION,
                "languages": list(self.languages), "aligner": self.aligner, "symmetrization": self.symmetrization,
                "word_rule_version": self.word_rule_version,
                "corpus": {"name": self.corpus_name, "sha256": self.corpus_sha256, "pairs": len(self.pairs)},
                "seconds": round(self.seconds, 1),
                "pairs": [[key, p.source_words, p.target_words, p.forward_text, p.reverse_text]
                          for key, p in self.pairs.items()],
                "priors": {kind: [list(row) for row in rows] for kind, rows in self.priors.items()}}


def save_alignment(path: Path, alignment: CorpusAlignment) -> None:
    """Write ``alignment`` to ``path`` (gzip'd JSON), atomically."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(alignment.to_json(), ensure_ascii=False, separators=(",", ":"))
    write_bytes_atomic(path, gzip.compress(text.encode("utf-8"), mtime=0))


def load_alignment(path: Path) -> CorpusAlignment:
    """Read and check the alignment file ``path``; AlignmentFileError with the reason otherwise."""
    path = Path(path)
    if not path.exists() and not path.is_symlink():
        raise AlignmentFileError(f"no alignment file at {path}")
    # A regular file only, at most MAX_FILE_BYTES read (engine.files.safe_open): a pipe or device is refused.
    packed_bytes = read_capped(path, MAX_FILE_BYTES, AlignmentFileError)
    try:
        with gzip.GzipFile(fileobj=io.BytesIO(packed_bytes), mode="rb") as packed:
            raw = packed.read(MAX_JSON_BYTES + 1)
    except (OSError, EOFError, gzip.BadGzipFile, zlib.error) as error:  # zlib.error: a damaged deflate stream
        raise AlignmentFileError(f"the alignment file {path.name} cannot be read: {error}") from None
    if len(raw) > MAX_JSON_BYTES:
        raise AlignmentFileError(f"the alignment file {path.name} unpacks to more than {MAX_JSON_BYTES // 2**20} MB")
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise AlignmentFileError(f"the alignment file {path.name} is not valid JSON: {error}") from None
    except RecursionError:
        raise AlignmentFileError(f"the alignment file {path.name} nests too deep to read") from None
    try:
        return alignment_from_json(data)
    except AlignmentFileError as error:
        raise AlignmentFileError(f"the alignment file {path.name} is refused: {error}") from None
    except RecursionError:
        raise AlignmentFileError(f"the alignment file {path.name} nests too deep to check") from None


def _require(condition: bool, reason: str) -> None:
    if not condition:
        raise AlignmentFileError(reason)


def _count(value: Any, what: str) -> int:
    _require(isinstance(value, int) and not isinstance(value, bool) and value >= 0,
             f"{what} must be a whole number ≥ 0; got {value!r}")
    return value


def _links(text: str, source_words: int, target_words: int, where: str) -> frozenset[Link]:
    try:
        links = parse_links(text)
    except ValueError as error:
        raise AlignmentFileError(f"{where}: {error}") from None
    _require(all(s < source_words and t < target_words for s, t in links),
             f"{where}: a link points past the pair's {source_words}×{target_words} words")
    return links


def _links_text(text: Any, where: str) -> str:
    _require(isinstance(text, str) and _LINKS.fullmatch(text) is not None,
             f"{where}: links must be text such as '0-0 1-2'; got {str(text)[:40]!r}")
    return text


def _priors(data: Any) -> dict[str, list]:
    _require(isinstance(data, dict) and set(data) == set(PRIOR_KINDS),
             f"priors must hold exactly {', '.join(PRIOR_KINDS)}")
    shapes = {"lex": (str, str), "hmm_forward": (int,), "hmm_reverse": (int,),
              "fertility_forward": (str, int), "fertility_reverse": (str, int)}
    for kind, shape in shapes.items():
        rows = data[kind]
        _require(isinstance(rows, list), f"priors.{kind} must be a list")
        for row in rows:
            if not (type(row) is list and len(row) == len(shape) + 1 and _prior_fields(row, shape)):
                raise AlignmentFileError(f"priors.{kind}: a row must be {', '.join(t.__name__ for t in shape)} and a "
                                      f"positive count, words without spaces; got {str(row)[:80]}")
    return data


def _prior_fields(row: list, shape: tuple[type, ...]) -> bool:
    for value, kind in zip(row, shape, strict=False):
        if type(value) is not kind or (isinstance(value, str) and (not value or _SPACE.search(value))):
            return False
    count = row[-1]
    return type(count) in (int, float) and math.isfinite(count) and count > 0


def alignment_from_json(data: Any) -> CorpusAlignment:
    """The alignment a parsed file holds, checked field by field (AlignmentFileError names the first fault)."""
    _require(isinstance(data, dict), "the top level must be an object")
    _check_versions(data)
    languages = _languages(data.get("languages"))
    _require(data.get("symmetrization") in SYMMETRIZATIONS,
             f"symmetrization must be one of {', '.join(SYMMETRIZATIONS)}; got {data.get('symmetrization')!r}")
    _require(isinstance(data.get("aligner"), str) and data["aligner"], "the aligner must be named")
    corpus = _corpus(data.get("corpus"))
    seconds = _seconds(data.get("seconds"))
    rows = data.get("pairs")
    _require(isinstance(rows, list), "pairs must be a list")
    pairs = _pairs(rows)
    _require(_count(corpus.get("pairs"), "corpus.pairs") == len(rows),
             f"corpus.pairs says {corpus.get('pairs')} but {len(rows)} are stored")
    return CorpusAlignment((languages[0], languages[1]), data["aligner"], data["symmetrization"], corpus["name"],
                           corpus["sha256"], float(seconds), pairs, _priors(data.get("priors")))


def _check_versions(data: dict[str, Any]) -> None:
    """The file's format, its version and the word rule its counts were made by: the ones this version reads."""
    _require(data.get("format") == ALIGNMENT_FORMAT, f"not an alignment file (format is {data.get('format')!r})")
    _require(data.get("format_version") == ALIGNMENT_FORMAT_VERSION,
             f"format version {data.get('format_version')!r}; this version reads {ALIGNMENT_FORMAT_VERSION}")
    _require(data.get("word_rule_version") == WORD_RULE_VERSION,
             f"words were split by rule version {data.get('word_rule_version')!r}; this version splits by "
             f"{WORD_RULE_VERSION}")


def _languages(languages: Any) -> list[str]:
    _require(isinstance(languages, list) and len(languages) == 2 and all(isinstance(x, str) for x in languages)
             and languages[0] != languages[1], "languages must be two different language codes")
    return languages


def _corpus(corpus: Any) -> dict[str, Any]:
    _require(isinstance(corpus, dict) and isinstance(corpus.get("name"), str)
             and isinstance(corpus.get("sha256"), str), "corpus must name the corpus and its sha256")
    return corpus


def _seconds(seconds: Any) -> float:
    _require(isinstance(seconds, int | float) and not isinstance(seconds, bool) and math.isfinite(seconds)
             and seconds >= 0, f"seconds must be a finite number ≥ 0; got {seconds!r}")
    return seconds


def _pairs(rows: list) -> dict[str, AlignedPair]:
    """The stored pairs by key, each row checked for form (pairs are numbered from 1 in messages)."""
    pairs: dict[str, AlignedPair] = {}
    for number, row in enumerate(rows, start=1):
        where = f"pair {number}"
        _require(isinstance(row, list) and len(row) == 5, f"{where} must be [key, words, words, links, links]")
        key, source_words, target_words, forward, reverse = row
        _require(isinstance(key, str) and _KEY.fullmatch(key) is not None, f"{where}: the key must be 16 hex digits")
        source_words, target_words = _count(source_words, f"{where}: words"), _count(target_words, f"{where}: words")
        pairs[key] = AlignedPair(source_words, target_words, _links_text(forward, where), _links_text(reverse, where))
    return pairs
