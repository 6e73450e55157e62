"""Every window opens inside the screen: one helper for the main window and every dialog.

A window asks for the size it reads best at (the main window 1280×860, the Length study
1100×820, …); :func:`fit_to_screen` gives it that size, or less where the screen's *available*
geometry — the screen less its panels, docks and task bars, ``QScreen.availableGeometry()`` — is
smaller, leaving room for the title bar and borders a window manager adds (``FRAME_ALLOWANCE``,
before the real ones are known). Whenever the window is shown it is kept there
(:func:`keep_on_screen`): a geometry restored from a larger screen, or a dialog centred over a parent
near the edge, is moved back inside and, if it still does not fit, shrunk (never below the minimum
size its layout needs). The arithmetic is plain functions of rectangles (:func:`fitted_size`,
:func:`moved_inside`), tested with any screen.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QMargins, QObject, QPoint, QRect, QSize, Qt, QTimer
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QWidget

FRAME_ALLOWANCE = QMargins(8, 40, 8, 8)  # left, top (title bar), right, bottom: a window manager's frame


def fitted_size(wanted: QSize, available: QRect, frame: QMargins = FRAME_ALLOWANCE) -> QSize:
    """``wanted``, bounded so that the window and a frame of ``frame`` fit in ``available``."""
    room = QSize(available.width() - frame.left() - frame.right(), available.height() - frame.top() - frame.bottom())
    return wanted.boundedTo(room)


def moved_inside(frame: QRect, available: QRect) -> QRect:
    """``frame`` moved the least that puts it inside ``available`` (and shrunk to it when larger)."""
    size = frame.size().boundedTo(available.size())
    x = min(max(frame.x(), available.left()), available.left() + available.width() - size.width())
    y = min(max(frame.y(), available.top()), available.top() + available.height() - size.height())
    return QRect(QPoint(x, y), size)


def available_geometry(window: QWidget) -> QRect:
    """The available geometry of the screen ``window`` is (or will be) on."""
    screen = window.screen() or QGuiApplication.primaryScreen()
    return screen.availableGeometry()


def fit_to_screen(window: QWidget, width: int, height: int) -> QSize:
    """Resize ``window`` to ``width`` × ``height``, or less where its screen is smaller, and keep it
    inside the screen whenever it is shown. Returns the size given."""
    size = fitted_size(QSize(width, height), available_geometry(window))
    window.resize(size)
    keep_on_screen(window)
    return size


def keep_on_screen(window: QWidget) -> None:
    """Whenever ``window`` is shown, move (and if need be shrink) its frame into the screen's
    available geometry (once per window; further calls do nothing)."""
    if window.findChild(_ScreenKeeper, options=Qt.FindChildOption.FindDirectChildrenOnly) is None:
        window.installEventFilter(_ScreenKeeper(window))


def put_inside(window: QWidget) -> None:
    """Move ``window``'s frame into its screen's available geometry now, shrinking the window
    when its frame is larger (down to its minimum size)."""
    if not window.isWindow():
        return
    available = available_geometry(window)
    frame = window.frameGeometry()
    target = moved_inside(frame, available)
    if target == frame:
        return
    if target.size() != frame.size():
        extra = frame.size() - window.geometry().size()  # the frame's borders and title bar
        window.resize(target.size() - extra)  # never below the window's minimum size
        target = moved_inside(QRect(frame.topLeft(), window.size() + extra), available)
    window.move(target.topLeft())


class _ScreenKeeper(QObject):
    """Puts its window inside the screen at each show (once the show has placed it)."""

    def __init__(self, window: QWidget) -> None:
        super().__init__(window)
        self.setObjectName("screenKeeper")
        self._window = window

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self._window and event.type() == QEvent.Type.Show:
            put_inside(self._window)  # at once: no frame drawn off-screen first
            QTimer.singleShot(0, self._again)  # and after the window manager has framed it
        return False

    def _again(self) -> None:
        if self._window.isVisible():
            put_inside(self._window)

