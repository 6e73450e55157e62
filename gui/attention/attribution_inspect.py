"""The step inspector's attribution part: for the inspected step, α and the attribution side by side, one
row per source unit, with their Spearman rank correlation, whether their top source word agrees, the share
on the source — and "why this word and not that one?": a contrastive attribution of log p(y_i) − log p(y')
for one of the step's top-k candidates y' (Yin & Neubig 2022), asked by a link.

Shown in place of the inspector's own table of e_ij and α_ij while the map shows an attribution.
"""

from __future__ import annotations

import html
import math
from collections.abc import Sequence

import numpy as np
from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QColor, QStandardItem, QStandardItemModel
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QLabel, QSizePolicy, QTableView, QVBoxLayout, QWidget

from gui.attention.attribution_math import SHORT_NAMES, StepAttributionLike, agreement
from gui.attention.labels import quoted

WHY_LINK = "why:"  # a candidate's link: "why:<step>:<its place among the candidates>"
_RIGHT = Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter


def _signed_colour(value: float, top: float) -> QColor:
    """A cell's tint: red for a positive contribution, blue for a negative one, by its size against ``top``."""
    colour = QColor(200, 40, 40) if value >= 0 else QColor(40, 80, 200)
    colour.setAlphaF(min(abs(value) / top, 1.0) * 0.5 if top > 0 and not math.isnan(value) else 0.0)
    return colour


def _at(values: np.ndarray | None, j: int) -> float:
    """``values[j]``, or NaN where there is none."""
    return float(values[j]) if values is not None and j < len(values) else math.nan


def _alpha_text(alpha: np.ndarray | None, j: int) -> str:
    """α_ij to three places, or a dash where there is none."""
    return "—" if alpha is None or j >= len(alpha) else f"{float(alpha[j]):.3f}"


def _bytes(values: np.ndarray | None) -> bytes | None:
    return None if values is None else values.tobytes()


def _peak(values: np.ndarray | None) -> float:
    """The largest |value| (0 for none): what a cell's tint is measured against."""
    return float(np.nanmax(np.abs(values))) if values is not None and len(values) else 0.0


