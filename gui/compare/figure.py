"""The Compare grid as a figure, for its PNG and SVG exports: the sentence, then one cell per scorer — its
title, its map as drawn (cells, row and column labels, colour bar), its coverage bar, its output and its
numbers — three cells a row. No buttons, boxes, inspector or scroll bars: what a report or a slide needs.

The maps are the panels' own widgets rendered onto the painter (QWidget.render: pyqtgraph draws its
scene as vectors on an SVG painter), each at its size on screen; the texts are drawn in the panels'
font. :class:`GridFigure` measures the figure (:meth:`size`) and paints it (:meth:`paint`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from PySide6.QtCore import QPoint, QRect, QSize, Qt
from PySide6.QtGui import QColor, QFont, QFontMetrics, QPainter
from PySide6.QtWidgets import QWidget

if TYPE_CHECKING:
    from gui.compare.panel import ScorerPanel

COLUMNS = 3
GAP = 16  # pixels between cells and around the figure
TEXT_LINES = 2  # the output's lines under a map (longer outputs are elided)


class GridFigure:
    """The panels of a comparison drawn as one figure."""

    def __init__(self, panels: Sequence[ScorerPanel], sentence: str, font: QFont) -> None:
        self.panels = [panel for panel in panels if panel.isEnabled()]  # a scorer without a model has nothing
        self.sentence = sentence
        self.font = QFont(font)
        self.bold = QFont(font)
        self.bold.setBold(True)
        self.metrics = QFontMetrics(self.font)
        self.line = self.metrics.lineSpacing()
        self.cell_width = max([self._map_size(p).width() for p in self.panels] + [320])

    @staticmethod
    def _map_size(panel: ScorerPanel) -> QSize:
        return panel.heatmap.size() if panel.heatmap is not None else QSize(0, 0)

    def _cell_height(self, panel: ScorerPanel) -> int:
        coverage = panel.coverage.height() if panel.coverage is not None else 0
        return self.line + self._map_size(panel).height() + coverage + 2 * TEXT_LINES * self.line + GAP

    def _rows(self) -> list[list[ScorerPanel]]:
        return [self.panels[i:i + COLUMNS] for i in range(0, len(self.panels), COLUMNS)]

    def size(self) -> QSize:
        columns = min(COLUMNS, max(1, len(self.panels)))
        height = 2 * self.line + GAP + sum(max(self._cell_height(p) for p in row) for row in self._rows())
        return QSize(GAP + columns * (self.cell_width + GAP), height + GAP)

    def paint(self, painter: QPainter) -> None:
        """Draw the figure from (0, 0) on ``painter`` (a white page)."""
        size = self.size()
        painter.fillRect(QRect(QPoint(0, 0), size), QColor("white"))
        painter.setPen(QColor("black"))
        painter.setFont(self.bold)
        painter.drawText(QRect(GAP, GAP // 2, size.width() - 2 * GAP, self.line), Qt.AlignmentFlag.AlignLeft,
                         self.metrics.elidedText(self.sentence, Qt.TextElideMode.ElideRight, size.width() - 2 * GAP))
        y = GAP + 2 * self.line
        for row in self._rows():
            for column, panel in enumerate(row):
                self._paint_cell(painter, panel, QPoint(GAP + column * (self.cell_width + GAP), y))
            y += max(self._cell_height(p) for p in row)

    def _paint_cell(self, painter: QPainter, panel: ScorerPanel, at: QPoint) -> None:
        x, y, width = at.x(), at.y(), self.cell_width
        painter.setFont(self.bold)
        title = panel.slot.label + (f" · {panel.slot.past}" if panel.slot.past else "")
        painter.drawText(QRect(x, y, width, self.line), Qt.AlignmentFlag.AlignLeft,
                         self.metrics.elidedText(title, Qt.TextElideMode.ElideRight, width))
        y += self.line
        for part in (panel.heatmap, panel.coverage):
            if part is not None and part.isVisibleTo(panel):
                QWidget.render(part, painter, QPoint(x, y))  # the widget as drawn (not QGraphicsView's scene render)
                y += part.height()
        painter.setFont(self.font)
        texts = _lines(panel.output_text, self.metrics, width, TEXT_LINES)
        for text in texts + _lines(panel.numbers.text(), self.metrics, width, TEXT_LINES):
            painter.drawText(QRect(x, y, width, self.line), Qt.AlignmentFlag.AlignLeft,
                             self.metrics.elidedText(text, Qt.TextElideMode.ElideRight, width))
            y += self.line


def _lines(text: str, metrics: QFontMetrics, width: int, count: int) -> list[str]:
    """``text`` broken into at most ``count`` lines of ``width`` pixels at spaces (the last one elided)."""
    lines, words = [], text.split(" ")
    current = ""
    for word in words:
        candidate = f"{current} {word}".strip()
        if metrics.horizontalAdvance(candidate) <= width or not current:
            current = candidate
        else:
            lines.append(current)
            current = word
    lines.append(current)
    return lines[:count - 1] + [" ".join(lines[count - 1:])] if len(lines) > count else lines
