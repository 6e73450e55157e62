"""Words for word alignment, and the maps between a model's sub-word pieces and those words.

A statistical aligner links *words*; a model attends over *sub-word pieces*. This module fixes what a
word is (:data:`WORD_RULE`), independently of any model's tokenizer, and maps a model's pieces onto
those words by the characters they share, so that a model's attention can be read at the word level:

- **Chinese: one word per character.** Every CJK ideograph is a word of its own; a run of Latin
  letters or of digits is one word; any other non-space character (punctuation, symbols) is one
  word. Characters rather than a segmenter's words: the link sets then do not depend on one
  segmenter's choices (汤姆 → 汤 姆 is always two words; a segmenter may or may not join 不想), the
  aligner needs no dictionary, and a Chinese model's pieces, which are mostly single characters,
  map onto words almost one to one. The cost: a two-character word links to the same English word
  twice, and AER counts both links.
- **English (and any other language): a run of letters, digits and underscores is a word; any other
  non-space character is a word of its own** ("don't" → don ' t, "Boston." → Boston .).

A piece covers the characters it spells (``▁`` is a space, consecutive byte pieces together spell
one character). A piece that overlaps k words gives each of them 1/k of itself (rare: SentencePiece
seldom joins a letter and a punctuation mark); one that overlaps none (a lone ``▁``) maps to nothing.

Shapes: P pieces, W words; S source pieces, T target pieces; Ws, Wt source and target words.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

WORD_RULE_VERSION = 1
WORD_RULE = ("Chinese: each CJK character is a word, a run of Latin letters or of digits is a word, any other "
             "non-space character is a word; other languages: a run of letters, digits and underscores is a word, "
             "any other non-space character is a word")

_CJK = r"\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0002ffff"
_CHINESE_WORD = re.compile(rf"[{_CJK}]|[^\W\d_{_CJK}]+|\d+|\S")
_OTHER_WORD = re.compile(r"\w+|\S")
SPACE_MARK = "\u2581"  # SentencePiece's ▁
_BYTE_PIECE = re.compile(r"<0x([0-9A-Fa-f]{2})>")


@dataclass(frozen=True)
class Word:
    """One word of a sentence: its text and its character span ``[start, end)`` in that sentence."""

    text: str
    start: int
    end: int


def split_words(text: str, language: str) -> tuple[Word, ...]:
    """The words of ``text`` (already normalized, as corpus pairs are) by :data:`WORD_RULE`."""
    pattern = _CHINESE_WORD if language == "zh" else _OTHER_WORD
    return tuple(Word(m.group(), m.start(), m.end()) for m in pattern.finditer(text))


def word_strings(text: str, language: str) -> list[str]:
    """The lower-cased words of ``text``: what the aligner reads."""
    return [word.text.lower() for word in split_words(text, language)]


def piece_characters(pieces: tuple[str, ...] | list[str]) -> list[tuple[str, tuple[int, ...]]]:
    """The non-space characters the pieces spell, in order, each with the pieces that spell it.

    A character made of byte pieces (``<0xE4><0xBD><0xA0>``) is spelled by all of them; bytes that
    never complete a character are dropped."""
    spelled: list[tuple[str, tuple[int, ...]]] = []
    pending: list[int] = []  # byte pieces of a character not yet complete
    pending_bytes = b""
    for index, piece in enumerate(pieces):
        byte = _BYTE_PIECE.fullmatch(piece)
        if byte is not None:
            pending.append(index)
            pending_bytes += bytes([int(byte.group(1), 16)])
            try:
                character = pending_bytes.decode("utf-8")
            except UnicodeDecodeError:
                if len(pending_bytes) >= 4:  # no UTF-8 character is longer: give up on these bytes
                    pending, pending_bytes = [], b""
                continue
            spelled += [(ch, tuple(pending)) for ch in character if not ch.isspace()]
            pending, pending_bytes = [], b""
            continue
        pending, pending_bytes = [], b""
        spelled += [(ch, (index,)) for ch in piece.replace(SPACE_MARK, " ") if not ch.isspace()]
    return spelled


def piece_word_map(pieces: tuple[str, ...] | list[str], text: str, words: tuple[Word, ...]) -> np.ndarray:
    """P×W: entry (p, w) is 1/k when piece p overlaps word w and k words in all, else 0.

    The pieces' characters are matched to the non-space characters of ``text`` in order. When the
    two sequences differ in length (a tokenizer that normalizes characters ``text`` kept), each
    piece character is matched to the text character at the same relative position."""
    mapping = np.zeros((len(pieces), len(words)), dtype=np.float64)
    spelled = piece_characters(pieces)
    positions = [i for i, ch in enumerate(text) if not ch.isspace()]
    if not spelled or not positions or not words:
        return mapping
    for p, found in _overlaps(spelled, _matched_positions(positions, len(spelled)), _word_at(len(text), words)).items():
        for w in found:
            mapping[p, w] = 1.0 / len(found)
    return mapping


def _overlaps(spelled: list[tuple[str, tuple[int, ...]]], matched: list[int], word_at: np.ndarray
              ) -> dict[int, set[int]]:
    """piece → the words it overlaps: each spelled character's pieces overlap the word of its matched position."""
    overlaps: dict[int, set[int]] = {}
    for (_character, owners), position in zip(spelled, matched, strict=True):
        w = int(word_at[position])
        if w >= 0:
            for p in owners:
                overlaps.setdefault(p, set()).add(w)
    return overlaps


def _word_at(length: int, words: tuple[Word, ...]) -> np.ndarray:
    """(length,): the word each character of the text belongs to, -1 for none (a space)."""
    word_at = np.full(length, -1, dtype=np.int64)
    for w, word in enumerate(words):
        word_at[word.start:word.end] = w
    return word_at


def _matched_positions(positions: list[int], count: int) -> list[int]:
    """The text position matched to each of ``count`` piece characters: the same one in order when there
    are as many non-space characters ``positions``, else the one at the same relative position."""
    if count == len(positions):
        return positions
    scale = len(positions) / count
    return [positions[min(int(k * scale), len(positions) - 1)] for k in range(count)]


def word_attention(attention: np.ndarray, source_map: np.ndarray, target_map: np.ndarray) -> np.ndarray:
    """Wt×Ws attention between words from T×S attention between pieces.

    ``source_map``: S×Ws and ``target_map``: T×Wt from :func:`piece_word_map`. A source word's weight
    is the sum of its pieces' α (so a row still sums to 1 when every piece belongs to a word); an
    output word's row is the mean of the rows of the output pieces that overlap it. An output word
    that no piece overlaps gets a row of zeros."""
    attention = np.asarray(attention, dtype=np.float64)
    if attention.shape != (target_map.shape[0], source_map.shape[0]):
        raise ValueError(f"attention of shape {attention.shape} does not match {target_map.shape[0]} output "
                         f"and {source_map.shape[0]} source pieces")
    to_source_words = attention @ source_map  # T×Ws
    members = (target_map > 0).astype(np.float64)  # T×Wt
    counts = members.sum(axis=0)  # Wt
    summed = members.T @ to_source_words  # Wt×Ws
    return np.divide(summed, counts[:, None], out=np.zeros_like(summed), where=counts[:, None] > 0)
