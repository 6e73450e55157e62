"""The frames of a decode's animation (gui.attention.animation), painted one at a time off-screen.

Frame k shows rows 0..k of α (the newest outlined), the source tokens along the top (Chinese ones upright,
one character under another, as the map stacks them), the output tokens down the side, the colour bar
on the right and the output so far as text underneath. The tokens are the map's labels, in its view:
words, or pieces with their ``##`` marks (gui/attention/recording.py). Every frame has the same size, so
the video does not jump, and that size is capped (MAX_FRAME_WIDTH × MAX_FRAME_HEIGHT): a long
decode gets smaller cells, and its labels are drawn every few rows or columns where the cells are
smaller than a line of text.

Threads: :class:`FramePainter` paints with QPainter on a QImage only — never a widget — from
immutable data (the animation's tokens, its α matrix and a palette as numpy bytes), which Qt allows
outside the GUI thread; the recordings run it in a worker. It keeps one canvas with the rows drawn
so far and adds a row per frame, so a frame costs one row of cells, a copy and the outline.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from PySide6.QtCore import QCoreApplication, QRectF, Qt
from PySide6.QtGui import QColor, QFont, QFontMetrics, QImage, QPainter, QPen

from gui.attention.labels import axis_label, join_pieces
from gui.attention.token_axis import stack_lines

if TYPE_CHECKING:
    from gui.attention.animation import Animation

FRAME_WIDTH = 960  # the frame's width when the cells fit at their largest
MAX_FRAME_WIDTH = 1280
MAX_FRAME_HEIGHT = 1280
CELL_RANGE = (10, 40)  # pixels per cell, smallest and largest, where the frame's cap allows
LABEL_PITCH = 12  # a label needs this many pixels of its axis; smaller cells label every few rows
LABEL_LIMIT = 150  # pixels of a token label at most (longer ones are elided)
MARGIN = 16
BAR_SPACE = 64  # pixels right of the grid for the colour bar: a gap, the bar, its values
BAR_WIDTH = 14
OUTPUT_LINES = 3  # lines of the output text under the map
EMPTY_CELL = QColor("#eeeeee")
CURRENT_ROW = QColor("#ff7f0e")
TEXT = QColor("#303030")


@dataclass(frozen=True)
class FrameLayout:
    """Where the map lies in a frame: cells of ``cell`` pixels (fractional when the cap shrinks
    them) from (``left``, ``top``); frames ``width`` × ``height``, both even (video encoders need it)."""

    cell: float
    left: int
    top: int
    width: int
    height: int
    row_labels: int  # a label every this many rows
    column_labels: int  # a label every this many columns


def frame_layout(animation: Animation, font: QFont) -> FrameLayout:
    """Where the labels and the grid of an animation's frames go, measured with ``font``."""
    metrics = QFontMetrics(font)
    label = lambda text: min(metrics.horizontalAdvance(axis_label(text)), LABEL_LIMIT)  # noqa: E731

    def column_extent(text: str) -> int:  # a Chinese label stands upright, one character under another
        lines = stack_lines(axis_label(text))
        return len(lines) * stack_pitch(metrics) if lines else label(text)

    left = MARGIN + max((label(t) for t in animation.target_tokens), default=0) + 8
    top = MARGIN + metrics.height() + 8 + max((column_extent(t) for t in animation.source_tokens), default=0) + 8
    columns, rows = max(len(animation.source_tokens), 1), max(len(animation.target_tokens), 1)
    below = OUTPUT_LINES * metrics.height() + 2 * MARGIN
    right = BAR_SPACE + MARGIN
    cell = float(np.clip((FRAME_WIDTH - left - right) / columns, *CELL_RANGE))
    cell = min(cell, (MAX_FRAME_WIDTH - left - right) / columns, (MAX_FRAME_HEIGHT - top - below) / rows)
    cell = max(cell, 0.25)  # only thousands of rows or columns get here: the cap is kept by a row's overlap
    width = min(max(math.ceil(left + columns * cell + right), 480), MAX_FRAME_WIDTH)
    height = min(math.ceil(top + rows * cell + below), MAX_FRAME_HEIGHT)
    return FrameLayout(cell, left, top, width - width % 2, height - height % 2,
                       max(1, math.ceil(LABEL_PITCH / cell)), max(1, math.ceil(LABEL_PITCH / cell)))


