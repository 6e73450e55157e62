"""The outline that shows the learner where to look: drawn for a moment around a widget, on top of
its window, letting every click through."""

from __future__ import annotations

from PySide6.QtCore import QRect, Qt, QTimer
from PySide6.QtGui import QColor, QPainter, QPaintEvent, QPen
from PySide6.QtWidgets import QScrollArea, QWidget

FLASH_MS = 2200
COLOR = QColor("#ff8c00")
WIDTH = 4


def _scroll_areas(widget: QWidget) -> list[QScrollArea]:
    areas = []
    parent = widget.parentWidget()
    while parent is not None:
        if isinstance(parent, QScrollArea):
            areas.append(parent)
        parent = parent.parentWidget()
    return areas


class Outline(QWidget):
    """An orange frame over ``target`` (a child of its window), gone after FLASH_MS."""

    def __init__(self, target: QWidget) -> None:
        for area in _scroll_areas(target):  # a widget scrolled out of view is brought into it first
            area.ensureWidgetVisible(target)
        window = target.window()
        super().__init__(window)
        self.setObjectName("lessonOutline")
        self.target_name = target.objectName()
        self.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
        self.setAttribute(Qt.WidgetAttribute.WA_NoSystemBackground)
        visible = target.visibleRegion().boundingRect()  # the part on screen: not what a scroll area hides
        if visible.isEmpty():
            visible = target.rect()
        top_left = target.mapTo(window, visible.topLeft())
        self.setGeometry(QRect(top_left, visible.size()).adjusted(-WIDTH, -WIDTH, WIDTH, WIDTH)
                         .intersected(window.rect()))
        self.show()
        self.raise_()
        QTimer.singleShot(FLASH_MS, self.deleteLater)

    def paintEvent(self, event: QPaintEvent) -> None:  # noqa: N802 - Qt override
        painter = QPainter(self)
        painter.setPen(QPen(COLOR, WIDTH))
        half = WIDTH // 2
        painter.drawRoundedRect(self.rect().adjusted(half, half, -half, -half), 6, 6)
