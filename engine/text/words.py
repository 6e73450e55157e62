"""Sub-word pieces merged into words, and attention merged with them (the app's word view).

The model reads and writes SentencePiece pieces (``▁Al`` ``though``, ``▁我明天`` ``要去``); a reader
thinks in words. :func:`split_words` groups consecutive pieces into words, and the merges turn an
attention matrix over pieces into one over words:

- **Source side (columns): summed.** α of a source word = Σ α over its pieces — the share of the
  step's attention that went to the word. Every row still sums to 1.
- **Output side (rows): averaged.** The row of an output word = the mean of its pieces' rows (each
  a distribution over the source), so every merged row still sums to 1.
- **Scores e_ij: log-sum-exp.** The score of a source word = log Σ exp(e_ij) over its pieces, so that
  softmax over the words' scores is exactly the summed α.

Where a word starts (a *boundary* between two neighbouring pieces):

- before a piece that carries the word-start mark ``▁`` (a space in the text); a piece that is only
  ``▁`` joins the word after it;
- around special pieces (``</s>``, ``<unk>``) and around punctuation and symbols — except an
  apostrophe between letters (``didn't``, ``I'm``) and a point or comma between digits (``3.5``);
- between a Chinese character and anything else (``6`` | ``年``);
- inside a run of Chinese characters, where the segmenter (engine/text/segment.py, jieba) puts a word
  boundary. A piece that spans two of its words (``▁我明天`` = 我 + 明天) cannot be split: the word
  view then shows the union.

Byte-fallback pieces (``<0xEF>`` ``<0xBC>`` ``<0x8C>``) are decoded: the pieces of one character
always belong to one word, which shows the character (``，``). Pure Python and numpy: no Qt, no torch.
"""

from __future__ import annotations

import bisect
import re
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from engine.text.segment import segment

WORD_START = "\u2581"
SPECIAL_PIECES = frozenset({"</s>", "<s>", "<unk>", "<pad>"})
MERGE_RULE = ("source pieces: α summed over a word's pieces; output pieces: rows averaged over a word's pieces "
              "(every row still sums to 1); scores: log Σ exp over a word's pieces")
_BYTE_PIECE = re.compile(r"^<0x([0-9A-Fa-f]{2})>$")
_HAN_RUN = re.compile(r"[\u4e00-\u9fff\u3400-\u4dbf\uf900-\ufaff\u3007\U00020000-\U0002ffff]{2,}")
_APOSTROPHES = frozenset("'\u2019")
_DECIMAL_MARKS = frozenset(".,")


@dataclass(frozen=True)
class WordSplit:
    """Pieces grouped into words: word ``w`` is pieces ``starts[w]`` up to ``starts[w + 1]``."""

    pieces: tuple[str, ...]
    words: tuple[str, ...]  # each word's text (no word-start marks; a decoded byte sequence)
    starts: tuple[int, ...]  # the index of each word's first piece, increasing, starts[0] == 0

    @property
    def count(self) -> int:
        return len(self.words)

    @property
    def identity(self) -> bool:
        """Every piece is a word of its own (the merge changes nothing)."""
        return len(self.starts) == len(self.pieces)

    def word_of(self, piece: int) -> int:
        """The word that piece ``piece`` belongs to (-1 outside the pieces)."""
        if not 0 <= piece < len(self.pieces):
            return -1
        return bisect.bisect_right(self.starts, piece) - 1

    def pieces_of(self, word: int) -> range:
        """The pieces of word ``word`` (empty outside the words)."""
        if not 0 <= word < len(self.starts):
            return range(0)
        end = self.starts[word + 1] if word + 1 < len(self.starts) else len(self.pieces)
        return range(self.starts[word], end)

    def continues(self, piece: int) -> bool:
        """True when ``piece`` is not the first of its word (it continues the word before it)."""
        return 0 < piece < len(self.pieces) and self.starts[self.word_of(piece)] != piece

    def sizes(self) -> np.ndarray:
        """The number of pieces of each word."""
        bounds = np.asarray((*self.starts, len(self.pieces)), dtype=np.int64)
        return np.diff(bounds)



