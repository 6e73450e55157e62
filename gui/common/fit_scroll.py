"""A scroll area whose widget fills the view while its minimum size fits, and scrolls once it does not.

``QScrollArea.setWidgetResizable`` sizes a widget whose layout has a height-for-width (word-wrapped
titles) at its *preferred* height: a grid of maps would then always be as tall as it would like to
be, and scroll even on a screen with room for it at its minimum. Here the widget takes the view's
width and the larger of the view's height and its own minimum height, so that the window never grows
past the screen and nothing scrolls while everything fits.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtWidgets import QFrame, QScrollArea, QWidget


class FitScrollArea(QScrollArea):
    """Vertical scrolling only, and only when the widget's minimum height exceeds the view's."""

    def __init__(self, widget: QWidget, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWidgetResizable(False)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setWidget(widget)
        widget.installEventFilter(self)

    def fit(self) -> None:
        widget = self.widget()
        if widget is None:
            return
        view = self.viewport().size()
        width = view.width()
        height = max(view.height(), widget.minimumSizeHint().height())
        if height > view.height() and self.verticalScrollBar().isHidden():
            width -= self.verticalScrollBar().sizeHint().width()  # the bar is about to take its room
        widget.resize(width, height)

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self.fit()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.widget() and event.type() == QEvent.Type.LayoutRequest:
            self.fit()
        return False

    def minimumSizeHint(self):
        hint = super().minimumSizeHint()
        widget = self.widget()
        if widget is not None:
            hint.setWidth(max(hint.width(), widget.minimumSizeHint().width()))
        return hint
