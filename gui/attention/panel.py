"""The attention panel (objectName ``attentionPanel``): heatmap, view choices, hover read-out,
step inspector.

Public contract (tests outside the project rely on it): :meth:`attention` (rows = output tokens
shown so far, columns = source tokens), :meth:`source_tokens`, :meth:`target_tokens`, and the
signal ``stepShown(int)``, emitted once per row, in order, as it appears. The data behind these
is updated on every step; only the drawing is coalesced to ~30 frames a second when steps arrive
faster than that.

**Pieces or words.** The contract speaks of the model's tokens — SentencePiece pieces — whatever
the map shows: ``attention()``, ``source_tokens()``, ``target_tokens()`` and ``stepShown`` keep
their meaning when the word view (on by default, ``attentionWordView``) draws words. What the map
shows has its own accessors: :meth:`word_view`, :meth:`source_words`, :meth:`target_words`,
:meth:`word_attention` (α summed over a source word's pieces, averaged over an output word's,
engine/text/words.py) and :meth:`shown_attention` (whichever the map draws). The signals that carry
a position (``cellHovered``, ``stepSelected``, ``cellClicked``) and the methods that take one
(:meth:`select_step`, :meth:`preview_step`, :meth:`highlight_column`) speak of pieces too; a
word's row or column stands for its first piece. The colour scale (``attentionColorScale``: 0–1,
per row, automatic) changes the colours only.

A multi-head mechanism's map can show one head instead of the heads' mean (:attr:`head_chooser`,
shown only for it); :meth:`attention` stays the mean and :meth:`head_attention` has every head.

A model without attention (the ``none`` scorer) has no weights: instead of a heatmap the panel
explains that every step reads the same fixed context C, and :meth:`attention` has no rows.

The map can show an attribution instead of α (:attr:`attribution`, gui/attention/attribution_view.py):
the accessors above stay α's; for ``none`` the attribution is the only map there is.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
from PySide6.QtCore import QT_TRANSLATE_NOOP, Qt, QTimer, Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QSizePolicy, QSplitter, QStackedWidget, QVBoxLayout, QWidget

from gui.attention.attribution_view import AttributionView
from gui.attention.head_rows import MEAN, head_row, layer_rows, shown_rows, stacked_heads
from gui.attention.heads import HeadChooser
from gui.attention.heatmap import HeatmapView
from gui.attention.hover_place import HoverLinePlacement
from gui.attention.inspector import StepInspector
from gui.attention.map_units import MapUnits, UnitsCache, warm_up_segmenter
from gui.attention.no_attention import no_attention_note
from gui.attention.panel_state import (
    draws_map,
    head_counts,
    highlighted_row,
    hover_line,
    inspected_index,
    inspector_at_once,
    inspector_wait_ms,
    layer_view,
    map_piece_rows,
    marked_row_labels,
    outlined_cell,
    page_of,
    rows_to_announce,
    word_piece,
)
from gui.attention.record import DecodeRecord
from gui.attention.row_scroll import with_row_scroll_bar
from gui.attention.throttle import FrameThrottle
from gui.attention.view_bar import MapViewBar

if TYPE_CHECKING:
    from engine.decoding import DecodeStep, Translation
    from engine.settings import ScorerInfo


SEGMENTER_WARM_UP_MS = 2000  # after start-up, the word view's Chinese segmenter loads on a helper thread
INSPECTOR_INTERVAL_MS = 150  # the step inspector's redraws while a run streams (see AttentionPanel)
HOVER_HINT = QT_TRANSLATE_NOOP("AttentionPanel", "Hover a cell for its weight · wheel: zoom · drag: pan · double-click: reset · click a row: its step")


class AttentionPanel(QWidget):
    """Live view of one decoding run's attention (its decisions: gui/attention/panel_state.py)."""

    stepShown = Signal(int)  # output position i, once per row as it appears
    cellHovered = Signal(int, int)  # (row, column) under the pointer; (-1, -1) when none
    stepSelected = Signal(int)  # a heatmap row was clicked
    alternativeChosen = Signal(int, int)  # what-if: step i, token id picked in the inspector
    cellClicked = Signal(int, int, bool)  # what-if: row, column, shift (set attention by hand)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("attentionPanel")
        self.record = DecodeRecord()
        self.heatmap = HeatmapView(self)
        self.heatmap.setObjectName("attentionHeatmap")
        self.hover_hint = HOVER_HINT  # the hint while no cell is hovered (set-attention mode has its own)
        self.hover_label = QLabel(self.tr(self.hover_hint))
        self.hover_label.setObjectName("attentionHoverLabel")
        self.hover_label.setTextFormat(Qt.TextFormat.PlainText)  # tokens (a session file's too) are never markup
        # One line, cut at the side when narrow (its tooltip holds it whole); its length never widens the map's side.
        self.hover_label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.view_bar = MapViewBar("attention")
        self.units_cache = UnitsCache()
        self._units = self.units_cache.units((), (), True)
        self._laid_out: tuple[tuple[str, ...], bool] | None = None  # (source, words) the columns show
        self.note = QLabel(no_attention_note())
        self.note.setObjectName("noAttentionNote")
        self.note.setWordWrap(True)
        self.note.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.note.setMargin(24)
        self.stack = QStackedWidget()
        heat_page = QWidget()
        heat_layout = QVBoxLayout(heat_page)
        heat_layout.setContentsMargins(0, 0, 0, 0)
        heat_box, self.row_scroll = with_row_scroll_bar(self.heatmap)  # rows out of view: a scroll bar
        heat_layout.addWidget(heat_box, 1)
        self.head_chooser = HeadChooser()
        self.head_chooser.setObjectName("attentionHeadCombo")
        below = QHBoxLayout()
        below.addWidget(self.view_bar)
        below.addSpacing(8)
        below.addWidget(self.hover_label, 1)
        below.addWidget(self.head_chooser)
        self._map_tools = below  # a tab's own tools for this map go after the head chooser (add_map_tool)
        hover_row = QHBoxLayout()  # the hover line's own row, while the bar has no room for it
        heat_layout.addLayout(hover_row)
        heat_layout.addLayout(below)
        self._hover_place = HoverLinePlacement(heat_page, below, hover_row, self.hover_label, below.indexOf(self.hover_label))
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
        self.heatmap.rowClicked.connect(lambda row: self.select_step(self._units.first_row_piece(row)))
        self.heatmap.cellClicked.connect(self._on_cell_clicked)
        self.inspector.alternativeChosen.connect(self.alternativeChosen)
        self.view_bar.wordViewChanged.connect(self.set_word_view)
        self.view_bar.colorScaleChanged.connect(self.set_color_scale)
        self.view_bar.resetZoomRequested.connect(self.heatmap.reset_zoom)
        QTimer.singleShot(SEGMENTER_WARM_UP_MS, warm_up_segmenter)
        self.head_chooser.headChanged.connect(lambda _head: self.render_now())
        self.attribution = AttributionView(self)  # what the map shows: α or an attribution (attribution_view.py)

    # -- contract ---------------------------------------------------------------------------
    def attention(self) -> np.ndarray:
        """Rows = output tokens shown so far, columns = source tokens (a copy)."""
        return self.record.attention()

    def source_tokens(self) -> list[str]:
        return list(self.record.source_tokens)

    def target_tokens(self) -> list[str]:
        return list(self.record.target_tokens)

    def head_attention(self) -> np.ndarray | None:
        """Rows × heads × source tokens: each head's α, for a mechanism of several heads; else None."""
        if not self.record.uses_attention or len(self.record.steps) != self.record.matrix.shape[0]:
            return None
        return stacked_heads([step.head_attention for step in self.record.steps])

    def shown_matrix(self) -> np.ndarray:
        """What the map draws: :meth:`attention`'s rows, or the chosen head's (of the chosen layer)."""
        head, layer = self.head_chooser.head, self.head_chooser.layer
        rows = layer_rows([step.layer_attention for step in self.record.steps], layer, head)
        if rows is not None and rows.shape[0] == self.record.matrix.shape[0]:
            return rows
        return self.record.matrix if head == MEAN else shown_rows(self.record.matrix, self.head_attention(), head)

    def has_attention(self) -> bool:
        """False for a model with a fixed context (no weights, no heatmap)."""
        return self.record.uses_attention

    # -- what the map shows -----------------------------------------------------------------
    def add_map_tool(self, widget: QWidget) -> None:
        """Put ``widget`` (e.g. the Translate tab's Layers button) in the bar under the map, at its end."""
        self._map_tools.addWidget(widget)
        self._hover_place.watch(widget)

    def word_view(self) -> bool:
        """True when the map shows words (pieces merged), False for the model's pieces."""
        return self.view_bar.word_view()

    def set_word_view(self, words: bool) -> None:
        """Show words (True) or the model's pieces; the contract's accessors do not change."""
        if self.view_bar.word_view() != words:
            self.view_bar.set_word_view(words)  # comes back here through wordViewChanged
            return
        self.render_now()

    def color_scale(self) -> str:
        """The colour scale's name: unit (0–1), row (per row) or auto (the map's largest α)."""
        return self.view_bar.scale_name()

    def set_color_scale(self, name: str) -> None:
        """Colour the map by the scale called ``name`` (unit, row, auto); the colour bar says which."""
        if self.view_bar.scale_name() != name:
            self.view_bar.set_scale(name)  # comes back here through colorScaleChanged
            return
        self.heatmap.set_color_scale(name)

    def units(self) -> MapUnits:
        """The map's rows and columns (pieces or words) for the run shown."""
        return self.units_cache.units(self.record.source_tokens, self.record.target_tokens, self.word_view())

    def source_words(self) -> list[str]:
        """The source as words (engine/text/words.py), whichever view the map shows."""
        return list(self.units_cache.units(self.record.source_tokens, (), True).source.words)

    def target_words(self) -> list[str]:
        """The output so far as words, whichever view the map shows."""
        return list(self.units_cache.units(self.record.source_tokens, self.record.target_tokens, True).target.words)

    def word_attention(self) -> np.ndarray:
        """Rows = output words, columns = source words: α summed over a source word's pieces and
        averaged over an output word's pieces (every row still sums to 1)."""
        units = self.units_cache.units(self.record.source_tokens, self.record.target_tokens, True)
        return units.matrix(self.record.attention())

    def shown_attention(self) -> np.ndarray:
        """What the map draws: rows and columns in the map's units (words or pieces), the weights of
        :meth:`shown_matrix` (the heads' mean or the chosen head)."""
        return self.units().matrix(self.shown_matrix())

    # -- a run ------------------------------------------------------------------------------
    def begin(self, source_tokens: Sequence[str], uses_attention: bool = True, scorer: ScorerInfo | None = None) -> None:
        """Start showing a new run: an empty grid over ``source_tokens``; ``scorer`` is the mechanism's registry
        row (engine.settings.scorer_row), whose formulas the step inspector shows (None: none)."""
        self._throttle.cancel()
        self._inspector_timer.stop()
        self.record = DecodeRecord(tuple(source_tokens), uses_attention, scorer)
        self._pinned = self._preview = -1
        self._emitted = 0
        self.stack.setCurrentIndex(page_of(uses_attention))
        self._lay_out_columns()
        self.hover_label.setText(self.tr(self.hover_hint))
        self.inspector.clear(scorer)
        self.attribution.begin(len(self.record.source_tokens))

    def clear(self) -> None:
        self.begin(())

    def show_step(self, step: DecodeStep) -> None:
        """Take in one step: data now, ``stepShown`` for each new row, drawing soon."""
        self.record.add(step)
        self.head_chooser.set_head_count(*head_counts(step))  # offered for a mechanism of several heads
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
        self.head_chooser.set_head_count(*head_counts(step))
        self.render_now()
        self.select_step(step.index)

    def end(self) -> None:
        """The run stopped early: draw what it produced."""
        self._throttle.flush()

    def request_redraw(self) -> None:
        """Draw soon, throttled (an attribution came in)."""
        self._throttle.request()

    def _announce(self) -> None:
        for index in rows_to_announce(self._emitted, self.record.row_count):
            self._emitted = index + 1
            self.stepShown.emit(index)

    # -- drawing ----------------------------------------------------------------------------
    def render_now(self) -> None:
        """Draw pending changes at once (export and tests call this)."""
        self._throttle.cancel()
        self._render(inspector_now=True)

    def _render(self, inspector_now: bool = False) -> None:
        record = self.record
        if draws_map(record.uses_attention, self.attribution.active):
            self._lay_out_columns()
            units, shown = self._units, self.attribution
            rows = map_piece_rows(record.uses_attention, int(record.matrix.shape[0]), record.row_count)
            matrix = shown.drawn(units, rows) if shown.active else units.matrix(self.shown_matrix())
            self.heatmap.set_rows(matrix, self._row_labels(units, rows), record.finished)
            self.heatmap.highlight_row(highlighted_row(units, self._preview, self._pinned))
        if inspector_at_once(inspector_now, record.finished, self._pinned, self._preview):
            self._show_inspected()
        else:
            self._show_inspected_soon()

    def _lay_out_columns(self) -> None:
        """The map's units for the run shown; its columns laid out again when they changed (a new
        run, the other view)."""
        self._units = self.units()
        if self._units.words:
            self.view_bar.note_word_list()  # an unusable Chinese word list: said once
        key = (self.record.source_tokens, self._units.words)
        if key != self._laid_out:
            self._laid_out = key
            self.heatmap.reset(self._units.column_labels)

    def _show_inspected_soon(self) -> None:
        """The newest step in the inspector, at most every INSPECTOR_INTERVAL_MS."""
        wait_ms = inspector_wait_ms((time.monotonic() - self._inspector_shown_at) * 1000, INSPECTOR_INTERVAL_MS)
        if wait_ms == 0:
            self._show_inspected()
        elif not self._inspector_timer.isActive():
            self._inspector_timer.start(wait_ms)

    def _row_labels(self, units: MapUnits | None = None, rows: int | None = None) -> list[str]:
        """The map's row labels (of ``units``' first ``rows`` pieces; by default the map's, all),
        marked where what-if decoding steered them: ✎ a given (forced) token, ◉ a step whose
        attention was set by hand (in the word view: any of its pieces)."""
        units = self._units if units is None else units
        rows = int(self.record.matrix.shape[0]) if rows is None else rows
        return marked_row_labels(units, rows, self.record.step)

    def _inspected_index(self) -> int:
        return inspected_index(self._preview, self._pinned, self.record.row_count)

    def _show_inspected(self) -> None:
        self._inspector_timer.stop()
        self._inspector_shown_at = time.monotonic()
        index = self._inspected_index()
        if index < 0:
            return
        record, units = self.record, self._units
        step, head = record.step(index), self.head_chooser.head
        step, row, heads = layer_view(step, record.row(index), step.head_attention if step is not None else None,
                                      self.head_chooser.layer)  # an earlier layer's: its log ᾱ as the last's scores
        self.inspector.show_step(index, record.target_tokens[index], step, row,
                                 record.source_tokens, record.scorer, record.uses_attention,
                                 source_split=units.source, words=units.words, note=self._word_note(index),
                                 head=head, head_weights=head_row(heads, head))
        self.attribution.inspect(index, units)

    def _word_note(self, index: int) -> str:
        """In the word view, which output word step ``index`` belongs to when that word has several pieces."""
        piece = word_piece(self._units, index)
        if piece is None:
            return ""
        return (self.tr("piece %1 of the word ‘%2’ (steps %3–%4; its map row averages them)").replace("%1", str(piece.number))
                .replace("%2", piece.word).replace("%3", str(piece.first)).replace("%4", str(piece.last)))

    # -- interaction ------------------------------------------------------------------------
    def select_step(self, index: int) -> None:
        """Pin the inspector to step ``index`` (-1 follows the newest step)."""
        self._pinned = index
        self.heatmap.highlight_row(self._units.row_of(index))
        self._show_inspected()
        if index >= 0:
            self.stepSelected.emit(index)

    def preview_step(self, index: int) -> None:
        """Show step ``index`` while the pointer is on its output token (-1 ends the preview)."""
        self._preview = index
        self.heatmap.highlight_row(highlighted_row(self._units, index, self._pinned))
        self._show_inspected()

    def highlight_column(self, column: int) -> None:
        """Outline the cell of the inspected row under source token ``column`` (-1 clears)."""
        self.heatmap.highlight_cell(*outlined_cell(self._units, self._inspected_index(), column))

    def _on_cell_hovered(self, row: int, column: int) -> None:
        """A map cell (in the map's units) under the pointer: its weight here, its first pieces out."""
        line = hover_line(self._units, row, column, self.heatmap.weight(row, column) if row >= 0 else 0.0,
                          self.heatmap._row_labels[row] if row >= 0 else "")
        text = self.tr(self.hover_hint) if line.text is None else self.attribution.relabel(line.text)
        self.hover_label.setText(text)
        self.hover_label.setToolTip(text)
        self.cellHovered.emit(*line.pieces)

    def _on_cell_clicked(self, row: int, column: int, shift: bool) -> None:
        units = self._units
        self.cellClicked.emit(units.first_row_piece(row), units.first_column_piece(column), shift)