def _byte_value(piece: str) -> int:
    """The byte a byte piece (``<0xEF>``) stands for; the caller has matched it with _BYTE_PIECE."""
    match = _BYTE_PIECE.match(piece)
    assert match is not None
    return int(match.group(1), 16)


def is_han(char: str) -> bool:
    """A Chinese character (CJK unified or compatibility ideograph, or 〇)."""
    code = ord(char)
    return (0x4E00 <= code <= 0x9FFF or 0x3400 <= code <= 0x4DBF or 0xF900 <= code <= 0xFAFF
            or 0x20000 <= code <= 0x2FFFF or code == 0x3007)


def _is_mark(char: str) -> bool:
    """Punctuation, a symbol or a space: a word of its own."""
    return char.isspace() or unicodedata.category(char)[0] in "PS"


def _piece_texts(pieces: Sequence[str]) -> tuple[list[str], list[bool]]:
    """Per piece: its text in the sentence (no ``▁``; a byte sequence decoded onto its first piece),
    and whether it is glued to the piece before (a later byte of one character)."""
    texts = [p.replace(WORD_START, "") if p not in SPECIAL_PIECES else "" for p in pieces]
    glued = [False] * len(pieces)
    k = 0
    while k < len(pieces):
        if not _BYTE_PIECE.match(pieces[k]):
            k += 1
            continue
        end = k
        while end < len(pieces) and _BYTE_PIECE.match(pieces[end]):
            end += 1
        _decode_bytes(pieces, k, end, texts, glued)
        k = end
    return texts, glued


def _decode_bytes(pieces: Sequence[str], start: int, end: int, texts: list[str], glued: list[bool]) -> None:
    """Decode byte pieces ``start``..``end`` character by character; a character's text goes on its
    first byte's piece and its later bytes are glued to it. Bytes that do not complete a character
    keep their piece's own text (``<0xEF>``)."""
    k = start
    while k < end:
        for length in range(1, min(4, end - k) + 1):
            chunk = bytes(_byte_value(pieces[k + i]) for i in range(length))
            try:
                char = chunk.decode("utf-8")
            except UnicodeDecodeError:
                continue
            texts[k] = char
            for i in range(1, length):
                texts[k + i], glued[k + i] = "", True
            k += length
            break
        else:
            texts[k] = pieces[k]  # an incomplete or invalid sequence: shown as the piece itself
            k += 1


@lru_cache(maxsize=4096)
def _han_boundaries(run: str, segmenter: Callable[[str], list[str]]) -> frozenset[int]:
    """Offsets inside ``run`` (a run of Chinese characters) where the segmenter starts a word."""
    offsets, position = set(), 0
    for word in segmenter(run)[:-1]:
        position += len(word)
        offsets.add(position)
    return frozenset(offsets)


def _connects(text: str, position: int) -> bool:
    """True when the mark at ``text[position]`` joins its neighbours into one word (``didn't``, ``3.5``)."""
    char = text[position]
    if not 0 < position < len(text) - 1:
        return False
    before, after = text[position - 1], text[position + 1]
    if char in _APOSTROPHES:
        return before.isalpha() and after.isalpha() and not is_han(before) and not is_han(after)
    return char in _DECIMAL_MARKS and before.isdigit() and after.isdigit()


def _boundary(text: str, position: int, han_starts: set[int]) -> bool:
    """Whether a word starts at ``text[position]`` (within one piece's text or between two unmarked pieces)."""
    before, after = text[position - 1], text[position]
    if _is_mark(before) and not _connects(text, position - 1):
        return True
    if _is_mark(after) and not _connects(text, position):
        return True
    if is_han(before) != is_han(after):
        return True
    return is_han(before) and position in han_starts


def split_words(pieces: Sequence[str], segmenter: Callable[[str], list[str]] = segment) -> WordSplit:
    """Group ``pieces`` into words (see the module's rule); ``segmenter`` cuts runs of Chinese characters."""
    pieces = tuple(pieces)
    if not pieces:
        return WordSplit((), (), ())
    spelled = _Spelled.of(pieces, segmenter)
    starts = [0] + [k for k in range(1, len(pieces)) if spelled.starts_word(k)]
    return WordSplit(pieces, tuple(_word_text(pieces, spelled.texts, starts, w) for w in range(len(starts))),
                     tuple(starts))


