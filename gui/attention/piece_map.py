"""A heatmap addressed in pieces that may draw words: the Compare tab's maps.

The Compare grid hands its maps piece-level rows and columns (a decode's tokens, its α) and links
them by piece positions: a hovered source column outlines that column in every map and tints every
output, a hovered row shows that step in the inspector. :class:`PieceMap` keeps that interface
and draws pieces or words (:meth:`PieceMap.set_word_view`, gui/attention/map_units.py): it
merges what it is given, and translates positions both ways — what it reports (``cellHovered``,
``rowClicked``, ``cellClicked``) is the first piece of the word under the pointer, and what it is
asked to outline (a piece row or column) is drawn on that piece's word.

The merge is linear, so a difference map (α_A − α_B) merges to the difference of the merged maps.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from PySide6.QtWidgets import QWidget

from engine.text import MERGE_RULE
from gui.attention.heatmap import HeatmapView
from gui.attention.map_units import MapUnits, UnitsCache


class PieceMap(HeatmapView):
    """A :class:`HeatmapView` given pieces; draws pieces or words."""

    def __init__(self, parent: QWidget | None = None, words: bool = True) -> None:
        super().__init__(parent)
        self._cache = UnitsCache()
        self.words = words
        self.source_pieces: tuple[str, ...] = ()
        self.target_pieces: tuple[str, ...] = ()
        self._pieces = np.zeros((0, 0), np.float32)  # the rows given, piece by piece
        self._finished = False
        self.units: MapUnits = self._cache.units((), (), words)

    def set_word_view(self, words: bool, draw: bool = True) -> None:
        """Draw words (True) or pieces, keeping what the map shows: its columns, its rows and their
        labels, redrawn in the new unit (``draw`` False: only the unit of the next drawing changes,
        e.g. when a new sentence's map is about to replace this one)."""
        if words == self.words:
            return
        self.words = words
        if not draw:
            return
        rows, targets, finished = self._pieces, self.target_pieces, self._finished  # reset() empties them
        self.reset(self.source_pieces)
        if targets:
            self.set_rows(rows, targets, finished)

    def reset(self, source_tokens: Sequence[str]) -> None:
        self.source_pieces, self.target_pieces = tuple(source_tokens), ()
        self._pieces = np.zeros((0, len(self.source_pieces)), np.float32)
        self.units = self._cache.units(self.source_pieces, (), self.words)
        super().reset(self.units.column_labels)

    def set_rows(self, matrix: np.ndarray, target_tokens: Sequence[str], finished: bool = False) -> None:
        rows = int(np.asarray(matrix).shape[0])
        self.target_pieces, self._pieces, self._finished = tuple(target_tokens[:rows]), np.asarray(matrix), finished
        self.units = self._cache.units(self.source_pieces, self.target_pieces, self.words)
        super().set_rows(self.units.matrix(self._pieces), self.units.row_labels(rows), finished)

    @property
    def column_count(self) -> int:
        """The map's columns: source pieces, or words."""
        return len(self.units.source.words if self.words else self.units.source.pieces)

    def coverage(self, matrix: np.ndarray) -> np.ndarray:
        """Σ_i α_ij per map column: the total attention each source piece, or word, received."""
        return self.units.columns(np.asarray(matrix)).sum(axis=0)

    # -- positions: pieces out, pieces in ---------------------------------------------------
    def _report_hover(self, row: int, column: int) -> None:
        self.cellHovered.emit(self.units.first_row_piece(row) if row >= 0 else -1,
                              self.units.first_column_piece(column) if column >= 0 else -1)

    def _report_click(self, row: int, column: int, shift: bool) -> None:
        piece_row = self.units.first_row_piece(row)
        self.rowClicked.emit(piece_row)
        self.cellClicked.emit(piece_row, self.units.first_column_piece(column), shift)

    def highlight_piece_cell(self, row: int, column: int) -> None:
        super().highlight_cell(self.units.row_of(row), self.units.column_of(column))

    def highlight_column(self, column: int) -> None:
        """Outline source piece ``column``'s column (its word's); -1 hides it."""
        super().highlight_column(self.units.column_of(column))

    def highlight_row(self, row: int) -> None:
        """Outline output piece ``row``'s row (its word's); -1 hides it."""
        super().highlight_row(self.units.row_of(row))


def word_document(heatmap: PieceMap | None, matrix: np.ndarray | None) -> dict:
    """The word view of a map for an export: ``{"words": {source, tokens, attention, rule}}`` while
    ``heatmap`` draws words, else nothing (the export's own keys hold the pieces)."""
    if heatmap is None or not heatmap.words or matrix is None or not heatmap.target_pieces:
        return {}
    units = heatmap.units
    merged = units.matrix(np.asarray(matrix)[: len(heatmap.target_pieces)])
    return {"words": {"source": list(units.source.words), "tokens": list(units.target.words),
                      "attention": np.round(merged.astype(float), 6).tolist(), "rule": MERGE_RULE}}
