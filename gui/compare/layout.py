"""Where each panel of the Compare grid goes, sized by the number of mechanisms (pure Python).

The cells, in order: one per mechanism of the registry, in its order, the fixed context's shared
with the step inspector (it has no map; the inspector fills the rest of its cell) — or, with no
fixed-context slot, the inspector in a cell of its own after them — and last the difference map,
in a cell of its own, so a new mechanism never lands on it; it spans what is left of the last row.
The grid has about three columns for every two rows (6 cells: 2×3, 7 or 8: 2×4, 9: 2×5, 12: 3×4).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from engine.networks.scorer_table import attends  # torch-free

INSPECTOR = "inspector"  # the step inspector's cell (shared with the fixed-context panel when there is one)
DIFFERENCE = "difference"  # the difference map's cell
COLUMNS_PER_ROW = 1.5  # the grid's aim: three columns for every two rows


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
    """(rows, columns) for ``count`` cells: about COLUMNS_PER_ROW columns per row, every cell placed."""
    rows = max(1, round(math.sqrt(count / COLUMNS_PER_ROW)))
    return rows, max(1, math.ceil(count / rows))


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
