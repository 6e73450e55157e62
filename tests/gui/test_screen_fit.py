"""Every window opens inside the screen (gui/screen_fit.py): the arithmetic on any screen, a window
kept inside the real (offscreen) screen when shown, and every window of the app on 1280×800 and
1280×720 screens — its frame inside QScreen.availableGeometry(), its status bar or buttons visible."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from PySide6.QtCore import QPoint, QRect, QSize
from PySide6.QtWidgets import QDialog, QLabel, QVBoxLayout

from gui.screen_fit import FRAME_ALLOWANCE, available_geometry, fit_to_screen, fitted_size, moved_inside

ROOT = Path(__file__).resolve().parents[2]
WINDOWS = ("main window, Translate tab", "main window, Train tab", "main window, Compare tab", "length study",
           "beam tree", "enlarged map", "error dialog")


def test_a_wanted_size_is_bounded_by_the_available_geometry_less_a_frame():
    assert fitted_size(QSize(1280, 860), QRect(0, 0, 1920, 1080)) == QSize(1280, 860)  # room: as asked
    frame = FRAME_ALLOWANCE
    for available in (QRect(0, 0, 1280, 800), QRect(0, 0, 1280, 720), QRect(1280, 27, 1366, 741)):
        size = fitted_size(QSize(1280, 860), available)
        assert size.width() + frame.left() + frame.right() <= available.width()
        assert size.height() + frame.top() + frame.bottom() <= available.height()
    assert fitted_size(QSize(900, 520), QRect(0, 0, 1280, 720)) == QSize(900, 520)


def test_a_frame_is_moved_the_least_into_the_available_geometry_and_shrunk_only_when_larger():
    available = QRect(0, 27, 1280, 693)  # a top panel of 27 px: the available area starts below it
    assert moved_inside(QRect(10, 40, 800, 600), available) == QRect(10, 40, 800, 600)  # inside: unchanged
    assert moved_inside(QRect(700, 300, 800, 600), available) == QRect(480, 120, 800, 600)
    assert moved_inside(QRect(-50, 0, 800, 600), available) == QRect(0, 27, 800, 600)
    assert moved_inside(QRect(0, 0, 1300, 900), available) == QRect(0, 27, 1280, 693)
    second = QRect(1280, 0, 1024, 768)  # a second screen on the right
    assert moved_inside(QRect(2000, 500, 600, 400), second) == QRect(1704, 368, 600, 400)


def test_a_dialog_too_large_for_the_screen_is_fitted_and_kept_inside_when_shown(qtbot):
    dialog = QDialog()
    qtbot.addWidget(dialog)
    QVBoxLayout(dialog).addWidget(QLabel("a dialog"))
    available = available_geometry(dialog)
    size = fit_to_screen(dialog, available.width() + 400, available.height() + 300)
    assert size == fitted_size(QSize(available.width() + 400, available.height() + 300), available)
    assert dialog.size() == size
    dialog.move(available.topLeft() + QPoint(available.width() - 50, available.height() - 50))  # mostly off-screen
    dialog.show()
    qtbot.waitExposed(dialog)
    qtbot.waitUntil(lambda: available.contains(dialog.frameGeometry()))
    dialog.hide()
    dialog.move(available.topLeft() - QPoint(300, 300))  # shown again from off the top-left corner
    dialog.show()
    qtbot.waitUntil(lambda: available.contains(dialog.frameGeometry()))
    assert dialog.size() == size  # moved, not shrunk: it fits


@pytest.mark.slow  # a subprocess per screen, each building every tab
@pytest.mark.parametrize("height", [800, 720])
def test_every_window_opens_inside_a_1280_wide_screen_with_its_status_bar_and_buttons_visible(tmp_path, height):
    config = tmp_path / "screen.json"
    config.write_text(json.dumps({"screens": [{"name": "screen", "x": 0, "y": 0, "width": 1280, "height": height,
                                               "logicalDpi": 96, "logicalBaseDpi": 96, "dpr": 1}]}))
    environment = {**os.environ, "QT_QPA_PLATFORM": f"offscreen:configfile={config}",
                   "XDG_CONFIG_HOME": str(tmp_path / "settings")}  # what closing the window saves goes there
    result = subprocess.run([sys.executable, "-m", "tests.gui.window_frames"], cwd=ROOT, env=environment,
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-3000:]
    report = json.loads(result.stdout.splitlines()[-1])
    available = QRect(*report["available"])
    assert available == QRect(0, 0, 1280, height)
    assert set(report["windows"]) == set(WINDOWS)
    for name, parts in report["windows"].items():
        frame = QRect(*parts["frame"])
        assert available.contains(frame), f"{name}: frame {parts['frame']} outside the screen {report['available']}"
        for part, rect in parts.items():  # the status bar, the Close button, the footer: on screen, in the frame
            shown = QRect(*rect)
            assert not shown.isEmpty() and frame.contains(shown) and available.contains(shown), (name, part, rect)
    main = QRect(*report["windows"]["main window, Translate tab"]["frame"])
    assert main.width() >= 1200 and main.height() >= height - 100  # fitted, not shrunk to a corner
