"""Where the attention panel's hover line goes: in the bar under the map while the bar has room for it,
on a row of its own under the map when it has not.

The bar under the map holds the map chooser, the view switches, the head chooser (a mechanism of several
heads) and a tab's own tools (the Translate tab's Layers button). For a Transformer at 1280×800 they take
the whole width, and the hover line — the weight under the pointer and the two tokens it joins — would be
squeezed to nothing. The line then moves to its own row between the map and the bar, and comes back into
the bar when the map side widens (a wider window, the splitter moved, a one-head model). The decision reads
only the other widgets' size hints and the page's width, so moving the line never changes it.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject
from PySide6.QtWidgets import QBoxLayout, QLabel, QWidget

HOVER_LINE_MIN_WIDTH = 360  # px the hover line needs in the bar: a cell's line whole, the hint's first clauses


def widths_left(page_width: int, bar: QBoxLayout, line: QLabel) -> int:
    """The px the bar leaves the hover line: the page's width less every other visible item's size hint, the
    spacing between them and the bar's margins."""
    used, items = 0, 0
    for index in range(bar.count()):
        item = bar.itemAt(index)
        widget = item.widget()
        if widget is line:
            continue
        if widget is not None and not widget.isVisibleTo(widget.parentWidget()):
            continue
        used += item.sizeHint().width()
        items += 1
    margins = bar.contentsMargins()
    return page_width - used - max(bar.spacing(), 0) * items - margins.left() - margins.right()


class HoverLinePlacement(QObject):
    """Keeps ``line`` in ``bar`` (at ``index``, stretching) or in ``own_row``, whichever :func:`widths_left`
    allows, as ``page`` resizes and whenever :meth:`update` is called (a widget of the bar shown or hidden)."""

    def __init__(self, page: QWidget, bar: QBoxLayout, own_row: QBoxLayout, line: QLabel, index: int) -> None:
        super().__init__(page)
        self.page, self.bar, self.own_row, self.line, self.index = page, bar, own_row, line, index
        self.in_bar = True
        page.installEventFilter(self)
        for index_in_bar in range(bar.count()):
            widget = bar.itemAt(index_in_bar).widget()
            if widget is not None and widget is not line:
                widget.installEventFilter(self)  # shown or hidden: the room left changes

    def watch(self, widget: QWidget) -> None:
        """A widget added to the bar later (a tab's own tool)."""
        widget.installEventFilter(self)
        self.update()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt's name)
        if event.type() in (QEvent.Type.Resize, QEvent.Type.Show, QEvent.Type.Hide):
            self.update()
        return False

    def update(self) -> None:
        fits = widths_left(self.page.width(), self.bar, self.line) >= HOVER_LINE_MIN_WIDTH
        if fits == self.in_bar:
            return
        if fits:
            self.own_row.removeWidget(self.line)
            self.bar.insertWidget(self.index, self.line, 1)
        else:
            self.bar.removeWidget(self.line)
            self.own_row.addWidget(self.line, 1)
        self.in_bar = fits
