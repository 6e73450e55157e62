"""The outline that shows the learner where to look: drawn for a moment around a widget, on top of
its window, letting every click through."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, QRect, Qt, QTimer
from PySide6.QtGui import QColor, QPainter, QPaintEvent, QPen
from PySide6.QtWidgets import QScrollArea, QWidget
from shiboken6 import isValid

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
    """An orange frame over ``target`` (a child of its window), gone after FLASH_MS, when ``target`` is
    hidden (another tab chosen) or when the next outline is drawn: one at a time."""

    current: Outline | None = None

    def __init__(self, target: QWidget) -> None:
        if Outline.current is not None and isValid(Outline.current):
            Outline.current.close_now()
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
        self.target = target
        target.installEventFilter(self)
        Outline.current = self
        self.show()
        self.raise_()
        QTimer.singleShot(FLASH_MS, self.close_now)

    def close_now(self) -> None:
        if Outline.current is self:
            Outline.current = None
        if self.target is not None and isValid(self.target):
            self.target.removeEventFilter(self)
        self.target = None
        self.hide()
        self.deleteLater()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt override
        if event.type() == QEvent.Type.Hide:
            self.close_now()
        return False

    def paintEvent(self, event: QPaintEvent) -> None:  # noqa: N802 - Qt override
        painter = QPainter(self)
        painter.setPen(QPen(COLOR, WIDTH))
        half = WIDTH // 2
        painter.drawRoundedRect(self.rect().adjusted(half, half, -half, -half), 6, 6)
