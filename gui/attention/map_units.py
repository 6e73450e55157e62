"""What a map's rows and columns are: the model's pieces, or words (the word view).

:class:`MapUnits` turns a piece-level attention matrix into what the map draws (words: α summed
over a source word's pieces and averaged over an output word's pieces, engine/text/words.py), gives
the axis labels (pieces marked ``##`` where they continue a word; words as text), and maps indices
both ways — the map reports the cell under the pointer in its own units, while runs, steps and
the panel's public accessors stay in pieces. :class:`UnitsCache` keeps the source's split for a
run and recomputes the output's only when its pieces change (once per decoding step).

Pure Python and numpy: no Qt.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from PySide6.QtCore import QCoreApplication

from engine.text import WordSplit, merge_columns, merge_rows, split_words
from gui.attention.labels import SPACE_MARK, WORD_START, piece_label


def word_label(word: str) -> str:
    """A word as a label: the word-start mark of a word made only of it shows as ``␣``."""
    return SPACE_MARK if word == WORD_START else word


@dataclass(frozen=True)
class MapUnits:
    """The rows and columns of one map in one view (``words`` True: words, else pieces)."""

    words: bool
    source: WordSplit
    target: WordSplit

    @property
    def column_labels(self) -> list[str]:
        if self.words:
            return [word_label(w) for w in self.source.words]
        return [piece_label(p, self.source.continues(k)) for k, p in enumerate(self.source.pieces)]

    def row_labels(self, rows: int | None = None) -> list[str]:
        """Labels of the map's rows; ``rows`` piece rows shown so far (all by default)."""
        split = self.target
        rows = len(split.pieces) if rows is None else rows
        if self.words:
            return [word_label(split.words[w]) for w, start in enumerate(split.starts) if start < rows]
        return [piece_label(p, split.continues(k)) for k, p in enumerate(split.pieces[:rows])]

    def matrix(self, pieces: np.ndarray) -> np.ndarray:
        """The map's matrix for a piece-level one (output pieces so far × source pieces)."""
        if not self.words:
            return np.asarray(pieces, dtype=np.float32)
        return merge_rows(merge_columns(pieces, self.source), self.target)

    def columns(self, pieces: np.ndarray) -> np.ndarray:
        """Source columns only in the map's units (α summed over words in the word view); rows kept."""
        return merge_columns(pieces, self.source) if self.words else np.asarray(pieces, dtype=np.float32)

    # -- index maps: the map's units ↔ pieces ------------------------------------------------
    def row_of(self, piece: int) -> int:
        """The map row that output piece ``piece`` is drawn in (-1 for none)."""
        if piece < 0:
            return -1
        return self.target.word_of(piece) if self.words else (piece if piece < len(self.target.pieces) else -1)

    def column_of(self, piece: int) -> int:
        """The map column of source piece ``piece`` (-1 for none)."""
        if piece < 0:
            return -1
        return self.source.word_of(piece) if self.words else (piece if piece < len(self.source.pieces) else -1)

    def row_pieces(self, row: int) -> range:
        """The output pieces of map row ``row`` (empty outside)."""
        if not self.words:
            return range(row, row + 1) if 0 <= row < len(self.target.pieces) else range(0)
        return self.target.pieces_of(row)

    def column_pieces(self, column: int) -> range:
        """The source pieces of map column ``column`` (empty outside)."""
        if not self.words:
            return range(column, column + 1) if 0 <= column < len(self.source.pieces) else range(0)
        return self.source.pieces_of(column)

    def first_row_piece(self, row: int) -> int:
        pieces = self.row_pieces(row)
        return pieces.start if pieces else -1

    def first_column_piece(self, column: int) -> int:
        pieces = self.column_pieces(column)
        return pieces.start if pieces else -1


class UnitsCache:
    """The splits of the run on screen: the source's once per run, the output's once per change."""

    def __init__(self) -> None:
        self._source: WordSplit = split_words(())
        self._target: WordSplit = self._source

    def units(self, source_tokens: Sequence[str], target_tokens: Sequence[str], words: bool) -> MapUnits:
        source_tokens, target_tokens = tuple(source_tokens), tuple(target_tokens)
        if self._source.pieces != source_tokens:
            self._source = split_words(source_tokens)
        if self._target.pieces != target_tokens:
            self._target = split_words(target_tokens)
        return MapUnits(words, self._source, self._target)


def steering_mark(steps: list) -> str:
    """A map row's mark for its steps (``DecodeStep``s, None where missing): ✎ when what-if decoding
    gave any of them (a forced token), ◉ when it set any one's attention by hand, else ""."""
    present = [step for step in steps if step is not None]
    if any(step.forced for step in present):
        return "✎"
    return "◉" if any(step.overridden for step in present) else ""


def cell_text(units: MapUnits, row: int, column: int, weight: float, target: str) -> str:
    """What the hover line says of map cell (``row``, ``column``) in ``units`` (``target``: the row's
    label): its weight, and in the word view the pieces it averages or sums."""
    text = f"α(‘{target}’ ← ‘{units.column_labels[column]}’) = {weight:.4f}"
    if not units.words:
        return text + "   " + QCoreApplication.translate("MapUnits", "(output step %1, source position %2)").replace(
            "%1", str(row)).replace("%2", str(column))
    rows, columns = units.row_pieces(row), units.column_pieces(column)
    steps = (QCoreApplication.translate("MapUnits", "step %1") if len(rows) == 1
             else QCoreApplication.translate("MapUnits", "steps %1–%2, averaged"))
    positions = (QCoreApplication.translate("MapUnits", "position %1") if len(columns) == 1
                 else QCoreApplication.translate("MapUnits", "positions %1–%2, summed"))
    return text + "   " + QCoreApplication.translate("MapUnits", "(output word %1: %2; source word %3: %4)").replace("%1", str(row)).replace(
        "%2", _span(steps, rows)).replace("%3", str(column)).replace("%4", _span(positions, columns))


def _span(text: str, pieces: range) -> str:
    """``text`` ('steps %1–%2') with the first and last of ``pieces``."""
    return text.replace("%1", str(pieces.start)).replace("%2", str(pieces.stop - 1))


def warm_up_segmenter() -> None:
    """Load the Chinese segmenter (engine/text/segment.py) on a helper thread, once: loaded at the first
    Chinese map instead, its dictionary would stall the window for a fraction of a second."""
    global _segmenter_warming
    if _segmenter_warming:
        return
    _segmenter_warming = True
    from engine.text import segment

    threading.Thread(target=segment.warm_up, name="segmenter-warm-up", daemon=True).start()


_segmenter_warming = False
