"""One scorer's panel of the Compare grid: its formula, its attention map (filling in live), its
output, its numbers, and a coverage bar — the total attention each source token received.

The coverage bar sits under the map, one bar per source token, with a line at 1: a bar near 0 is
a word the output may have dropped, a bar well above 1 one it may have translated twice. The
fixed-context scorer has no map; its panel says why and shows its output and numbers only.
"""

from __future__ import annotations

import html
from collections.abc import Sequence

import numpy as np
from PySide6.QtCore import QObject, Qt, QTimer, Signal
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QScrollArea,
    QSizePolicy,
    QStyle,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from gui.attention.head_rows import MEAN, shown_rows
from gui.attention.heads import HeadChooser
from gui.attention.labels import join_pieces
from gui.attention.piece_map import PieceMap
from gui.compare.coverage_bar import CoverageBar
from gui.compare.model import PanelNumbers, PanelRows, PanelSlot, StepDetail, output_shading, panel_title

MAP_MINIMUM_HEIGHT = 290  # the stacked labels of a CJK source (~70 px) and a map of ≥ 200 px under them (15 rows)
STEP_LINK = "step:"  # an output token's link in the panel's text: "step:<i>"
SHADE_RGB = (255, 176, 0)  # the tint of output tokens by their attention to a hovered source token
SHADE_FLOOR = 0.05  # weights below this are not tinted
DRAW_INTERVAL_MS = 25  # between two panels' redraws: with four maps, each redraws ~10 times a second


OUTPUT_LINES = 2  # the output's box: longer outputs scroll inside it
NUMBER_LINES = 3  # a forced target's figures (log p, perplexity, entropy, max α, BLEU, chrF) whole at 400 px


class _WholeTitle(QLabel):
    """A word-wrapped title that is never cut: at each width it asks for the height its lines need (a
    grid cell narrowed by a 1280-pixel window wraps the multi-head formula to five lines, which the
    layout would otherwise squeeze into three), and the map below it gives up that height."""

    def __init__(self, text: str) -> None:
        super().__init__(text)
        self.setTextFormat(Qt.TextFormat.RichText)
        self.setWordWrap(True)

    def resizeEvent(self, event) -> None:  # noqa: N802 (Qt's name)
        super().resizeEvent(event)
        needed = self.heightForWidth(self.width())
        if needed > 0 and needed != self.minimumHeight():
            self.setMinimumHeight(needed)


def _fixed_lines(label: QLabel, lines: int) -> QScrollArea:
    """``label`` in a box ``lines`` text lines high that scrolls when the text is longer. Text that
    grows while a run streams then never changes the panel's layout — a growing label would resize
    every map of the grid, and each resize repaints it."""
    label.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
    box = QScrollArea()
    box.setWidget(label)
    box.setWidgetResizable(True)
    box.setFrameShape(QFrame.Shape.NoFrame)
    box.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
    box.setFixedHeight(label.fontMetrics().lineSpacing() * lines + 4)
    return box


class PanelScheduler(QObject):
    """Redraws the grid's maps one panel at a time.

    Five models stream steps at once; redrawing every panel in the same frame would hold the event
    loop for the sum of their paints. Panels with something new queue here and are drawn one per
    tick, oldest first, so the longest stall is one panel's redraw."""

    def __init__(self, parent: QObject | None = None, interval_ms: int = DRAW_INTERVAL_MS) -> None:
        super().__init__(parent)
        self._pending: dict[int, ScorerPanel] = {}  # in the order they asked
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(interval_ms)
        self._timer.timeout.connect(self._draw_next)

    @property
    def pending(self) -> bool:
        """Some panel has something not drawn yet."""
        return bool(self._pending)

    def request(self, panel: ScorerPanel) -> None:
        self._pending.setdefault(id(panel), panel)
        if not self._timer.isActive():
            self._timer.start()

    def cancel(self, panel: ScorerPanel) -> None:
        self._pending.pop(id(panel), None)

    def flush(self) -> None:
        """Draw every pending panel now (before an export grabs the grid)."""
        self._timer.stop()
        while self._pending:
            self._draw_next()

    def _draw_next(self) -> None:
        if self._pending:
            self._pending.pop(next(iter(self._pending))).draw_pending()
        if self._pending:
            self._timer.start()


