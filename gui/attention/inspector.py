"""The step inspector: for one decoding step i, what the formulas computed.

It shows the scorer's formula for e_ij, the softmax that turns scores into weights α_ij, the raw
scores and weights per source token, which source tokens dominate the context vector c_i, and
the top-k output tokens the step chose between. This connects the heatmap to the mathematics.
"""

from __future__ import annotations

import html
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import numpy as np
from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, QEvent, Qt, Signal
from PySide6.QtGui import QColor, QStandardItem, QStandardItemModel
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QLabel,
    QSizePolicy,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from engine.text import WordSplit, merge_columns, merge_scores
from gui.attention.head_rows import MEAN
from gui.attention.labels import piece_label, quoted, token_label
from gui.scorer_labels import scorer_formula

if TYPE_CHECKING:
    from engine.decoding import DecodeStep
    from engine.settings import ScorerInfo

SOFTMAX = "α_ij = exp(e_ij) / Σ_k exp(e_ik)"
HEAD_SOFTMAX = "α^h_ij = exp(e^h_ij) / Σ_k exp(e^h_ik)"
DOMINANT_SHARE = 0.9  # list source tokens until they carry this share of the weight
DOMINANT_MAX = 4


def dominant_sources(weights: np.ndarray, tokens: Sequence[str]) -> list[tuple[str, float]]:
    """The few source tokens that carry most of c_i: (token, α) by decreasing α."""
    picked: list[tuple[str, float]] = []
    total = 0.0
    for j in np.argsort(-weights, kind="stable")[:DOMINANT_MAX]:
        picked.append((tokens[int(j)], float(weights[int(j)])))
        total += float(weights[int(j)])
        if total >= DOMINANT_SHARE:
            break
    return picked


def _weight_colour(alpha: float) -> QColor:
    colour = QColor(68, 1, 84)
    colour.setAlphaF(min(max(alpha, 0.0), 1.0) * 0.6)
    return colour


VisibleRows = Callable[[], tuple[int, int]]  # (first, last) rows on screen; (-1, -1) when not known


