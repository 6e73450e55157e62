"""A read-only line of sub-word tokens: each token tinted so the split is visible, hover and
click report the token, one token can be highlighted, and some marked with a wavy underline (the
source pieces of words the model never saw in training: gui/translate/unseen_words.py).

Used for the source tokens under the input and for the output (``targetOutput``), whose plain
text is the translation as decoded so far (``text()`` and ``toPlainText()`` both give it).
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable, Sequence

from PySide6.QtCore import QPoint, Qt, Signal
from PySide6.QtGui import QColor, QMouseEvent, QPalette, QTextCharFormat, QTextCursor
from PySide6.QtWidgets import QFrame, QTextEdit, QWidget

from gui.attention.labels import join_pieces


class TokenStrip(QTextEdit):
    """Shows pieces as running text with alternating tints per token."""

    tokenHovered = Signal(int)  # token index under the pointer, -1 when none
    tokenClicked = Signal(int)

    def __init__(self, parent: QWidget | None = None, lines: int = 2) -> None:
        super().__init__(parent)
        self.setReadOnly(True)
        self.setMouseTracking(True)
        self.viewport().setMouseTracking(True)
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setLineWrapMode(QTextEdit.LineWrapMode.WidgetWidth)
        self.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.setFixedHeight(self.fontMetrics().lineSpacing() * lines + 2 * self.frameWidth() + 10)
        self._pieces: list[str] = []
        self._spans: list[tuple[int, int]] = []
        self._starts: list[int] = []
        self._text = ""
        self._hovered = -1
        self._highlighted = -1
        base = self.palette().color(QPalette.ColorRole.Base)
        dark = base.lightness() < 128
        self._tints = (QColor(70, 90, 120) if dark else QColor(224, 234, 248),
                       QColor(90, 75, 110) if dark else QColor(246, 232, 214))
        self._highlight = QColor(255, 170, 40)
        self._marked: set[int] = set()  # tokens underlined (set_marked)

    # -- data -------------------------------------------------------------------------------
    def set_pieces(self, pieces: Sequence[str]) -> None:
        """Show ``pieces``; appends when they extend what is shown, else redraws."""
        pieces = list(pieces)
        extends = pieces[: len(self._pieces)] == self._pieces and len(pieces) >= len(self._pieces)
        text, spans = join_pieces(pieces)
        if not (extends and text.startswith(self._text)):
            self.clear()
            self._text, self._pieces, self._spans, self._marked = "", [], [], set()
        cursor = QTextCursor(self.document())
        cursor.movePosition(QTextCursor.MoveOperation.End)
        cursor.beginEditBlock()  # one layout pass for all the new tokens
        for index in range(len(self._pieces), len(pieces)):
            start, end = spans[index]
            if end > start:
                cursor.insertText(text[start:end], self._format(index))
        cursor.endEditBlock()
        self._pieces, self._spans, self._text = pieces, spans, text
        self._starts = [start for start, _ in spans]
        if self._highlighted >= len(pieces):
            self.highlight(-1)

    def pieces(self) -> list[str]:
        return list(self._pieces)

    def text(self) -> str:
        """The running text shown (the translation so far, without the end-of-sentence mark)."""
        return self._text

    def toPlainText(self) -> str:
        return self._text

    def _format(self, index: int) -> QTextCharFormat:
        fmt = QTextCharFormat()
        fmt.setBackground(self._tints[index % 2])
        if index in self._marked:
            fmt.setUnderlineStyle(QTextCharFormat.UnderlineStyle.SpellCheckUnderline)
            fmt.setUnderlineColor(QColor(200, 30, 30))
        return fmt

    def set_marked(self, indices: Iterable[int]) -> None:
        """Underline tokens ``indices`` with a wavy line (as a spelling checker marks a word); the
        others lose theirs. Kept until the next redraw of other pieces."""
        marked = {index for index in indices if 0 <= index < len(self._spans)}
        changed, self._marked = marked ^ self._marked, marked
        cursor = QTextCursor(self.document())
        cursor.beginEditBlock()
        for index in sorted(changed):
            start, end = self._spans[index]
            if end > start:
                cursor.setPosition(start)
                cursor.setPosition(end, QTextCursor.MoveMode.KeepAnchor)
                cursor.setCharFormat(self._format(index))
        cursor.endEditBlock()

    def marked(self) -> list[int]:
        """The underlined tokens, in order."""
        return sorted(self._marked)

    # -- highlight --------------------------------------------------------------------------
    def highlight(self, index: int) -> None:
        """Emphasize token ``index`` (-1 clears)."""
        self._highlighted = index
        selections = []
        if 0 <= index < len(self._spans) and self._spans[index][1] > self._spans[index][0]:
            selection = QTextEdit.ExtraSelection()
            cursor = QTextCursor(self.document())
            cursor.setPosition(self._spans[index][0])
            cursor.setPosition(self._spans[index][1], QTextCursor.MoveMode.KeepAnchor)
            selection.cursor = cursor
            selection.format.setBackground(self._highlight)
            selection.format.setForeground(QColor(0, 0, 0))
            selections.append(selection)
            visible = QTextCursor(cursor)
            visible.clearSelection()  # scroll to the token without selecting it
            self.setTextCursor(visible)
            self.ensureCursorVisible()
        self.setExtraSelections(selections)

    # -- pointer ----------------------------------------------------------------------------
    def token_at(self, point: QPoint) -> int:
        """Index of the token under a viewport position, -1 for none."""
        offset = QPoint(self.horizontalScrollBar().value(), self.verticalScrollBar().value())
        position = self.document().documentLayout().hitTest(point + offset, Qt.HitTestAccuracy.ExactHit)
        if position < 0 or not self._spans:
            return -1
        index = bisect.bisect_right(self._starts, position) - 1
        while index > 0 and self._spans[index][0] == self._spans[index][1]:
            index -= 1  # empty spans (end mark, a lone word-start piece) are not under the pointer
        if 0 <= index < len(self._spans) and self._spans[index][0] <= position < self._spans[index][1]:
            return index
        return -1

    def mouseMoveEvent(self, event: QMouseEvent) -> None:
        index = self.token_at(event.position().toPoint())
        if index != self._hovered:
            self._hovered = index
            self.tokenHovered.emit(index)
        super().mouseMoveEvent(event)

    def mousePressEvent(self, event: QMouseEvent) -> None:
        index = self.token_at(event.position().toPoint())
        if index >= 0 and event.button() == Qt.MouseButton.LeftButton:
            self.tokenClicked.emit(index)
        super().mousePressEvent(event)

    def leaveEvent(self, event) -> None:
        if self._hovered != -1:
            self._hovered = -1
            self.tokenHovered.emit(-1)
        super().leaveEvent(event)