def stack_pitch(metrics: QFontMetrics) -> int:
    """Pixels between the lines of a stacked label: a Chinese glyph (its fallback font is taller than the
    frame font's line) and a pixel."""
    return max(metrics.height(), metrics.boundingRect("我").height()) + 1


def viridis_palette() -> np.ndarray:
    """256×3 bytes of the map's colour scale (pyqtgraph's viridis), computed where the app has it."""
    import pyqtgraph as pg

    return np.ascontiguousarray(pg.colormap.get("viridis").getLookupTable(0.0, 1.0, 256, alpha=False), np.uint8)


class FramePainter:
    """Paints an animation's frames in order, each from the canvas of the rows drawn before it."""

    def __init__(self, animation: Animation) -> None:
        self.animation = animation
        self.font = QFont()
        self.font.setPixelSize(13)
        self.metrics = QFontMetrics(self.font)
        self.layout = frame_layout(animation, self.font)
        self.colours = [QColor(*map(int, rgb)) for rgb in animation.palette]
        self.canvas = QImage(self.layout.width, self.layout.height, QImage.Format.Format_RGB32)
        self.rows = 0  # rows on the canvas
        self._paint_base()

    @property
    def size(self) -> tuple[int, int]:
        return self.layout.width, self.layout.height

    def _painter(self, image: QImage) -> QPainter:
        painter = QPainter(image)
        painter.setFont(self.font)
        painter.setPen(TEXT)
        return painter

    def _paint_base(self) -> None:
        """The title, the source tokens along the top (read upwards) and every row's empty cells."""
        layout, metrics, animation = self.layout, self.metrics, self.animation
        self.canvas.fill(QColor("white"))
        painter = self._painter(self.canvas)
        try:
            painter.drawText(MARGIN, MARGIN + metrics.ascent(), animation.title)
            cell = layout.cell
            for j in range(0, len(animation.source_tokens), layout.column_labels):
                text = axis_label(animation.source_tokens[j])
                lines = stack_lines(text)
                if lines:  # upright, as the map stacks Chinese: read top to bottom, ending over the column
                    pitch = stack_pitch(metrics)
                    for k, line in enumerate(reversed(lines)):
                        painter.drawText(QRectF(layout.left + j * cell, layout.top - 6 - (k + 1) * pitch, cell, pitch),
                                         int(Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignBottom
                                             | Qt.TextFlag.TextDontClip), line)
                    continue
                painter.save()
                painter.translate(layout.left + j * cell + cell / 2 + metrics.ascent() / 2 - 2, layout.top - 6)
                painter.rotate(-90)
                painter.drawText(0, 0, metrics.elidedText(text, Qt.TextElideMode.ElideRight, LABEL_LIMIT))
                painter.restore()
            for i in range(len(animation.target_tokens)):
                self._paint_cells(painter, i, [EMPTY_CELL] * len(animation.source_tokens))
            self._paint_colour_bar(painter)
        finally:
            painter.end()

    def _paint_colour_bar(self, painter: QPainter) -> None:
        """The colour scale right of the grid, as tall as the grid (at least 80 px): 1 at the top, 0 at the
        bottom, with its values and α over it."""
        layout, metrics = self.layout, self.metrics
        x = layout.left + len(self.animation.source_tokens) * layout.cell + 12
        height = max(80.0, len(self.animation.target_tokens) * layout.cell)
        steps = len(self.colours)
        for k, colour in enumerate(self.colours):
            y = layout.top + height * (1 - (k + 1) / steps)
            painter.fillRect(QRectF(x, y, BAR_WIDTH, height / steps + 1), colour)
        painter.drawText(QRectF(x, layout.top - metrics.height() - 4, BAR_WIDTH + 30, metrics.height()), 0, "α")
        for value in (0.0, 0.5, 1.0):
            y = layout.top + height * (1 - value)
            painter.drawLine(int(x + BAR_WIDTH), int(y), int(x + BAR_WIDTH + 3), int(y))
            painter.drawText(QRectF(x + BAR_WIDTH + 5, y - metrics.height() / 2, 40, metrics.height()),
                             int(Qt.AlignmentFlag.AlignVCenter), f"{value:g}")

    def _paint_cells(self, painter: QPainter, row: int, colours: list[QColor]) -> None:
        cell, left, y = self.layout.cell, self.layout.left, self.layout.top + row * self.layout.cell
        gap = 1.0 if cell >= 4 else 0.0
        for j, colour in enumerate(colours):
            painter.fillRect(QRectF(left + j * cell, y, cell - gap, cell - gap), colour)

    def _paint_row(self, painter: QPainter, row: int) -> None:
        """Row ``row``'s cells in colour and, where its label falls, its output token."""
        values = np.clip(np.rint(self.animation.matrix[row] * 255), 0, 255).astype(np.intp)
        self._paint_cells(painter, row, [self.colours[v] for v in values])
        if row % self.layout.row_labels == 0:
            layout = self.layout
            text = self.metrics.elidedText(axis_label(self.animation.target_tokens[row]), Qt.TextElideMode.ElideRight,
                                           LABEL_LIMIT)
            middle = layout.top + (row + 0.5) * layout.cell
            painter.drawText(QRectF(MARGIN, middle - self.metrics.height() / 2, layout.left - MARGIN - 8,
                                    self.metrics.height()),
                             int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter), text)

    def frame(self, rows: int) -> QImage:
        """The frame with the first ``rows`` rows filled in (1 ≤ rows ≤ T; in order is cheapest)."""
        animation, layout = self.animation, self.layout
        if not 1 <= rows <= animation.frame_count:
            raise ValueError(f"a frame shows 1–{animation.frame_count} rows; got {rows}")
        if rows < self.rows:  # backwards: start again from the empty map
            self._paint_base()
            self.rows = 0
        if rows > self.rows:
            painter = self._painter(self.canvas)
            try:
                for row in range(self.rows, rows):
                    self._paint_row(painter, row)
            finally:
                painter.end()
            self.rows = rows
        image = self.canvas.copy()
        painter = self._painter(image)
        try:
            cell = layout.cell
            painter.setPen(QPen(CURRENT_ROW, 2))
            painter.drawRect(QRectF(layout.left - 1, layout.top + (rows - 1) * cell - 1,
                                    len(animation.source_tokens) * cell + 1, cell + 1))
            painter.setPen(TEXT)
            text_top = layout.top + len(animation.target_tokens) * cell + MARGIN
            box = QRectF(MARGIN, text_top, layout.width - 2 * MARGIN, OUTPUT_LINES * self.metrics.height())
            painter.setClipRect(box)
            painter.drawText(box, int(Qt.TextFlag.TextWordWrap), self._output_text(rows, box.width()))
        finally:
            painter.end()
        return image

    def _output_text(self, rows: int, width: float) -> str:
        """"Output: …" with the output so far; a long one keeps its end (what the newest row wrote)."""
        texts = self.animation.texts
        output = texts[rows - 1] if texts else join_pieces(list(self.animation.target_tokens[:rows]))[0]
        label = QCoreApplication.translate("FramePainter", "Output: %1")
        room = 0.9 * OUTPUT_LINES * width - self.metrics.horizontalAdvance(label.replace("%1", "…"))
        advance = self.metrics.horizontalAdvance(output)
        if advance > room > 0:
            output = "…" + output[-max(1, int(len(output) * room / advance)):]
        return label.replace("%1", output)


def rgb_bytes(image: QImage) -> np.ndarray:
    """H×W×3 bytes of ``image`` (a copy: safe once the image is gone)."""
    rgb = image.convertToFormat(QImage.Format.Format_RGB888)
    width, height, stride = rgb.width(), rgb.height(), rgb.bytesPerLine()
    data = np.frombuffer(rgb.constBits(), np.uint8, count=stride * height).reshape(height, stride)
    return data[:, : width * 3].reshape(height, width, 3).copy()
