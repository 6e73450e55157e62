"""What the attention panel (gui/attention/panel.py) decides, as functions of plain values: which step the
step inspector shows and when, which map row and cell are outlined, what the hover line says of a cell and
which pieces it stands for, the rows' labels and steering marks, which rows ``stepShown`` still owes, and
what an earlier layer's view of a step is. The panel asks, then applies the answer to its widgets.

No widgets: tests/gui/attention/test_panel_state.py calls every function on plain values. Indices are the
model's pieces unless named map rows/columns (words in the word view: gui/attention/map_units.py).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

import numpy as np

from gui.attention.map_units import MapUnits, cell_text, steering_mark

if TYPE_CHECKING:
    from engine.decoding import DecodeStep

HEATMAP_PAGE, NOTE_PAGE = 0, 1  # the panel's stack: the map, or the fixed context's note (no attention)


def page_of(uses_attention: bool) -> int:
    """The page the panel shows for a run: the heatmap, or the note of a model without attention."""
    return HEATMAP_PAGE if uses_attention else NOTE_PAGE


def draws_map(uses_attention: bool, attribution_active: bool) -> bool:
    """Whether the map is drawn: a model with attention, or an attribution shown in its place."""
    return uses_attention or attribution_active


def map_piece_rows(uses_attention: bool, matrix_rows: int, row_count: int) -> int:
    """The output pieces the map draws: the attention matrix's rows, else (an attribution of a model
    without attention) every output token."""
    return matrix_rows if uses_attention else row_count


def inspected_index(preview: int, pinned: int, row_count: int) -> int:
    """The step the inspector shows: the one under the pointer in the output text, else the one pinned by a
    click, else the newest (-1: no step yet). A step outside the rows shown is passed over."""
    for index in (preview, pinned):
        if 0 <= index < row_count:
            return index
    return row_count - 1


def inspector_at_once(asked: bool, finished: bool, pinned: int, preview: int) -> bool:
    """Whether a redraw shows the inspector's step at once (asked, the run over, or a step chosen by the
    user) rather than at most every INSPECTOR_INTERVAL_MS while a run streams."""
    return asked or finished or pinned >= 0 or preview >= 0


def inspector_wait_ms(elapsed_ms: float, interval_ms: int) -> int:
    """How long the streaming inspector waits before its next redraw, ``elapsed_ms`` after its last one
    (0: now)."""
    wait = interval_ms - elapsed_ms
    return 0 if wait <= 0 else int(wait) + 1


def highlighted_row(units: MapUnits, preview: int, pinned: int) -> int:
    """The map row outlined: the step previewed from the output text, else the one pinned (-1: none)."""
    return units.row_of(preview if preview >= 0 else pinned)


def outlined_cell(units: MapUnits, inspected: int, column: int) -> tuple[int, int]:
    """The map cell outlined for source piece ``column`` hovered elsewhere (row of the inspected step;
    -1 clears both)."""
    return (units.row_of(inspected) if column >= 0 else -1), units.column_of(column)


def rows_to_announce(emitted: int, row_count: int) -> range:
    """The output positions ``stepShown`` still has to announce, in order."""
    return range(emitted, max(emitted, row_count))


def head_counts(step: DecodeStep) -> tuple[int, int]:
    """(heads, layers) the head chooser offers for ``step``'s mechanism: 0 heads for one head; 1 layer
    unless the step has every layer's heads (L × H × S)."""
    heads, layers = step.head_attention, step.layer_attention
    return (0 if heads is None else int(heads.shape[0])), (1 if layers is None else len(layers))


def marked_row_labels(units: MapUnits, rows: int, step_of: Callable[[int], DecodeStep | None]) -> list[str]:
    """The map's row labels (of ``units``' first ``rows`` output pieces), marked where what-if decoding
    steered them: ✎ a given (forced) token, ◉ a step whose attention was set by hand (in the word view: any
    of its pieces). ``step_of(k)`` is piece ``k``'s step (None when not of the shown hypothesis)."""
    return [steering_mark([step_of(k) for k in units.row_pieces(row) if k < rows]) + label
            for row, label in enumerate(units.row_labels(rows))]


@dataclass(frozen=True)
class WordPiece:
    """Step ``index`` is piece ``number`` (from 1) of output word ``word``, made of steps ``first``–``last``."""

    number: int
    word: str
    first: int
    last: int


def word_piece(units: MapUnits, index: int) -> WordPiece | None:
    """In the word view, which output word step ``index`` belongs to when that word has several pieces
    (None in the piece view, or for a word of one piece)."""
    if not units.words:
        return None
    row = units.row_of(index)
    pieces = units.row_pieces(row)
    if len(pieces) < 2:
        return None
    return WordPiece(index - pieces.start + 1, units.target.words[row], pieces.start, pieces.stop - 1)


@dataclass(frozen=True)
class HoverLine:
    """What the hover line says (``text``; None: the hint) and the first pieces of the hovered cell that
    ``cellHovered`` carries ((-1, -1) when none)."""

    text: str | None
    pieces: tuple[int, int]


def hover_line(units: MapUnits, row: int, column: int, weight: float, row_label: str) -> HoverLine:
    """The hover line for map cell (``row``, ``column``) of weight ``weight`` (row < 0: no cell)."""
    if row < 0:
        return HoverLine(None, (-1, -1))
    return HoverLine(cell_text(units, row, column, weight, row_label),
                     (units.row_pieces(row).start, units.column_pieces(column).start))


def layer_view(step: DecodeStep | None, row: np.ndarray | None, heads: np.ndarray | None,
               layer: int | None) -> tuple[DecodeStep | None, np.ndarray | None, np.ndarray | None]:
    """What the inspector shows of ``step`` (its α row and heads: ``row``, ``heads`` of H × S) when the head
    chooser shows ``layer``: an earlier layer's heads' mean as the row, its heads, and its log ᾱ as the
    step's scores, as the last layer's are shown; unchanged for the last layer (None) or a step without
    every layer."""
    if layer is None or step is None or step.layer_attention is None:
        return step, row, heads
    heads = step.layer_attention[layer]
    row = heads.mean(axis=0)
    return replace(step, scores=np.log(np.maximum(row, np.finfo(np.float32).tiny))), row, heads
