"""Is an input in the language a model translates from? A check before decoding (torch-free).

A model fed another language does not fail: it decodes noise with confidence (English typed into
zh→en gives "Antubromactimas of thenter."; Chinese typed into en→zh is nothing but byte pieces
``<0xE6>…`` to the English tokenizer). Two measures, both cheap and explainable:

- **Script share** (Chinese and English): Han characters against English's letters, the ASCII
  ones; digits, punctuation, spaces, emoji, other scripts and accented Latin letters (é, ñ, ü:
  other languages' as much as English's loanwords') count for neither, so "é" × 5000 is no English. A Han character weighs as much
  as ``LATIN_LETTERS_PER_HAN`` Latin letters — a Chinese word is about 1.6 characters, an English
  one about 4.7 letters — so "我用iPhone拍照" reads as Chinese and "I love 北京" as mixed. A script
  holding at least ``DOMINANT_SHARE`` of the weighted letters is the input's language; an input
  dominated by the other language of the pair is *wrong language*; mixed input and input without
  letters pass.
- **Unknown characters** (any language): after tokenizing, the characters the tokenizer could
  only spell as byte pieces (SentencePiece byte fallback: characters never seen in training),
  counted once per character however many UTF-8 bytes it takes, against every unit the model reads
  (pieces other than the bare word-start mark ``▁``, plus those characters). More than
  ``BYTE_SHARE_LIMIT`` of them is *mostly unknown pieces* — emoji alone, Cyrillic, kana.

The script rule runs first: its verdict names the language to switch to.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

LATIN_LETTERS_PER_HAN = 3.0  # a Han character weighs as much as three Latin letters (see the docstring)
DOMINANT_SHARE = 0.6  # a script with this share of the weighted letters is the input's language
BYTE_SHARE_LIMIT = 0.5  # over this share of characters spelled as byte pieces, the input is mostly unknown
BYTE_PIECE_PREFIX = "<0x"  # SentencePiece byte-fallback pieces: "<0xE6>"
WORD_START = "▁"  # SentencePiece's word-start mark; alone it is a piece of no character
SCRIPT_LANGUAGES = {"zh": "Chinese", "en": "English"}  # the languages the script rule knows, by code

_HAN_RANGES = (
    (0x3007, 0x3007),  # 〇, the ideographic zero of written-out dates
    (0x3400, 0x4DBF),  # CJK Unified Ideographs Extension A
    (0x4E00, 0x9FFF),  # CJK Unified Ideographs
    (0xF900, 0xFAFF),  # CJK Compatibility Ideographs
    (0x20000, 0x323AF),  # Extensions B–H
)


class Verdict(StrEnum):
    OK = "ok"
    WRONG_LANGUAGE = "wrong_language"  # another language's script dominates: ``detected`` names it
    UNKNOWN_PIECES = "unknown_pieces"  # most characters are byte pieces to the model's tokenizer


@dataclass(frozen=True)
class ScriptCounts:
    """Letters of the two scripts the rule compares (everything else is neutral)."""

    han: int = 0
    latin: int = 0  # ASCII letters (English's)

    @property
    def weighted_total(self) -> float:
        return self.han + self.latin / LATIN_LETTERS_PER_HAN

    def share(self, language: str) -> float:
        """The weighted share of ``language``'s script ("zh" or "en") among the letters; 0 without letters."""
        total = self.weighted_total
        if total == 0:
            return 0.0
        own = self.han if language == "zh" else self.latin / LATIN_LETTERS_PER_HAN
        return own / total

    def dominant(self) -> str | None:
        """"zh" or "en" when its script holds at least ``DOMINANT_SHARE``; None when mixed or without letters."""
        return next((code for code in SCRIPT_LANGUAGES if self.weighted_total and self.share(code) >= DOMINANT_SHARE),
                    None)


