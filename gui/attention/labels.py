"""How sub-word pieces are shown: on the heatmap's axes, and as running text.

SentencePiece marks a word start with ``▁``. A piece is shown without that mark (``Nov``, ``2``);
a piece that is only the mark is shown as ``␣`` (an open box, the visible space: drawn as ``▁`` it
looked exactly like the character 一). In the piece view of the map and the inspector, a piece
that continues the word before it (``▁Al`` ``though``; 图书 馆 when the segmenter reads one word
图书馆) is marked ``##though`` — the convention of BERT's WordPiece — so the sub-word split and the
words it belongs to are both visible (engine/text/words.py decides where words start). In running
text the mark becomes a space. Byte-fallback pieces such as ``<0xF0>`` and unknown pieces are
shown unchanged, so nothing the model saw is hidden.
"""

from __future__ import annotations

from collections.abc import Sequence

WORD_START = "\u2581"
SPACE_MARK = "\u2423"  # ␣: a piece that is only the word-start mark
CONTINUATION_MARK = "##"  # before a piece that continues the word before it (piece view)
END_OF_SENTENCE = "</s>"
MAX_AXIS_LABEL = 14  # characters; longer pieces are elided on the axes (the hover text is exact)


def token_label(piece: str) -> str:
    """A piece as a token on its own: without the word-start mark (``␣`` when that is all it is)."""
    return piece.replace(WORD_START, "") or (SPACE_MARK if piece else piece)


def piece_label(piece: str, continues: bool) -> str:
    """A piece in the piece view: :func:`token_label`, marked ``##`` when it ``continues`` a word."""
    label = token_label(piece)
    return CONTINUATION_MARK + label if continues else label


def elided(label: str) -> str:
    """A label cut to MAX_AXIS_LABEL characters for an axis (the hover text stays exact)."""
    if len(label) > MAX_AXIS_LABEL:
        return label[: MAX_AXIS_LABEL - 1] + "…"
    return label


def axis_label(piece: str) -> str:
    """A piece as an axis tick label (elided when very long)."""
    return elided(token_label(piece))


def text_piece(piece: str) -> str:
    """A piece as part of running text: the word-start mark becomes a space."""
    return piece.replace(WORD_START, " ")


def join_pieces(pieces: Sequence[str], *, skip_end: bool = True) -> tuple[str, list[tuple[int, int]]]:
    """Running text of ``pieces`` and, per piece, its (start, end) character span in that text.

    The end-of-sentence piece is left out of the text (its span is empty) when ``skip_end``;
    leading spaces of the text are dropped, so a span may be shorter than its piece.
    """
    text = ""
    spans: list[tuple[int, int]] = []
    for piece in pieces:
        if skip_end and piece == END_OF_SENTENCE:
            spans.append((len(text), len(text)))
            continue
        shown = text_piece(piece)
        if not text:
            shown = shown.lstrip(" ")
        start = len(text)
        text += shown
        spans.append((start, len(text)))
    return text, spans


def quoted(piece: str) -> str:
    """A piece quoted for sentences in the interface: ‘Nov’ (plain text, not HTML)."""
    return f"\u2018{token_label(piece)}\u2019"
