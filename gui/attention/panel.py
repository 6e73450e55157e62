"""The attention panel (objectName ``attentionPanel``): heatmap, hover read-out, step inspector.

Public contract (tests outside the project rely on it): :meth:`attention` (rows = output tokens
shown so far, columns = source tokens), :meth:`source_tokens`, :meth:`target_tokens`, and the
signal ``stepShown(int)``, emitted once per row, in order, as it appears. The data behind these
is updated on every step; only the drawing is coalesced to ~30 frames a second when steps arrive
faster than that.

A model without attention (the ``none`` scorer) has no weights: instead of a heatmap the panel
explains that every step reads the same fixed context C, and :meth:`attention` has no rows.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import QLabel, QSplitter, QStackedWidget, QVBoxLayout, QWidget

from gui.attention.heatmap import HeatmapView
from gui.attention.inspector import StepInspector
from gui.attention.labels import quoted
from gui.attention.record import RunRecord
from gui.attention.throttle import FrameThrottle

if TYPE_CHECKING:
    from engine.search import DecodeStep
    from engine.translator import Translation

NO_ATTENTION_NOTE = (
    "<h3>No attention: every step sees the same C</h3>"
    "<p>This model is the plain encoder–decoder of Sutskever et al. and Cho et al. (2014): the encoder "
    "squeezes the whole sentence into one fixed vector C, and every decoding step reads that same C. "
    "There are no weights α<sub>ij</sub>, so there is no heatmap to draw.</p>"
    "<p>Switch the scorer to Additive, Bilinear or Dot product to watch each output token look back at "
    "the source tokens it needs, and compare the translations of long sentences.</p>"
)
INSPECTOR_INTERVAL_MS = 150  # the step inspector's redraws while a run streams (see AttentionPanel)
HOVER_HINT = "Hover a cell for its exact weight; wheel to zoom, drag to pan; click a row to inspect that step."


class AttentionPanel(QWidget):
    """Live view of one decoding run's attention."""

    stepShown = Signal(int)  # output position i, once per row as it appears
    cellHovered = Signal(int, int)  # (row, column) under the pointer; (-1, -1) when none
    stepSelected = Signal(int)  # a heatmap row was clicked
    alternativeChosen = Signal(int, int)  # what-if: step i, token id picked in the inspector
    cellClicked = Signal(int, int, bool)  # what-if: row, column, shift (set attention by hand)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("attentionPanel")
        self.record = RunRecord()
        self.heatmap = HeatmapView(self)
        self.heatmap.setObjectName("attentionHeatmap")
        self.hover_label = QLabel(HOVER_HINT)
        self.hover_label.setObjectName("attentionHoverLabel")
        self.hover_label.setWordWrap(True)
        self.note = QLabel(NO_ATTENTION_NOTE)
        self.note.setObjectName("noAttentionNote")
        self.note.setWordWrap(True)
        self.note.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.note.setMargin(24)
        self.stack = QStackedWidget()
        heat_page = QWidget()
        heat_layout = QVBoxLayout(heat_page)
        heat_layout.setContentsMargins(0, 0, 0, 0)
        heat_layout.addWidget(self.heatmap, 1)
        heat_layout.addWidget(self.hover_label)
        self.stack.addWidget(heat_page)
        self.stack.addWidget(self.note)
        self.inspector = StepInspector()
        splitter = QSplitter(Qt.Orientation.Horizontal)
        splitter.addWidget(self.stack)
        splitter.addWidget(self.inspector)
        splitter.setStretchFactor(0, 3)
        splitter.setStretchFactor(1, 2)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(splitter)
        self._throttle = FrameThrottle(self._render, self)
        # While a run streams, the heatmap redraws ~30 times a second but the inspector (rich text:
        # a relayout of several labels, 20-50 ms on two cores) at most every INSPECTOR_INTERVAL_MS;
        # the last step is always shown (a trailing update), and at once when the run ends.
        self._inspector_timer = QTimer(self)
        self._inspector_timer.setSingleShot(True)
        self._inspector_timer.timeout.connect(self._show_inspected)
        self._inspector_shown_at = 0.0
        self._pinned = -1  # step chosen by a click; -1 follows the newest step
        self._preview = -1  # step under the pointer in the output text
        self._emitted = 0  # rows announced by stepShown in this run
        self.heatmap.cellHovered.connect(self._on_cell_hovered)
        self.heatmap.rowClicked.connect(self.select_step)
        self.heatmap.cellClicked.connect(self.cellClicked)
        self.inspector.alternativeChosen.connect(self.alternativeChosen)

    # -- contract ---------------------------------------------------------------------------
    def attention(self) -> np.ndarray:
        """Rows = output tokens shown so far, columns = source tokens (a copy)."""
        return self.record.attention()

    def source_tokens(self) -> list[str]:
        return list(self.record.source_tokens)

    def target_tokens(self) -> list[str]:
        return list(self.record.target_tokens)

    def has_attention(self) -> bool:
        """False for a model with a fixed context (no weights, no heatmap)."""
        return self.record.uses_attention

    # -- a run ------------------------------------------------------------------------------
    def begin(self, source_tokens: Sequence[str], uses_attention: bool, formula: str, scorer_label: str = "") -> None:
        """Start showing a new run: an empty grid over ``source_tokens``."""
        self._throttle.cancel()
        self._inspector_timer.stop()
        self.record = RunRecord(tuple(source_tokens), uses_attention, formula, scorer_label)
        self._pinned = self._preview = -1
        self._emitted = 0
        self.stack.setCurrentIndex(0 if uses_attention else 1)
        self.heatmap.reset(source_tokens)
        self.hover_label.setText(HOVER_HINT)
        self.inspector.clear(formula)

    def clear(self) -> None:
        self.begin((), True, "")

    def show_step(self, step: DecodeStep) -> None:
        """Take in one step: data now, ``stepShown`` for each new row, drawing soon."""
        self.record.add(step)
        self._announce()
        self._throttle.request()

    def finish(self, translation: Translation) -> None:
        """The run ended with the search's final choice."""
        self.record.finish(translation)
        self._announce()
        self._throttle.cancel()
        self._render()

    def show_hypothesis(self, step: DecodeStep) -> None:
        """Show one hypothesis of the search (its tokens and attention rows), e.g. a beam-tree node."""
        self.record.add(step)
        self.render_now()
        self.select_step(step.index)

    def end(self) -> None:
        """The run stopped early: draw what it produced."""
        self._throttle.flush()

    def _announce(self) -> None:
        while self._emitted < self.record.row_count:
            self._emitted += 1
            self.stepShown.emit(self._emitted - 1)

    # -- drawing ----------------------------------------------------------------------------
    def render_now(self) -> None:
        """Draw pending changes at once (export and tests call this)."""
        self._throttle.cancel()
        self._render(inspector_now=True)

    def _render(self, inspector_now: bool = False) -> None:
        record = self.record
        if record.uses_attention:
            self.heatmap.set_rows(record.matrix, self._row_labels(), record.finished)
        if inspector_now or record.finished or self._pinned >= 0 or self._preview >= 0:
            self._show_inspected()
        else:
            self._show_inspected_soon()

    def _show_inspected_soon(self) -> None:
        """The newest step in the inspector, at most every INSPECTOR_INTERVAL_MS."""
        wait_ms = INSPECTOR_INTERVAL_MS - (time.monotonic() - self._inspector_shown_at) * 1000
        if wait_ms <= 0:
            self._show_inspected()
        elif not self._inspector_timer.isActive():
            self._inspector_timer.start(int(wait_ms) + 1)

    def _row_labels(self) -> list[str]:
        """The output tokens, marked where what-if decoding steered them: ✎ a given (forced) token,
        ◉ a step whose attention was set by hand."""
        labels = []
        for index, token in enumerate(self.record.target_tokens):
            step = self.record.step(index)
            mark = "✎" if step is not None and step.forced else "◉" if step is not None and step.overridden else ""
            labels.append(mark + token)
        return labels

    def _inspected_index(self) -> int:
        for index in (self._preview, self._pinned):
            if 0 <= index < self.record.row_count:
                return index
        return self.record.row_count - 1

    def _show_inspected(self) -> None:
        self._inspector_timer.stop()
        self._inspector_shown_at = time.monotonic()
        index = self._inspected_index()
        if index < 0:
            return
        record = self.record
        self.inspector.show_step(index, record.target_tokens[index], record.step(index), record.row(index),
                                 record.source_tokens, record.formula, record.uses_attention)

    # -- interaction ------------------------------------------------------------------------
    def select_step(self, index: int) -> None:
        """Pin the inspector to step ``index`` (-1 follows the newest step)."""
        self._pinned = index
        self.heatmap.highlight_row(index)
        self._show_inspected()
        if index >= 0:
            self.stepSelected.emit(index)

    def preview_step(self, index: int) -> None:
        """Show step ``index`` while the pointer is on its output token (-1 ends the preview)."""
        self._preview = index
        self.heatmap.highlight_row(index if index >= 0 else self._pinned)
        self._show_inspected()

    def highlight_column(self, column: int) -> None:
        """Outline the cell of the inspected row under source token ``column`` (-1 clears)."""
        self.heatmap.highlight_cell(self._inspected_index() if column >= 0 else -1, column)

    def _on_cell_hovered(self, row: int, column: int) -> None:
        record = self.record
        if row >= 0:
            weight = float(record.matrix[row, column])
            self.hover_label.setText(
                f"α({quoted(record.target_tokens[row])} ← {quoted(record.source_tokens[column])}) = {weight:.4f}"
                f"   (output step {row}, source position {column})"
            )
        else:
            self.hover_label.setText(HOVER_HINT)
        self.cellHovered.emit(row, column)
