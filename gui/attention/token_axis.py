"""A heatmap axis of token labels that may stand upright: the column labels of a long input.

Written horizontally, a column label needs its whole width per column; a 15-token sentence
already had room for only every other one. When the labels do not fit side by side, the top
axis turns them (as Joey NMT's and Seq2Seq-Vis's attention plots do): a label then needs one line
height per column. Chinese labels are stacked character under character, upright, as vertical
Chinese is written; others are rotated to read bottom to top. The axis grows to the longest label.

The ticks and labels come from :meth:`pyqtgraph.AxisItem.setTicks` as for any axis; this class
only lays them out and draws them (pyqtgraph's own layout drops labels that stick out at the
ends of the axis, and cannot turn them).

Labels may stand past the axis' rectangle: half a label at either end, and across the axis when
the layout gives it less room than its labels need (a small map, or before a new height is laid
out). The axis' bounding rectangle covers all of that (:meth:`TokenAxis.boundingRect`): the view
repaints only what items say they cover, so a label drawn outside it stayed on screen after the
next input as a half-clipped ghost row above the map.
"""

from __future__ import annotations

import math

import pyqtgraph as pg
from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QFont, QFontInfo, QFontMetrics

from engine.text import is_han

TEXT_OFFSET = 4  # pixels between the axis line and its labels
LINE_EMS = 1.2  # a one-line label's extent across its text, in ems: the glyphs' height, without the
# leading of the font's line spacing (1.45 em for Noto Sans CJK, which would space rows a third wider)
STACK_EMS = 1.1  # one character of a stacked (upright Chinese) label
UPRIGHT_PUNCTUATION = frozenset("，。、；：？！“”‘’（）《》【】…—")
MARKS = ("##", "✎", "◉")  # a continuation or what-if mark before a label: its own line when stacked
DRAW_PAD = 4  # pixels: a glyph may reach this far past its label's rectangle (stacked lines are drawn 4 px wider)


def stack_lines(label: str, narrow: int = 0) -> list[str] | None:
    """The lines of a label drawn upright, one character under the other (Chinese characters only,
    after any marks, which take a line of their own), or a label of one or two characters on one
    line (a digit, a comma: turned, ``6`` reads as ``9``) when ``narrow`` (pixels) fits it; None
    for a label to rotate instead."""
    mark = next((m for m in MARKS if label.startswith(m)), "")
    rest = label[len(mark):]
    if rest and all(is_han(ch) or ch in UPRIGHT_PUNCTUATION for ch in rest):
        return ([mark] if mark else []) + list(rest)
    if 0 < len(label) <= 2 and narrow:
        return [label]
    return None


