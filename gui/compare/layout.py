"""Where each panel of the Compare grid goes, sized by the number of mechanisms (pure Python).

The cells, in order: one per mechanism of the registry, in its order, the fixed context's shared
with the step inspector (it has no map; the inspector fills the rest of its cell) — or, with no
fixed-context slot, the inspector in a cell of its own after them — and last the difference map,
in a cell of its own, so a new mechanism never lands on it; it spans what is left of the last row.
The grid has about three columns for every two rows, and at most three columns, so that every map is at
least 300 px wide on a 1280-px screen (6 cells: 2×3, 7 to 9: 3×3, 12: 4×3); a grid taller than the
window scrolls (gui/common/fit_scroll.py) rather than squeeze its maps.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from engine.settings import attends  # torch-free

INSPECTOR = "inspector"  # the step inspector's cell (shared with the fixed-context panel when there is one)
DIFFERENCE = "difference"  # the difference map's cell
COLUMNS_PER_ROW = 1.5  # the grid's aim: three columns for every two rows
MAX_COLUMNS = 3  # beyond it, maps narrower than 300 px at 1280 px (four columns gave 181 × 44 px maps)


@dataclass(frozen=True)
class GridPlan:
    """The grid's size and the cell of every panel: (row, column) by scorer name, ``INSPECTOR``
    and ``DIFFERENCE``; the difference map spans ``difference_span`` columns."""

    rows: int
    columns: int
    cells: dict[str, tuple[int, int]]
    difference_span: int = 1

    @property
    def shared(self) -> str | None:
        """The scorer whose panel shares its cell with the step inspector (the fixed context), if any."""
        return next((name for name, cell in self.cells.items()
                     if name not in (INSPECTOR, DIFFERENCE) and cell == self.cells[INSPECTOR]), None)


def grid_shape(count: int) -> tuple[int, int]:
    """(rows, columns) for ``count`` cells: about COLUMNS_PER_ROW columns per row, at most MAX_COLUMNS, every
    cell placed."""
    rows = max(1, round(math.sqrt(count / COLUMNS_PER_ROW)))
    columns = min(MAX_COLUMNS, max(1, math.ceil(count / rows)))
    return max(rows, math.ceil(count / columns)), columns


def plan_grid(scorers: Sequence[str]) -> GridPlan:
    """The cells of the panels of ``scorers`` (registry names, in grid order), the inspector and
    the difference map."""
    shared = next((name for name in scorers if not attends(name)), None)
    order = [*scorers, *([INSPECTOR] if shared is None else []), DIFFERENCE]
    rows, columns = grid_shape(len(order))
    cells = {name: divmod(index, columns) for index, name in enumerate(order)}
    if shared is not None:
        cells[INSPECTOR] = cells[shared]
    return GridPlan(rows, columns, cells, columns - cells[DIFFERENCE][1])