class WeightTable(QStandardItemModel):
    """Per source token j: its label, the raw score e_ij and the weight α_ij.

    The cells live in Qt (a standard item model, no Python method that Qt calls overridden): painting
    the table asks every visible cell for a dozen roles, and answering those from Python would take the
    interpreter lock hundreds of times per paint — beside a decoding thread, each of them a wait
    (15–20 ms per paint, measured). A new step sets its numbers here instead, once — and only in the
    rows on screen (``visible_rows``, given by the view, with a margin): the other rows are filled when
    they scroll into view or are read through :meth:`item`, so a step costs the same for 20 source
    tokens as for 200."""

    HEADERS = ("j", QT_TRANSLATE_NOOP("WeightTable", "source token"), QT_TRANSLATE_NOOP("WeightTable", "score e_ij"),
               QT_TRANSLATE_NOOP("WeightTable", "weight α_ij"))
    _RIGHT = Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
    MARGIN = 10  # rows filled beyond each end of the visible ones

    def __init__(self) -> None:
        super().__init__(0, len(self.HEADERS))
        self.setHorizontalHeaderLabels([self.tr(header) for header in self.HEADERS])
        self._tokens: list[str] = []
        self._scores: np.ndarray | None = None  # e_i (S,) of the step shown, or None
        self._weights = np.zeros(0)  # α_i (S,)
        self._stale = np.zeros(0, dtype=bool)  # rows whose numbers are not yet the step shown
        self.visible_rows: VisibleRows | None = None

    def set_rows(self, tokens: Sequence[str], scores: np.ndarray | None, weights: np.ndarray) -> None:
        """The rows of one step (same sentence, next step: the numbers change, nothing else)."""
        labels = [token_label(t) for t in tokens]
        if labels != self._tokens:
            self._tokens = labels
            self.setRowCount(0)
            self.setRowCount(len(labels))
            for j, label in enumerate(labels):
                self.setItem(j, 0, self._cell(str(j), self._RIGHT))
                self.setItem(j, 1, self._cell(label, Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter))
                self.setItem(j, 2, self._cell("", self._RIGHT))
                self.setItem(j, 3, self._cell("", self._RIGHT))
        self._scores, self._weights = scores, np.asarray(weights)
        self._stale = np.ones(len(labels), dtype=bool)
        self.fill_visible()

    def fill_visible(self) -> None:
        """Fill the rows on screen (all rows while the view has not said which are) that are stale."""
        count = len(self._stale)
        first, last = self.visible_rows() if self.visible_rows is not None else (-1, -1)
        if first < 0:
            first, last = 0, count - 1
        elif last < 0:  # the view ends below the last row
            last = count - 1
        self._fill(max(first - self.MARGIN, 0), min(last + self.MARGIN, count - 1))

    def item(self, row: int, column: int = 0) -> QStandardItem:
        """The cell at (row, column), its numbers those of the step shown (filled now if they were not)."""
        if column >= 2 and 0 <= row < len(self._stale) and self._stale[row]:
            self._fill(row, row)
        return super().item(row, column)

    def _fill(self, first: int, last: int) -> None:
        rows = [j for j in range(first, last + 1) if self._stale[j]]
        if not rows:
            return
        self._stale[rows] = False
        scores, weights = self._scores, self._weights
        self.blockSignals(True)  # one change signal for the two columns, not one per cell
        for j in rows:
            score = "—" if scores is None or j >= len(scores) else f"{float(scores[j]):+.3f}"
            alpha = float(weights[j]) if j < len(weights) else float("nan")
            super().item(j, 2).setText(score)
            weight = super().item(j, 3)
            weight.setText(f"{alpha:.4f}")
            weight.setBackground(_weight_colour(alpha))
        self.blockSignals(False)
        self.dataChanged.emit(self.index(rows[0], 2), self.index(rows[-1], 3))

    @staticmethod
    def _cell(text: str, alignment: Qt.AlignmentFlag) -> QStandardItem:
        item = QStandardItem(text)
        item.setTextAlignment(alignment)
        item.setEditable(False)
        return item