class TokenAxis(pg.AxisItem):
    """An axis of token labels (``top`` or ``left``), upright or turned (:meth:`set_vertical`)."""

    def __init__(self, orientation: str, font: QFont) -> None:
        super().__init__(orientation)
        self.label_font = QFont(font)
        self.metrics = QFontMetrics(self.label_font)
        em = QFontInfo(self.label_font).pixelSize() or self.metrics.height() / 1.45
        self.line = math.ceil(em * LINE_EMS)  # a one-line label's extent across its text
        self.stack_line = math.ceil(em * STACK_EMS)
        self.vertical = False  # top axis: labels turned (stacked or rotated)
        self._shown: list[str] = []  # the labels of the ticks given (setTicks)
        self._reach = (0, 0)  # pixels the labels need along the axis (half the widest) and across it

    def setTicks(self, ticks) -> None:  # noqa: N802 (pyqtgraph's name)
        self._shown = [label for level in ticks or () for _value, label in level]
        self._update_reach()
        super().setTicks(ticks)

    def _update_reach(self) -> None:
        """How far the labels given can reach, so that :meth:`boundingRect` covers them all."""
        along = max((self.label_extent(label) for label in self._shown), default=0)
        if self.orientation == "left":
            across = max((self.metrics.horizontalAdvance(label) for label in self._shown), default=0)
        else:
            across = max((self.label_length(label) for label in self._shown), default=0) if self.vertical else self.line
        reach = (math.ceil(along / 2) + DRAW_PAD, across + TEXT_OFFSET + DRAW_PAD)
        if reach != self._reach:
            self.prepareGeometryChange()  # the view repaints the old rectangle and the new one
            self._reach = reach

    def boundingRect(self) -> QRectF:  # noqa: N802 (Qt's name)
        """pyqtgraph's rectangle, grown to hold every label as drawn: half a label past either end,
        and across the axis as far as the longest label reaches from it."""
        rect = super().boundingRect()
        inner = self.mapRectFromParent(self.geometry())
        along, across = self._reach
        if self.orientation == "left":
            return rect.adjusted(-max(0.0, across - inner.width()), -along, 0, along)
        return rect.adjusted(-along, -max(0.0, across - inner.height()), along, 0)

    def set_vertical(self, vertical: bool, labels: list[str]) -> None:
        """Turn the top axis' labels (or not) and make the axis as tall as its longest label."""
        self.vertical = vertical
        self._update_reach()
        extent = max((self.label_length(label) for label in labels), default=0) if vertical else self.line
        height = max(20, extent + TEXT_OFFSET + 6)
        if self.fixedHeight != height:
            self.setHeight(height)
        self.picture = None
        self.update()

    def label_length(self, label: str) -> int:
        """How far a turned label reaches away from the axis."""
        lines = self.stack_lines(label)
        if lines is not None:
            return sum(self._line_length(line) for line in lines)
        return self.metrics.horizontalAdvance(label)

    def _turned_line(self, line: str) -> bool:
        """A line of a stacked label wider than a column (a mark such as ``##``): drawn turned."""
        return len(line) > 1 and self.metrics.horizontalAdvance(line) > self.line

    def _line_length(self, line: str) -> int:
        return self.metrics.horizontalAdvance(line) if self._turned_line(line) else self.stack_line

    def stack_lines(self, label: str) -> list[str] | None:
        """How a turned label is drawn upright (see :func:`stack_lines`); None: rotated."""
        if len(label) <= 2 and self.metrics.horizontalAdvance(label) > self.line:
            return stack_lines(label)
        return stack_lines(label, self.line)

    def label_extent(self, label: str) -> int:
        """How much room a label takes along the axis as currently drawn."""
        if self.orientation == "top" and not self.vertical:
            return self.metrics.horizontalAdvance(label)
        return self.label_extent_turned(label)

    def label_extent_turned(self, label: str) -> int:
        """How much room a label takes along the axis when turned upright (one line on the left axis)."""
        lines = self.stack_lines(label) if self.orientation == "top" else None
        if lines is not None:
            return max(self.line if self._turned_line(line) else self.metrics.horizontalAdvance(line)
                       for line in lines)
        return self.line

    def label_rect(self, position: float, label: str) -> QRectF:
        """The label's rectangle in this axis' coordinates, its tick at ``position`` (x on the top
        axis, y on the left one): centred on its tick, and moved in where that would put part of it
        past either end of the axis (the first and last column of a fitted long input)."""
        bounds = self.mapRectFromParent(self.geometry())
        extent = self.label_extent(label)
        if self.orientation == "left":
            width = self.metrics.horizontalAdvance(label)
            top = _inside(position - extent / 2, extent, bounds.top(), bounds.bottom())
            return QRectF(bounds.right() - TEXT_OFFSET - width, top, width, extent)
        length = self.label_length(label) if self.vertical else self.line
        left = _inside(position - extent / 2, extent, bounds.left(), bounds.right())
        return QRectF(left, bounds.bottom() - TEXT_OFFSET - length, extent, length)

    def tick_position(self, value: float) -> float:
        """Where the tick of ``value`` lies along this axis, in its own coordinates."""
        view = self.linkedView()
        if view is None:
            return 0.0
        scene = view.mapViewToScene(QPointF(value, value))
        local = self.mapFromScene(scene)
        return local.x() if self.orientation == "top" else local.y()

    def generateDrawSpecs(self, p):  # noqa: N802 (pyqtgraph's name)
        shows_values = self.style["showValues"]
        self.style["showValues"] = False  # the line and ticks from pyqtgraph, the labels from here
        try:
            specs = super().generateDrawSpecs(p)
        finally:
            self.style["showValues"] = shows_values
        if specs is None or not shows_values or not self._tickLevels:
            return specs
        axis_spec, tick_specs, _ = specs
        bounds = self.mapRectFromParent(self.geometry())
        low, high = (bounds.left(), bounds.right()) if self.orientation == "top" else (bounds.top(), bounds.bottom())
        texts = []
        for value, label in self._tickLevels[0]:
            position = self.tick_position(value)
            if low - 0.5 <= position <= high + 0.5:
                texts.append((self.label_rect(position, label), label))
        return axis_spec, tick_specs, texts

    def drawPicture(self, p, axisSpec, tickSpecs, textSpecs):  # noqa: N802,N803 (pyqtgraph's names)
        super().drawPicture(p, axisSpec, tickSpecs, [])
        p.setFont(self.label_font)
        p.setPen(self.textPen())
        p.setClipping(False)  # a label at either end may stand past the axis' own rectangle
        keep = Qt.TextFlag.TextDontClip  # a glyph may reach past its rectangle's tight height
        for rect, label in textSpecs:
            lines = self.stack_lines(label) if self.vertical else None
            if self.orientation == "left":
                p.drawText(rect, int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter | keep), label)
            elif not self.vertical:
                p.drawText(rect, int(Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignVCenter | keep), label)
            elif lines is not None:
                top = rect.top()
                for line in lines:
                    length = self._line_length(line)
                    if self._turned_line(line):
                        self._draw_turned(p, QRectF(rect.left(), top, rect.width(), length), line)
                    else:
                        p.drawText(QRectF(rect.left() - 4, top, rect.width() + 8, length),
                                   int(Qt.AlignmentFlag.AlignCenter | keep), line)
                    top += length
            else:
                self._draw_turned(p, rect, label)

    def _draw_turned(self, p, rect: QRectF, text: str) -> None:
        """``text`` rotated to read bottom to top, starting at ``rect``'s bottom."""
        p.save()
        p.translate(rect.center())
        p.rotate(-90)
        length, extent = rect.height(), rect.width()
        p.drawText(QRectF(-length / 2, -extent / 2, length, extent),
                   int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter | Qt.TextFlag.TextDontClip), text)
        p.restore()


def _inside(start: float, extent: float, low: float, high: float) -> float:
    """``start`` moved so that [start, start + extent] lies within [low, high] (as far as it can)."""
    return max(low, min(start, high - extent))
