"""The words a model was trained on, recorded in its model folder, and the input words it never saw.

A learner who types "grandparents" (never in the training corpus), 饺子 (饺 never seen: it becomes
byte pieces) or "Python" (spelled P ##y ##t ##h ##o ##n) gets a poor translation of that part; the
app names such words ("never seen in training: grandparents") and ``translate --json`` lists them
(``unseen``).

**What is recorded.** The source side of the training pairs — the sentences the encoder read, as
training normalized them; the held-out valid and test pairs are left out — split into words as the
word view splits text (engine/text/words.py: spaces, punctuation, an apostrophe inside a word, a Chinese
run cut by jieba, engine/text/segment.py), lower-cased; words without a letter (numbers, punctuation)
are left out (and so is a "word" over 200 characters). Besides the words, the Chinese characters of
those sentences.

**Where.** ``words.json``, a file of its own in the model folder (engine.models.model_files: it joins the
folder's one commit, and config.json records its sha256 under ``training_words``, as it does the
weights' and the tokenizers'). Not a section of config.json: the Tatoeba training side holds ~7,000
distinct English words, or ~11,000 jieba words and ~2,700 characters — 70–120 KB of JSON, twice
the size of config.json itself (~60 KB), which the catalog, the Length study and the build read for
every model and never need the words for. As its own file it is read once, when the model loads
(through engine.files.safe_open, at most ``MAX_RECORD_BYTES``), and config.json stays a page a person reads.

**Unseen.** An input word (split the same way, lower-cased) is unseen when the record lacks it; a
single Chinese character counts as seen when it occurred anywhere in training (inside a longer
word too: the model reads characters, not jieba's words). Characters never seen at all are named
apart (:meth:`TrainingWords.unseen_characters`): they are the ones SentencePiece spells as bytes.
A Chinese word is only as exact as jieba's cut: 祖父母 cut as 祖 | 父母 is not named, though the
model never saw the three together (the Tatoeba test side: ~22 % of its zh sentences hold a jieba
word the training side lacks, ~2 % a character; ~10 % of its en sentences an unseen English word).

A run on the token cache (engine.corpus.token_cache) records none: its training pairs are ids, not text.
A folder without the record (saved before it existed) still loads and translates; the check is
then unavailable, and :data:`NOT_RECORDED` says so once. A damaged record (digest, JSON, schema,
over the cap, not a regular file) is the same, with its reason (:func:`load_training_words`).
Pure Python: no Qt, no torch (the app imports it before PyTorch loads).
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine.files.safe_open import read_capped
from engine.files.schema import Choice, Int, ListOf, Obj, SchemaError, Str
from engine.settings.errors import StoredFileError
from engine.text.segment import segmenter_name
from engine.text.words import WORD_START, is_han, split_words

WORDS_FILE = "words.json"  # a model folder's training words, beside its weights (engine.models.model_files)

CONFIG_KEY = "training_words"  # config.json's entry: {"file", "sha256", "words", "characters"}
FORMAT = "attention-studio-training-words"
FORMAT_VERSION = 1
MAX_WORDS = 2_000_000  # distinct words; the Tatoeba side has ~11,000
MAX_CHARACTERS = 100_000  # distinct Chinese characters (Unicode has ~98,000 CJK ideographs)
MAX_WORD_CHARS = 200
MAX_RECORD_BYTES = 48 * 1024 * 1024  # MAX_WORDS words of ~20 bytes; the Tatoeba record is ~120 KB
NOT_RECORDED = ("this model folder has no record of its training words (saved before models recorded them, or "
                "trained through the token cache): words it never saw cannot be named")
log = logging.getLogger(__name__)

RECORD_SPEC = Obj(
    {
        "format": Choice((FORMAT,)),
        "format_version": Choice((FORMAT_VERSION,)),
        "language": Str(max_length=32),
        "sentences": Int(low=0),
        "segmenter": Str(max_length=200),
        "words": ListOf(Str(max_length=MAX_WORD_CHARS), max_items=MAX_WORDS),
        "characters": Str(max_length=MAX_CHARACTERS),
    },
    required=frozenset({"format", "format_version", "language", "words", "characters"}),
)


def text_words(text: str) -> list[str]:
    """``text`` split into words as the word view splits it (each character a piece, a space a word
    start: engine.text.words.split_words), in order, as written (not lower-cased)."""
    pieces, space = [], True
    for char in text:
        if char.isspace():
            space = True
            continue
        pieces.append(WORD_START + char if space else char)
        space = False
    return list(split_words(pieces).words)


def _has_letter(word: str) -> bool:
    return any(char.isalpha() for char in word)


@dataclass(frozen=True)
class TrainingWords:
    """The record: the lower-cased words and the Chinese characters of a model's training sources."""

    language: str
    words: frozenset[str]
    characters: frozenset[str]
    sentences: int = 0
    segmenter: str = ""

    def knows(self, word: str) -> bool:
        """Whether ``word`` (lower-cased) occurred in training; one Chinese character: anywhere."""
        if len(word) == 1 and is_han(word):
            return word in self.characters
        return word in self.words

    def unseen_words(self, normalized: str) -> list[str]:
        """The words of ``normalized`` (an input as the model reads it) that training never had, each
        once, in input order and as written."""
        unseen: dict[str, str] = {}
        for word in text_words(normalized):
            key = word.lower()
            if key not in unseen and _has_letter(key) and not self.knows(key):
                unseen[key] = word
        return list(unseen.values())

    def unseen_characters(self, normalized: str) -> list[str]:
        """The Chinese characters of ``normalized`` that training never had, each once, in order."""
        return list(dict.fromkeys(c for c in normalized if is_han(c) and c not in self.characters))

    def to_bytes(self) -> bytes:
        """``words.json``'s bytes (sorted, so the same training gives the same file)."""
        document = {"format": FORMAT, "format_version": FORMAT_VERSION, "language": self.language,
                    "sentences": self.sentences, "segmenter": self.segmenter, "words": sorted(self.words),
                    "characters": "".join(sorted(self.characters))}
        return (json.dumps(document, ensure_ascii=False, separators=(",", ":")) + "\n").encode("utf-8")

    def config_entry(self, data: bytes) -> dict[str, Any]:
        """config.json's ``training_words`` entry for this record written as ``data``."""
        return {"file": WORDS_FILE, "sha256": hashlib.sha256(data).hexdigest(), "words": len(self.words),
                "characters": len(self.characters)}