class StepInspector(QWidget):
    """Shows one step; call :meth:`show_step` with what the record holds for it.

    ``choosable``: the top-k candidates are links that ask to continue from them (what-if decoding,
    :attr:`alternativeChosen`); otherwise they are listed only. ``compact`` leaves the formulas out
    (the Compare grid shows each scorer's formula in its panel's title)."""

    alternativeChosen = Signal(int, int)  # step i, token id: continue the output from that token instead

    def __init__(self, parent: QWidget | None = None, *, choosable: bool = True, compact: bool = False,
                 hint: str = "") -> None:
        """``hint``: the title before any step (by default, how to choose one)."""
        super().__init__(parent)
        self.setObjectName("stepInspector")
        self._own_hint = not hint  # the default hint, made again when the interface's language changes
        hint = hint or self.tr("Step inspector: translate a sentence, then hover or click an output token.")
        self.choosable, self.compact, self.hint = choosable, compact, hint
        self._shown_call: tuple | None = None  # show_step's arguments for the step shown (None: cleared)
        self._cleared_scorer: ScorerInfo | None = None  # the mechanism whose formulas a cleared inspector shows
        self._cleared = False  # clear() has run (no step shown since): its title, not the hint before any step
        self.title = QLabel(hint)
        self.title.setWordWrap(True)
        self.formula = QLabel()
        self.formula.setObjectName("inspectorFormula")
        self.formula.setWordWrap(True)
        self.formula.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.context = QLabel()
        self.context.setWordWrap(True)
        self.context.setTextFormat(Qt.TextFormat.PlainText)
        self.alternatives = QLabel()
        self.alternatives.setObjectName("inspectorAlternatives")
        self.alternatives.setWordWrap(True)
        self.alternatives.setTextFormat(Qt.TextFormat.RichText)
        self.alternatives.linkActivated.connect(self._on_link)
        self.weights = WeightTable()
        self.table = QTableView()
        self.table.setObjectName("inspectorTable")
        self.table.setModel(self.weights)
        self.table.verticalHeader().setVisible(False)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.Fixed)  # contents-sized columns cost O(rows) per step
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        header.setStretchLastSection(False)
        metrics = self.fontMetrics()
        for column, sample in ((0, "000"), (2, QCoreApplication.translate("WeightTable", "score e_ij")), (3, QCoreApplication.translate("WeightTable", "weight α_ij"))):
            header.resizeSection(column, metrics.horizontalAdvance(sample) + 18)
        self.table.verticalHeader().setDefaultSectionSize(metrics.lineSpacing() + 6)
        self.weights.visible_rows = self._visible_rows  # a step fills the rows on screen; the rest on scrolling
        scroll = self.table.verticalScrollBar()
        scroll.valueChanged.connect(lambda _value: self.weights.fill_visible())
        scroll.rangeChanged.connect(lambda _low, _high: self.weights.fill_visible())
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        for widget in (self.title, self.formula, self.context, self.alternatives):
            widget.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Maximum)
            layout.addWidget(widget)
        self.formula.setVisible(not compact)
        layout.addWidget(self.table, 1)
        layout.addStretch(0)  # takes the room when the table is hidden (no attention)
        self.shown_index = -1

    def _visible_rows(self) -> tuple[int, int]:
        """(first, last) rows of the table on screen: (-1, -1) while it is hidden; last -1 when the
        view reaches below the last row."""
        if not self.table.isVisible():
            return -1, -1
        return self.table.rowAt(0), self.table.rowAt(self.table.viewport().height() - 1)

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 (Qt's name)
        """The interface's language changed: the hint, or the step shown, is made again in it."""
        super().changeEvent(event)
        if event.type() != QEvent.Type.LanguageChange:
            return
        if self._own_hint:
            self.hint = self.tr("Step inspector: translate a sentence, then hover or click an output token.")
        if self._shown_call is not None:
            args, options = self._shown_call
            self.show_step(*args, **options)
        elif self._cleared:
            self.clear(self._cleared_scorer)
        else:  # nothing shown or cleared yet: the hint, in the new language
            self.title.setText(self.hint)

    def clear(self, scorer: ScorerInfo | None = None) -> None:
        """No step shown: the hint, and the formulas of ``scorer`` (its registry row; None: none)."""
        self.shown_index = -1
        self._shown_call, self._cleared_scorer, self._cleared = None, scorer, True
        self.title.setText(self.hint if self.compact else
                           self.tr("Step inspector: hover or click an output token or a heatmap row."))
        self.formula.setText(self._formulas(scorer, True))
        self.context.clear()
        self.alternatives.clear()
        self.alternatives.hide()
        self.weights.set_rows([], None, np.zeros(0))

    def show_step(self, index: int, token: str, step: DecodeStep | None, weights: np.ndarray | None,
                  source_tokens: Sequence[str], scorer: ScorerInfo | None, uses_attention: bool, *,
                  probability: float | None = None, scores: np.ndarray | None = None, heading: str = "",
                  source_split: WordSplit | None = None, words: bool = False, note: str = "",
                  head: int = MEAN, head_weights: np.ndarray | None = None) -> None:
        """Show step ``index`` (output ``token``); ``step`` is None when its details are not known,
        ``weights`` is α_i (None without attention); ``scorer`` is the mechanism's registry row (its formulas
        are shown; None: none). Without a ``step`` (a target forced on the
        model), ``probability`` p(y_i | y_<i, x) and ``scores`` e_i (S,) are shown when given.
        ``heading`` names the model (e.g. the scorer) before the step; ``note`` follows it.

        ``head`` (0-based) with ``head_weights`` (its α^h_i, S,): a multi-head mechanism's map shows that
        head, and so does the table — its weights, its formulas, and no score column (a head's own
        scores are not kept; the mean's e_ij would not be the scores of its α).

        ``source_split`` (the source's pieces grouped into words, engine/text/words.py): with ``words``
        the table lists source words — α summed over a word's pieces, the score log Σ exp over
        them (softmax over those scores gives the summed α); without, pieces that continue a word
        are marked ``##``."""
        self._shown_call = ((index, token, step, weights, source_tokens, scorer, uses_attention),
                            {"probability": probability, "scores": scores, "heading": heading, "note": note,
                             "source_split": source_split, "words": words, "head": head, "head_weights": head_weights})
        self.shown_index = index
        if step is not None:
            probability, scores = step.probability, step.scores
        own = step.model_attention if step is not None and step.overridden else None
        one_head = _one_head(head, head_weights, weights)
        if one_head:
            weights, scores, own = np.asarray(head_weights), None, None
            own_weights = self.tr("head %1's weights (its scores are not kept)").replace("%1", str(head + 1))
            note = "; ".join(part for part in (own_weights, note) if part)
        source_tokens, weights, scores, own = _in_units(source_tokens, weights, scores, own, source_split, words)
        self._name_columns(words, head if one_head else MEAN)
        self.title.setText(self._title(index, token, probability, heading, note))
        self.formula.setText(self._formulas(scorer, uses_attention, head if one_head else MEAN))
        self.alternatives.setText(self._alternatives(step, own, source_tokens))
        self.alternatives.setVisible(bool(self.alternatives.text()))  # no empty line above the table
        self._show_weights(index, source_tokens, weights, scores, uses_attention, head if one_head else MEAN)

    def _name_columns(self, words: bool, head: int) -> None:
        """The table's source column (words or tokens) and weight column (α, or one head's α^h)."""
        self.weights.setHeaderData(1, Qt.Orientation.Horizontal,
                                   QCoreApplication.translate("WeightTable", "source word") if words else QCoreApplication.translate("WeightTable", "source token"))
        self.weights.setHeaderData(3, Qt.Orientation.Horizontal, QCoreApplication.translate("WeightTable", "weight α^%1_ij").replace(
            "%1", str(head + 1)) if head != MEAN else QCoreApplication.translate("WeightTable", "weight α_ij"))

    def _title(self, index: int, token: str, probability: float | None, heading: str, note: str) -> str:
        """The step's line: the model (``heading``), i, the output token and its p, then ``note``."""
        prefix = f"<b>{html.escape(heading)}</b> · " if heading else ""
        if self.compact:
            shown_p = f", p = {probability:.3f}" if probability is not None else ""
            title = f"{prefix}<b>i = {index}</b>: {html.escape(quoted(token))}{shown_p}"
        else:
            shown_p = self.tr(" with p = %1").replace("%1", f"{probability:.3f}") if probability is not None else ""
            title = prefix + self.tr("<b>Step i = %1</b>: output %2").replace("%1", str(index)).replace(
                "%2", html.escape(quoted(token))) + shown_p
        return title + (f" — {html.escape(note)}" if note else "")

    def _alternatives(self, step: DecodeStep | None, own: np.ndarray | None, source_tokens: Sequence[str]) -> str:
        """The top candidates (links to pick one, when ``choosable``) and, for a step whose α was set
        by hand, the model's own α ("" when neither)."""
        text = ""
        if step is not None and step.alternatives:
            forced = self.tr(" (this token was given: a forced prefix)") if step.forced else ""
            count = str(len(step.alternatives))
            if self.choosable:
                choices = " · ".join(
                    f'<a href="alt:{a.token_id}">{html.escape(quoted(a.token))}</a> {a.probability:.3f}'
                    for a in step.alternatives)
                text = self.tr("Top-%1 candidates%2 — click one to make the model continue from it: %3").replace(
                    "%1", count).replace("%2", forced).replace("%3", choices)
            else:
                choices = " · ".join(f"{html.escape(quoted(a.token))} {a.probability:.3f}" for a in step.alternatives)
                text = self.tr("Top-%1 candidates%2: %3").replace("%1", count).replace("%2", forced).replace(
                    "%3", choices)
        if own is not None:
            listed = ", ".join(f"{quoted(tok)} {alpha:.2f}" for tok, alpha in dominant_sources(own, source_tokens))
            text += "<br>" + self.tr("<b>α set by hand at this step.</b> The model's own α: %1").replace(
                "%1", html.escape(listed))
        return text

    def _show_weights(self, index: int, source_tokens: Sequence[str], weights: np.ndarray | None,
                      scores: np.ndarray | None, uses_attention: bool, head: int = MEAN) -> None:
        """The context line and the table of e_ij and α_ij (the fixed context's line without one); for one
        ``head``, what that head reads of the source."""
        if not uses_attention or weights is None:
            self.context.setText(self.tr("c_i = C: the same fixed context vector at every step (no weights to inspect)."))
            self.weights.set_rows([], None, np.zeros(0))
            self.table.setVisible(uses_attention)
            return
        self.table.setVisible(True)
        parts = " + ".join(f"{alpha:.2f}·h({quoted(tok)})" for tok, alpha in dominant_sources(weights, source_tokens))
        mixed = self.tr("head %1 reads W_V^%1 of").replace("%1", str(head + 1)) if head != MEAN else f"c_{index} ≈"
        self.context.setText(f"{mixed} {parts} + …")
        self.weights.set_rows(source_tokens, scores, weights)

    def _on_link(self, link: str) -> None:
        if link.startswith("alt:") and self.shown_index >= 0:
            self.alternativeChosen.emit(self.shown_index, int(link[4:]))

    @staticmethod
    def _formulas(scorer: ScorerInfo | None, uses_attention: bool, head: int = MEAN) -> str:
        """``scorer``'s score, the softmax and its context (for one ``head``, that head's score), from its row;
        "" for no scorer."""
        if scorer is None:
            return ""

        def bold(label: str) -> str:
            return "<b>" + QCoreApplication.translate("StepInspector", label) + "</b> "

        if not uses_attention:
            return bold(QT_TRANSLATE_NOOP("StepInspector", "Scorer:")) + html.escape(scorer_formula(scorer.formula))
        context = "<br>" + bold(QT_TRANSLATE_NOOP("StepInspector", "Context:")) + html.escape(scorer_formula(scorer.context))
        softmax = "<br>" + bold(QT_TRANSLATE_NOOP("StepInspector", "Softmax:"))
        head_score = scorer.head_score
        if head != MEAN and head_score:
            heading = "<b>" + QCoreApplication.translate("StepInspector", "Head %1's score:").replace(
                "%1", str(head + 1)) + "</b> "
            return (heading + html.escape(head_score.replace("^h", f"^{head + 1}"))
                    + softmax + HEAD_SOFTMAX.replace("^h", f"^{head + 1}") + context)
        return (bold(QT_TRANSLATE_NOOP("StepInspector", "Score:")) + html.escape(scorer_formula(scorer.formula)) + softmax
                + SOFTMAX + context)


def _one_head(head: int, head_weights: np.ndarray | None, weights: np.ndarray | None) -> bool:
    """Whether one head's weights are shown in place of the mean α (a head chosen, its α^h_i as long as α_i)."""
    return head != MEAN and head_weights is not None and weights is not None and len(head_weights) == len(weights)


def _in_units(tokens: Sequence[str], weights: np.ndarray | None, scores: np.ndarray | None,
              own: np.ndarray | None, split: WordSplit | None, words: bool):
    """The source labels, weights, scores and the model's own α (what-if) in the table's units:
    words (merged) or pieces (marked where they continue a word)."""
    if split is None or split.pieces != tuple(tokens):
        return tokens, weights, scores, own
    if not words:
        return [piece_label(p, split.continues(k)) for k, p in enumerate(tokens)], weights, scores, own

    def merged(row: np.ndarray | None) -> np.ndarray | None:
        return None if row is None else merge_columns(np.asarray(row)[None, :], split)[0]

    labels = ["\u2423" if w == "\u2581" else w for w in split.words]
    return labels, merged(weights), None if scores is None else merge_scores(scores, split), merged(own)