class ScorerPanel(QFrame):
    """The panel of one scorer (objectName ``comparePanel_<scorer>``)."""

    stepHovered = Signal(str, int)  # scorer, output step under the pointer (a map row or an output token)
    columnHovered = Signal(int)  # source column under the pointer (-1 when none)
    mapDrawn = Signal(bool)  # the map was redrawn (True: with its final rows); an enlarged copy follows it
    enlargeRequested = Signal(str)  # scorer: open this map in a window of its own

    def __init__(self, slot: PanelSlot, parent: QWidget | None = None, scheduler: PanelScheduler | None = None) -> None:
        super().__init__(parent)
        self.slot = slot
        self.scheduler = scheduler if scheduler is not None else PanelScheduler(self)
        self.setObjectName(f"comparePanel_{slot.scorer}")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)  # every pixel to the map: ≥ 300 px wide in three columns
        self.title = _WholeTitle(panel_title(slot))
        if slot.row.brief_formula:
            self.title.setToolTip(slot.formula)  # the whole formula (the title has it in brief)
        title_row = QHBoxLayout()
        title_row.addWidget(self.title, 1)
        layout.addLayout(title_row)
        self.uses_attention = slot.row.uses_attention
        self.head_chooser: HeadChooser | None = None  # a multi-head mechanism's map: the mean or one head
        heads = slot.row.heads
        if heads > 1:
            self.head_chooser = HeadChooser(compact=True)
            self.head_chooser.setObjectName(f"compareHeads_{slot.scorer}")
            self.head_chooser.set_head_count(heads)
            self.head_chooser.headChanged.connect(self._on_head_changed)
            title_row.addWidget(self.head_chooser, 0, Qt.AlignmentFlag.AlignTop)
        self.enlarge_button: QToolButton | None = None
        if self.uses_attention:
            self.enlarge_button = QToolButton()
            self.enlarge_button.setObjectName(f"compareEnlarge_{slot.scorer}")
            self.enlarge_button.setIcon(self.style().standardIcon(QStyle.StandardPixmap.SP_TitleBarMaxButton))
            self.enlarge_button.setAutoRaise(True)
            self.enlarge_button.setToolTip(self.tr("Open this map in a window of its own, large enough for every "
                                                   "source and output label (it follows the panel)"))
            self.enlarge_button.clicked.connect(lambda: self.enlargeRequested.emit(self.slot.scorer))
            title_row.addWidget(self.enlarge_button, 0, Qt.AlignmentFlag.AlignTop)
        self.heatmap: PieceMap | None = None  # given pieces; draws pieces or words (the tab's choice)
        self.coverage: CoverageBar | None = None
        if self.uses_attention:
            self.heatmap = PieceMap()
            self.heatmap.set_hover_caption(True)  # too small to label every row: it names the hovered cell
            self.heatmap.set_compact_bar()
            self.heatmap.setObjectName(f"compareHeatmap_{slot.scorer}")
            self.heatmap.setMinimumHeight(MAP_MINIMUM_HEIGHT)  # the grid scrolls before a map is squeezed
            self.heatmap.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
            self.heatmap.cellHovered.connect(self.report_cell_hovered)
            layout.addWidget(self.heatmap, 1)
            self.coverage = CoverageBar()
            self.coverage.setObjectName(f"compareCoverage_{slot.scorer}")
            self.coverage.setToolTip(self.tr("Coverage: the total attention each source token received over the "
                                             "whole output (dashed line: 1). Near 0: a word the output may have "
                                             "dropped; well above 1: a word it may have translated twice."))
            layout.addWidget(self.coverage)
        else:
            # No map (its title says why): as tall as its text, the rest of its grid cell goes to the
            # step inspector below it.
            self.title.setToolTip(self.tr("No attention: every step reads the same fixed context C, the encoder's "
                                          "summary of the whole sentence — nothing to map."))
            self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Maximum)
        # The output as links, one per token: hovering a token shows its step in the inspector
        # (stepHovered); hovering a source token anywhere tints each token by its weight on it.
        self.output = QLabel()
        self.output.setObjectName(f"compareOutput_{slot.scorer}")
        self.output.setWordWrap(True)
        self.output.setTextFormat(Qt.TextFormat.RichText)
        self.output.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse
                                            | Qt.TextInteractionFlag.LinksAccessibleByMouse)
        self.output.linkHovered.connect(self._on_token_hovered)
        layout.addWidget(_fixed_lines(self.output, OUTPUT_LINES))
        self.numbers = QLabel()
        self.numbers.setObjectName(f"compareNumbers_{slot.scorer}")
        self.numbers.setWordWrap(True)
        layout.addWidget(_fixed_lines(self.numbers, NUMBER_LINES))
        self.matrix: np.ndarray | None = None  # the attention shown (rows so far)
        self.source_tokens: tuple[str, ...] = ()
        self.target_tokens: tuple[str, ...] = ()
        self.rows = PanelRows()  # the rows shown, with each step's details (for the inspector)
        self.output_text = ""  # the output as plain text (the label holds it as links)
        self.forced = False  # True when the map shows a target forced on the model
        self.shown_numbers: PanelNumbers | None = None  # the figures under the map, once a run has them
        self.map_final = False  # True once the map shows the run's final rows
        self._shaded_column = -1  # the source token whose weights tint the output (-1: none)
        self._pending_step = None  # a DecodeStep not drawn yet
        self._result_pending = False  # the final map is set but not drawn yet
        self._reset_pending = False  # a new sentence began; its empty map is not drawn yet
        if self.uses_attention:  # the grid's rows (their heights for width) must not squeeze the map under the bars
            self.setMinimumHeight(layout.minimumSize().height())
        if not slot.usable:
            self.disable(slot.reason)

    def hasHeightForWidth(self) -> bool:  # noqa: N802 (Qt's name)
        """A map panel is laid out at its minimum height (gui/compare/tab_widgets._MinimumCell says why)."""
        return not self.uses_attention and super().hasHeightForWidth()

    # -- states -----------------------------------------------------------------------------
    def disable(self, reason: str) -> None:
        """No model backs the panel: its title and why, without an empty map (room for the formula)."""
        self.setEnabled(False)  # the enlarge button with it
        self.setMinimumHeight(0)  # no map to keep room for
        self._set_output_text(reason)
        self.numbers.clear()
        for part in (self.heatmap, self.coverage, self.numbers):
            if part is not None:
                part.hide()

    def begin(self, source_tokens: Sequence[str]) -> None:
        """A new sentence: an empty map with one column per source token."""
        self.scheduler.cancel(self)
        self._pending_step, self._result_pending = None, False
        self.source_tokens, self.target_tokens, self.matrix, self.forced = tuple(source_tokens), (), None, False
        self.rows = PanelRows()
        self._set_output_text("…")
        self.numbers.clear()
        if self.heatmap is not None:
            # The empty map with the new columns is drawn in the scheduler's turn like any redraw:
            # relabelling five maps' axes at once held the window for the sum of them. Nothing of
            # the new run is drawn before it.
            self._reset_pending = True
            self.scheduler.request(self)

    def show_step(self, step) -> None:
        """A DecodeStep of free decoding (drawn when the scheduler comes to this panel)."""
        self._pending_step = step
        self.scheduler.request(self)

    def draw_pending(self) -> None:
        """Draw what arrived since the last draw: the new sentence's empty map first, then the newest
        step or the final map."""
        if self._reset_pending:
            self._reset_pending = False
            self.heatmap.reset(self.source_tokens)
            self.coverage.set_coverage([], self.heatmap.column_count)
            self._map_drawn(final=False)
            if self._pending_step is not None or self._result_pending:
                self.scheduler.request(self)  # what came meanwhile: at this panel's next turn
            return
        if self._result_pending:
            self._result_pending = False
            if self.heatmap is not None and self.matrix is not None:
                self.heatmap.set_rows(self.shown_matrix(), self.target_tokens, finished=True)
                self.coverage.set_coverage(self.heatmap.coverage(self.shown_matrix()), self.heatmap.column_count)
                self._map_drawn(final=True)
            return
        step, self._pending_step = self._pending_step, None
        if step is None:
            return
        self.target_tokens = tuple(step.hypothesis_tokens)
        self.rows = PanelRows.from_steps((*step.previous_steps, step), step.hypothesis_attention)
        self.output_text = join_pieces(self.target_tokens)[0]
        self._render_output()
        if self.heatmap is not None and step.hypothesis_attention is not None:
            self.matrix = step.hypothesis_attention
            self.heatmap.set_rows(self.shown_matrix(), self.target_tokens)
            self._map_drawn(final=False)

    def shown_matrix(self) -> np.ndarray | None:
        """What the map draws: :attr:`matrix` (α; a multi-head mechanism's heads' mean) or the chosen head's."""
        head = MEAN if self.head_chooser is None else self.head_chooser.head
        if self.matrix is None or head == MEAN:
            return self.matrix
        return shown_rows(self.matrix, self.rows.head_attention, head)

    def _on_head_changed(self, _head: int) -> None:
        """Another head (or the mean) chosen: the map, its coverage bar and the tinted output follow."""
        if self.heatmap is None or self.matrix is None or not self.target_tokens:
            return
        shown = self.shown_matrix()
        self.heatmap.set_rows(shown, self.target_tokens, finished=self.map_final)
        if self.map_final:
            self.coverage.set_coverage(self.heatmap.coverage(shown), self.heatmap.column_count)
        if self.rows.tokens:
            self._render_output()
        self._map_drawn(final=self.map_final)

    def set_word_view(self, words: bool) -> None:
        """Draw words (True) or pieces: the map's cells, its labels and the coverage bars are redrawn
        in the new unit at once (a new sentence's map not drawn yet is drawn in it at its turn)."""
        if self.heatmap is None or self.heatmap.words == words:
            return
        self.heatmap.set_word_view(words, draw=not self._reset_pending)
        if self._reset_pending:
            return
        shown = self.shown_matrix()
        final = self.map_final and shown is not None
        self.coverage.set_coverage(self.heatmap.coverage(shown) if final else [], self.heatmap.column_count)
        self._map_drawn(final=self.map_final)

    def _map_drawn(self, final: bool) -> None:
        self.map_final = final
        self.mapDrawn.emit(final)

    def show_result(self, rows: PanelRows, text: str, numbers: PanelNumbers, forced: bool) -> None:
        """The final content: a finished free decode, or a forced target's scores (the text and
        numbers at once, the map when the scheduler comes to this panel)."""
        self._pending_step = None
        attention = rows.attention
        self.rows, self.target_tokens, self.matrix, self.forced = rows, rows.tokens, attention, forced
        self.shown_numbers = numbers
        self.output_text = (self.tr("Forced: ") if forced else "") + text
        self._render_output()
        self.numbers.setText(numbers.text())
        self.numbers.setToolTip(numbers.tooltip())
        self._result_pending = self.heatmap is not None and attention is not None
        if self._result_pending:
            self.scheduler.request(self)
        elif not self._reset_pending:
            self.scheduler.cancel(self)

    def show_problem(self, message: str) -> None:
        self.numbers.setText(message)

    def step_detail(self, index: int) -> StepDetail | None:
        """What output step ``index`` computed (for the step inspector); None outside the rows."""
        return self.rows.detail(index)

    # -- the output as tokens ---------------------------------------------------------------
    def _set_output_text(self, text: str) -> None:
        """A message in place of the output (no tokens)."""
        self.output_text = text
        self.output.setText(html.escape(text))

    def _render_output(self) -> None:
        """The output, one link per token; tinted by the hovered source token's weights."""
        tokens = self.rows.tokens if self.rows.tokens else self.target_tokens
        prefix = self.tr("Forced: ") if self.forced else ""
        if not tokens:
            self.output.setText(html.escape(self.output_text))
            return
        text, spans = join_pieces(tokens)
        shades = output_shading(self.shown_matrix(), self._shaded_column)
        colour = self.palette().color(QPalette.ColorRole.WindowText).name()
        parts = [html.escape(prefix)]
        for index, (start, end) in enumerate(spans):
            piece = text[start:end]
            word = piece.lstrip(" ")
            if not word:
                parts.append(html.escape(piece))
                continue
            parts.append(html.escape(piece[: len(piece) - len(word)]))
            style = f"color:{colour};text-decoration:none"
            weight = shades[index] if index < len(shades) else 0.0
            if weight >= SHADE_FLOOR:
                style += f";background-color:{_shade(weight)}"
            parts.append(f'<a href="{STEP_LINK}{index}" style="{style}">{html.escape(word)}</a>')
        self.output.setText("".join(parts))

    def _on_token_hovered(self, link: str) -> None:
        index = int(link[len(STEP_LINK):]) if link.startswith(STEP_LINK) else -1
        if self.heatmap is not None:
            self.heatmap.highlight_row(index)
        if index >= 0:
            self.stepHovered.emit(self.slot.scorer, index)

    # -- linked hover -----------------------------------------------------------------------
    def highlight_column(self, column: int) -> None:
        """Outline source ``column`` in the map and tint the output by its weights (-1 clears)."""
        if self.heatmap is not None:
            self.heatmap.highlight_column(column)
        if column != self._shaded_column:
            self._shaded_column = column
            if self.matrix is not None and self.rows.tokens:
                self._render_output()

    def report_cell_hovered(self, row: int, column: int) -> None:
        """A cell of this scorer's map (or of its enlarged copy) is under the pointer."""
        if row >= 0:
            self.stepHovered.emit(self.slot.scorer, row)
        self.columnHovered.emit(column)


def _shade(weight: float) -> str:
    """The tint of an output token that gave ``weight`` of its attention to the hovered source token."""
    strength = min(max(weight, 0.0), 1.0) * 0.8
    red, green, blue = (round(255 + (c - 255) * strength) for c in SHADE_RGB)
    return f"#{red:02x}{green:02x}{blue:02x}"
