"""Text normalization: one sentence cleaned the same way for training, translation and scoring
(invisible and control characters, Unicode NFKC, whitespace, Traditional Chinese to Simplified),
and the character classes the corpus checks use."""

from __future__ import annotations

import unicodedata
from functools import lru_cache

import opencc

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


def is_cjk(ch: str) -> bool:
    """True for a CJK Unified Ideograph (base block, extensions A-F, compatibility ideographs)."""
    code = ord(ch)
    return (
        0x4E00 <= code <= 0x9FFF
        or 0x3400 <= code <= 0x4DBF
        or 0xF900 <= code <= 0xFAFF
        or 0x20000 <= code <= 0x2FFFF
    )


def is_latin(ch: str) -> bool:
    """True for a Latin letter (ASCII, Latin-1 supplement, Latin extended A/B, full-width)."""
    return ch.isalpha() and (ord(ch) < 0x250 or 0xFF21 <= ord(ch) <= 0xFF5A)


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