def collect_training_words(sentences: Iterable[str], language: str) -> TrainingWords | None:
    """The record of ``sentences`` (training sources, normalized as trained on); None when they hold
    more than MAX_WORDS distinct words or MAX_CHARACTERS characters (too many to record)."""
    words: set[str] = set()
    characters: set[str] = set()
    count = 0
    for sentence in sentences:
        count += 1
        words.update(key for word in text_words(sentence)
                     if _has_letter(key := word.lower()) and len(key) <= MAX_WORD_CHARS)
        characters.update(char for char in sentence if is_han(char))
    if len(words) > MAX_WORDS or len(characters) > MAX_CHARACTERS:
        log.warning("the training sources hold %s words and %s characters: too many to record", len(words),
                    len(characters))
        return None
    return TrainingWords(language, frozenset(words), frozenset(characters), count, segmenter_name())


def parse_training_words(data: bytes, where: object) -> TrainingWords:
    """The record in ``data`` (``words.json``'s bytes); StoredFileError naming ``where`` and what is wrong."""
    try:
        document = json.loads(data.decode("utf-8"))
        RECORD_SPEC.check(document)
    except UnicodeDecodeError as error:
        raise StoredFileError(f"{where} is not UTF-8 text (byte {error.start:,})") from None
    except RecursionError:
        raise StoredFileError(f"{where} nests too deep to read") from None
    except SchemaError as error:
        raise StoredFileError(f"{where}: {error}") from None
    except ValueError as error:  # JSONDecodeError, and integers too long to convert
        raise StoredFileError(f"{where} is not valid JSON ({' '.join(str(error).split())[:120]})") from None
    return TrainingWords(document["language"], frozenset(document["words"]), frozenset(document["characters"]),
                         document.get("sentences", 0), document.get("segmenter", ""))


def load_training_words(files: Path, info: dict[str, Any]) -> tuple[TrainingWords | None, str]:
    """The record of the model whose files are in ``files`` and whose config.json is ``info``, and ""; or
    None and one line saying why the check is unavailable (no record: :data:`NOT_RECORDED`; a damaged,
    missing or oversize file, or one that is not the file config.json names). Never raises."""
    entry = info.get(CONFIG_KEY)
    if not isinstance(entry, dict):
        return None, NOT_RECORDED
    path = Path(files) / WORDS_FILE
    try:
        if not path.exists() and not path.is_symlink():
            raise StoredFileError(f"{path} is missing")
        data = read_capped(path, MAX_RECORD_BYTES, StoredFileError)  # a regular file only, bounded
        if hashlib.sha256(data).hexdigest() != entry.get("sha256"):
            raise StoredFileError(f"{path} does not match config.json (sha256 differs): damaged or replaced")
        record = parse_training_words(data, path)
    except StoredFileError as error:
        note = f"the record of this model's training words cannot be used ({error}): words it never saw cannot be named"
        log.warning("%s", note)
        return None, note
    if record.language != info.get("source_language"):
        return None, (f"the record of training words in {path} is of language {record.language!r}, not the model's "
                      f"source {info.get('source_language')!r}: words it never saw cannot be named")
    return record, ""


def unseen_piece_indices(pieces: Sequence[str], unseen: Iterable[str]) -> list[int]:
    """The source pieces that spell an ``unseen`` word: those of every word of the word view
    (engine.text.words.split_words) that holds one (a piece spanning two words marks both)."""
    keys = {word.lower() for word in unseen}
    if not keys:
        return []
    split = split_words(pieces)
    marked: list[int] = []
    for index, word in enumerate(split.words):
        lowered = word.lower()
        if lowered in keys or any(is_han(key[0]) and key in lowered for key in keys):
            marked.extend(split.pieces_of(index))
    return marked
