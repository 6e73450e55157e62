"""The Lesson dock and its button: the panel below the views it drives (a chapter's text is read
beside the heatmap it talks about), hidden until the Lesson button beside the tabs is pressed."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDockWidget, QHBoxLayout, QMainWindow, QPushButton, QTabWidget, QWidget

from gui.lesson.panel import LessonPanel

DOCK_HEIGHT = 230  # the chapter's text, Show me and Try it; 1280×720 keeps the maps above it readable


class LessonDock(QDockWidget):
    """The Lesson panel as a dock of the main window (objectName ``lessonDock``)."""

    def __init__(self, panel: LessonPanel, window: QMainWindow) -> None:
        super().__init__(self.tr("Lesson"), window)
        self.setObjectName("lessonDock")
        self.panel = panel
        self.setWidget(panel)
        self.setAllowedAreas(Qt.DockWidgetArea.BottomDockWidgetArea | Qt.DockWidgetArea.TopDockWidgetArea)
        self.setFeatures(QDockWidget.DockWidgetFeature.DockWidgetClosable
                         | QDockWidget.DockWidgetFeature.DockWidgetMovable)
        panel.setMinimumHeight(150)
        window.addDockWidget(Qt.DockWidgetArea.BottomDockWidgetArea, self)
        window.resizeDocks([self], [DOCK_HEIGHT], Qt.Orientation.Vertical)
        self.hide()
        self.button = QPushButton(self.tr("Lesson"))
        self.button.setObjectName("lessonButton")
        self.button.setCheckable(True)
        self.button.setToolTip(self.tr("A guided path through attention, chapter by chapter, driving the app"))
        self.button.toggled.connect(self.setVisible)
        self.visibilityChanged.connect(lambda _visible: self.button.setChecked(not self.isHidden()))

    def place_button(self, tabs: QTabWidget) -> None:
        """Put the Lesson button right of the tabs, before what the tab bar's corner already holds."""
        corner = QWidget()
        row = QHBoxLayout(corner)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.button)
        beside = tabs.cornerWidget(Qt.Corner.TopRightCorner)
        if beside is not None:
            row.addWidget(beside)
        tabs.setCornerWidget(corner, Qt.Corner.TopRightCorner)
        if beside is not None:
            beside.show()  # the tab widget hides the corner widget it lets go of