class AttributionSection(QWidget):
    """α beside the attribution of one step; links to a contrastive attribution."""

    contrastRequested = Signal(int, str)  # output position i, the alternative piece y'

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("attributionSection")
        self.summary = QLabel()
        self.summary.setObjectName("attributionSummary")
        self.summary.setWordWrap(True)
        self.summary.setTextFormat(Qt.TextFormat.RichText)
        self.summary.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Maximum)
        self.summary.linkActivated.connect(self._on_link)
        self.model = QStandardItemModel(0, 4)
        self.table = QTableView()
        self.table.setObjectName("attributionTable")
        self.table.setModel(self.model)
        self.table.verticalHeader().setVisible(False)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        header.setStretchLastSection(False)
        self.table.verticalHeader().setDefaultSectionSize(self.fontMetrics().lineSpacing() + 6)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.summary)
        layout.addWidget(self.table, 1)
        self.agreement = None  # the Agreement of the step shown (None: no α or no attribution)
        self._shown: tuple | None = None  # what the table holds, to skip refilling it with the same
        self._candidates: tuple[str, ...] = ()  # the alternatives the links offer

    def show_step(self, index: int, token: str, method: str, labels: Sequence[str], alpha: np.ndarray | None,
                  item: StepAttributionLike | None, source: np.ndarray | None, *, contrast: StepAttributionLike | None,
                  contrast_source: np.ndarray | None, candidates: Sequence[str], pending: str = "") -> None:
        """Step ``index`` (output ``token``): ``alpha`` α_i and ``source`` its attribution over ``labels``
        (the table's source units: words or pieces; None when not in yet, ``pending`` says why), ``item``
        the step's StepAttribution, ``contrast`` a contrastive one (``contrast_source`` in the same units),
        ``candidates`` the step's top-k alternatives offered for "why not"."""
        self.agreement = None
        if source is None:
            parts = [html.escape(pending or self.tr("The attribution of this step is not computed yet."))]
        else:
            parts = self._attribution_lines(index, SHORT_NAMES[method], labels, alpha, item, source)
        if contrast_source is not None and contrast is not None:
            parts.append(self._contrast_line(token, contrast.contrast_token or "", labels, contrast_source))
        if candidates and source is not None:
            links = " · ".join(f'<a href="{WHY_LINK}{index}:{k}">{html.escape(quoted(c))}</a>'
                               for k, c in enumerate(candidates))
            parts.append(self.tr("Why %1 and not: %2").replace("%1", html.escape(quoted(token))).replace("%2", links))
        self._candidates = tuple(candidates)
        self.summary.setText("<br>".join(parts))
        self._fill(method, labels, alpha, source, contrast, contrast_source)

    def _attribution_lines(self, index: int, name: str, labels: Sequence[str], alpha: np.ndarray | None,
                           item: StepAttributionLike, source: np.ndarray) -> list[str]:
        """What the step's attribution says: its log p and share on the source, then how it agrees with α
        (setting :attr:`agreement`) or that there is no α."""
        share = item.source_share
        lines = [self.tr("%1 of step %2: log p = %3 · on the source %4 %, on the words written before %5 %")
                 .replace("%1", html.escape(name)).replace("%2", str(index))
                 .replace("%3", f"{item.target_log_prob:.3f}").replace("%4", f"{100 * share:.0f}")
                 .replace("%5", f"{100 * (1 - share):.0f}")]
        if alpha is not None and len(alpha) == len(source) and len(source):
            self.agreement = agree = agreement(alpha, source)
            rho = "—" if math.isnan(agree.rho) else f"{agree.rho:+.2f}"
            verdict = self.tr("they agree") if agree.agrees else self.tr("they differ")
            lines.append(self.tr("Spearman ρ(α, |%1|) = %2 · top source word: α %3, %1 %4 — %5")
                         .replace("%1", html.escape(name)).replace("%2", rho)
                         .replace("%3", html.escape(quoted(labels[agree.top_alpha])))
                         .replace("%4", html.escape(quoted(labels[agree.top_attribution])))
                         .replace("%5", f"<b>{verdict}</b>"))
        elif alpha is None:
            lines.append(self.tr("No attention in this model: the attribution is the only explanation "
                                 "there is of which source words this output depended on."))
        return lines

    def _contrast_line(self, token: str, other: str, labels: Sequence[str], values: np.ndarray) -> str:
        """Which source words made the model prefer ``token`` over ``other`` (and which pulled the other way)."""
        order = np.argsort(-values, kind="stable")
        pro = [html.escape(quoted(labels[j])) for j in order[:3] if values[j] > 0]
        con = [html.escape(quoted(labels[j])) for j in order[::-1][:2] if values[j] < 0]
        line = self.tr("Why %1 and not %2: for %1 — %3").replace("%1", html.escape(quoted(token))).replace(
            "%2", html.escape(quoted(other))).replace("%3", ", ".join(pro) or "—")
        if con:
            line += self.tr("; for %1 — %2").replace("%1", html.escape(quoted(other))).replace("%2", ", ".join(con))
        return line

    def _fill(self, method: str, labels: Sequence[str], alpha: np.ndarray | None, source: np.ndarray | None,
              contrast: StepAttributionLike | None, contrast_source: np.ndarray | None) -> None:
        key = (method, tuple(labels), _bytes(alpha), _bytes(source),
               None if contrast_source is None else (contrast.contrast_token, contrast_source.tobytes()))
        if key == self._shown:
            return
        self._shown = key
        headers = [self.tr("source"), "α", SHORT_NAMES[method]]
        if contrast_source is not None:
            headers.append(self.tr("vs %1").replace("%1", quoted(contrast.contrast_token or "")))
        self.model.clear()
        self.model.setColumnCount(len(headers))
        self.model.setHorizontalHeaderLabels(headers)
        top, contrast_top = _peak(source), _peak(contrast_source)
        for j, label in enumerate(labels):
            row = [self._cell(label, Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter),
                   self._cell(_alpha_text(alpha, j), _RIGHT)]
            value = _at(source, j)
            row.append(self._signed_cell("…" if math.isnan(value) else f"{value:+.3f}", value, top))
            if contrast_source is not None:
                other = _at(contrast_source, j)
                row.append(self._signed_cell(f"{other:+.3f}", other, contrast_top))
            self.model.appendRow(row)
        self._fit_columns(headers)

    def _fit_columns(self, headers: Sequence[str]) -> None:
        """The value columns as wide as their header or a signed value, whichever is longer."""
        header = self.table.horizontalHeader()
        for column in range(1, len(headers)):
            header.resizeSection(column, self.fontMetrics().horizontalAdvance(max(headers[column], "+0.000",
                                                                                  key=len)) + 16)

    @staticmethod
    def _cell(text: str, alignment: Qt.AlignmentFlag) -> QStandardItem:
        item = QStandardItem(text)
        item.setTextAlignment(alignment)
        item.setEditable(False)
        return item

    @classmethod
    def _signed_cell(cls, text: str, value: float, top: float) -> QStandardItem:
        """A right-aligned cell tinted by the sign and size of ``value`` against ``top``."""
        item = cls._cell(text, _RIGHT)
        item.setBackground(_signed_colour(value, top))
        return item

    def _on_link(self, link: str) -> None:
        if link.startswith(WHY_LINK):
            index, _, place = link[len(WHY_LINK):].partition(":")
            if int(place) < len(self._candidates):
                self.contrastRequested.emit(int(index), self._candidates[int(place)])