@dataclass(frozen=True)
class LanguageCheck:
    """The verdict on one input for a model that translates from ``expected``."""

    verdict: Verdict
    expected: str  # the model's source language code, e.g. "zh"
    detected: str | None  # "zh" / "en" when one of the two scripts dominates, else None
    script_share: float  # the expected language's weighted share of the letters (1.0 when not measured)
    unknown_characters: int  # characters the tokenizer spelled as byte pieces
    byte_share: float  # those characters' share of the units the model reads
    message: str  # one sentence saying what is wrong ("" when the verdict is ok)

    @property
    def ok(self) -> bool:
        return self.verdict is Verdict.OK

    def to_json(self) -> dict[str, Any] | None:
        """``translate --json``'s ``warning`` object; None when the input passed."""
        if self.ok:
            return None
        return {"kind": self.verdict.value, "message": self.message, "expected_language": self.expected,
                "detected_language": self.detected, "script_share": round(self.script_share, 4),
                "byte_share": round(self.byte_share, 4)}


def language_name(code: str) -> str:
    """The language's name for a script code (the code itself when unknown)."""
    return SCRIPT_LANGUAGES.get(code, code)


def is_han(character: str) -> bool:
    """Whether ``character`` is a Han (Chinese) character."""
    point = ord(character)
    return any(low <= point <= high for low, high in _HAN_RANGES)


def script_counts(text: str) -> ScriptCounts:
    """How many Han and Latin letters ``text`` holds."""
    han = latin = 0
    for character in text:
        if character.isascii():
            latin += character.isalpha()
        elif is_han(character):
            han += 1
    return ScriptCounts(han, latin)


def unknown_character_count(pieces: Sequence[str]) -> tuple[int, int]:
    """(characters spelled as byte pieces, units the model reads) of a tokenized input. A byte
    piece starts a character unless it is a UTF-8 continuation byte (0x80–0xBF); the bare
    word-start mark ``▁`` is no unit."""
    unknown = known = 0
    for piece in pieces:
        if piece.startswith(BYTE_PIECE_PREFIX) and piece.endswith(">"):
            try:
                value = int(piece[len(BYTE_PIECE_PREFIX):-1], 16)
            except ValueError:
                known += 1
                continue
            unknown += not 0x80 <= value <= 0xBF
        elif piece != WORD_START:
            known += 1
    return unknown, unknown + known


def check_language(text: str, pieces: Sequence[str] | None, expected: str) -> LanguageCheck:
    """The verdict on ``text`` (as the model reads it: normalized) for a model translating from
    ``expected``; ``pieces`` are its sub-word pieces (None: the script rule only). The script rule
    applies to Chinese and English sources; the unknown-character rule to every source."""
    counts = script_counts(text)
    detected = counts.dominant()
    checks_script = expected in SCRIPT_LANGUAGES
    share = counts.share(expected) if checks_script and counts.weighted_total else 1.0
    unknown, units = unknown_character_count(pieces) if pieces is not None else (0, 0)
    byte_share = unknown / units if units else 0.0
    verdict, message = Verdict.OK, ""
    if checks_script and detected is not None and detected != expected:
        verdict, message = Verdict.WRONG_LANGUAGE, _wrong_language_message(detected, expected, share)
    elif units and byte_share > BYTE_SHARE_LIMIT:
        verdict, message = Verdict.UNKNOWN_PIECES, _unknown_pieces_message(unknown, units, expected)
    return LanguageCheck(verdict, expected, detected, share, unknown, byte_share, message)


def _wrong_language_message(detected: str, expected: str, share: float) -> str:
    return (f"the input looks like {language_name(detected)} ({1 - share:.0%} of its letters), but the "
            f"model translates from {language_name(expected)}")


def _unknown_pieces_message(unknown: int, units: int, expected: str) -> str:
    vocabulary = f"{SCRIPT_LANGUAGES[expected]} vocabulary" if expected in SCRIPT_LANGUAGES else "vocabulary"
    share_text = "every input token is a character" if unknown == units else (
        f"{unknown} of {units} input tokens are characters")
    return f"{share_text} the model's {vocabulary} does not have (read as byte pieces such as <0xF0>)"
