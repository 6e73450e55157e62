"""What the Compare tab's step inspector shows of one panel's step: its token, probability, scores and
weights — of the head the panel's map shows, for a mechanism of several heads."""

from __future__ import annotations

from typing import TYPE_CHECKING

from gui.attention.head_rows import MEAN, head_row

if TYPE_CHECKING:
    from gui.attention.inspector import StepInspector
    from gui.compare.panel import ScorerPanel


def show_panel_step(inspector: StepInspector, panel: ScorerPanel, index: int) -> bool:
    """Show step ``index`` of ``panel`` in ``inspector``; False (nothing shown) when the panel has no such step."""
    detail = panel.step_detail(index)
    if detail is None:
        return False
    units = panel.heatmap.units if panel.heatmap is not None else None
    head = panel.head_chooser.head if panel.head_chooser is not None else MEAN
    inspector.show_step(index, detail.token, detail.step, detail.weights, panel.source_tokens,
                        panel.slot.row, panel.uses_attention, probability=detail.probability,
                        scores=detail.scores, heading=panel.slot.label,
                        source_split=units.source if units is not None else None,
                        words=units is not None and units.words,
                        head=head, head_weights=head_row(panel.rows.head_attention, head, index))
    return True
