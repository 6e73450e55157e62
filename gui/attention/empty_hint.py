"""The hint an empty map shows in place of its grid: a pyqtgraph TextItem wrapped to the view's
width and centred in the view, so that a narrow map shows it whole (gui/attention/heatmap.py)."""

from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QTextOption


class EmptyHint(pg.TextItem):
    """A centred, word-wrapped line of text over ``view`` (the map's ViewBox), placed again by :meth:`wrap`."""

    def __init__(self, text: str, color: QColor, view: pg.ViewBox) -> None:
        super().__init__(text, color=color, anchor=(0.5, 0.5))
        self._view = view
        self.setPos(0, 0)
        option = QTextOption(Qt.AlignmentFlag.AlignHCenter)
        option.setWrapMode(QTextOption.WrapMode.WordWrap)
        self.textItem.document().setDefaultTextOption(option)

    def show_text(self, text: str) -> None:
        """Say ``text``, wrapped to the view as it is now."""
        self.setText(text)
        self.wrap()

    def wrap(self) -> None:
        """Wrap to 90 % of the view's width (at least 80 pixels) and centre in what the view shows."""
        width = self._view.width()
        self.textItem.setTextWidth(max(80.0, width * 0.9) if width > 0 else -1)
        self.setPos(self._view.viewRect().center())
        self.updateTextPos()