@dataclass(frozen=True)
class _Spelled:
    """The sentence that pieces spell, and what decides where its words start."""

    pieces: tuple[str, ...]
    texts: list[str]  # per piece, its text (_piece_texts)
    glued: list[bool]  # per piece, whether it is a later byte of the character before
    text: str  # the sentence, a space before each word-start mark
    offsets: list[int]  # per piece, where its text starts in ``text``
    han_starts: set[int]  # offsets in ``text`` where the segmenter starts a word inside a run of Chinese characters

    @classmethod
    def of(cls, pieces: tuple[str, ...], segmenter: Callable[[str], list[str]]) -> _Spelled:
        texts, glued = _piece_texts(pieces)
        offsets, text = [], ""
        for piece, piece_text in zip(pieces, texts, strict=True):
            if piece.startswith(WORD_START) and piece_text:
                text += " "
            offsets.append(len(text))
            text += piece_text
        han_starts: set[int] = set()
        for run in _HAN_RUN.finditer(text):
            han_starts.update(run.start() + offset for offset in _han_boundaries(run.group(), segmenter))
        return cls(pieces, texts, glued, text, offsets, han_starts)

    def starts_word(self, k: int) -> bool:
        """Whether piece ``k`` (≥ 1) starts a word."""
        previous, piece = self.pieces[k - 1], self.pieces[k]
        if self.glued[k]:
            return False
        if previous == WORD_START and piece not in SPECIAL_PIECES:
            return False  # a lone word-start mark belongs to the word after it
        if previous in SPECIAL_PIECES or piece in SPECIAL_PIECES or piece.startswith(WORD_START):
            return True
        return bool(self.texts[k]) and self.offsets[k] > 0 and _boundary(self.text, self.offsets[k], self.han_starts)


def _word_text(pieces: tuple[str, ...], texts: list[str], starts: list[int], word: int) -> str:
    """What word ``word`` shows: its pieces' texts; a word without text shows its special piece, or ``▁``."""
    start = starts[word]
    end = starts[word + 1] if word + 1 < len(starts) else len(pieces)
    shown = "".join(texts[start:end])
    return shown or next((p for p in pieces[start:end] if p in SPECIAL_PIECES), WORD_START)


def merge_columns(matrix: np.ndarray, split: WordSplit) -> np.ndarray:
    """Columns over pieces → columns over words: α summed over each word's pieces."""
    matrix = np.asarray(matrix, dtype=np.float32)
    if split.identity:
        return matrix.copy()
    if not split.count:
        return np.zeros((matrix.shape[0], 0), np.float32)
    return np.add.reduceat(matrix, np.asarray(split.starts), axis=1)


def merge_rows(matrix: np.ndarray, split: WordSplit) -> np.ndarray:
    """Rows over output pieces → rows over output words: each word's rows averaged. ``matrix`` may
    have fewer rows than ``split`` has pieces (a run still streaming); the words are then those
    whose first piece has a row, each averaged over the rows it has."""
    matrix = np.asarray(matrix, dtype=np.float32)
    rows = matrix.shape[0]
    if split.identity and rows == len(split.pieces):
        return matrix.copy()
    starts = np.asarray([s for s in split.starts if s < rows], dtype=np.int64)
    if not starts.size:
        return np.zeros((0, matrix.shape[1]), np.float32)
    counts = np.diff(np.append(starts, rows))
    return (np.add.reduceat(matrix, starts, axis=0) / counts[:, None]).astype(np.float32)


def merge_attention(matrix: np.ndarray, source: WordSplit, target: WordSplit) -> np.ndarray:
    """A piece-level attention matrix (output pieces × source pieces) as output words × source words."""
    return merge_rows(merge_columns(matrix, source), target)


def merge_scores(scores: np.ndarray, split: WordSplit) -> np.ndarray:
    """One step's scores e_ij over source pieces → over source words: log Σ exp over each word's pieces."""
    scores = np.asarray(scores, dtype=np.float64)
    if split.identity or not split.count:
        return scores.copy()
    return np.logaddexp.reduceat(scores, np.asarray(split.starts))
