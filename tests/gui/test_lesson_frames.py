"""The window with the Lesson dock open stays inside 1280×800 and 1280×720 screens, in English and in
Chinese, on every tab and with every chapter shown; the lesson's buttons and the status bar are on screen."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from PySide6.QtCore import QRect

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.slow  # a subprocess per screen and language


@pytest.mark.parametrize(("height", "language"), [(800, "en"), (800, "zh_CN"), (720, "en"), (720, "zh_CN")])
def test_the_window_with_the_lesson_open_fits_the_screen(tmp_path, height, language):
    config = tmp_path / "screen.json"
    config.write_text(json.dumps({"screens": [{"name": "screen", "x": 0, "y": 0, "width": 1280, "height": height,
                                               "logicalDpi": 96, "logicalBaseDpi": 96, "dpr": 1}]}))
    environment = {**os.environ, "QT_QPA_PLATFORM": f"offscreen:configfile={config}",
                   "XDG_CONFIG_HOME": str(tmp_path / "settings")}
    result = subprocess.run([sys.executable, "-m", "tests.gui.lesson_frames", language], cwd=ROOT, env=environment,
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-3000:]
    report = json.loads(result.stdout.splitlines()[-1])
    available = QRect(*report["available"])
    assert available == QRect(0, 0, 1280, height) and not report["problem"]
    assert len(report["frames"]) >= 3 * 8
    for name, parts in report["frames"].items():
        frame = QRect(*parts["frame"])
        assert available.contains(frame), f"{name}: frame {parts['frame']} outside the screen"
        for part in ("show_me", "reset", "status_bar"):
            assert frame.contains(QRect(*parts[part])), f"{name}: {part} {parts[part]} outside the frame {parts['frame']}"
        tasks = QRect(*parts["tasks"])
        assert tasks.height() >= 60 and frame.contains(tasks), f"{name}: Try it has {parts['tasks']}"
    if language == "zh_CN":
        assert report["show_me"] == "演示" and all(any("\u4e00" <= ch <= "\u9fff" for ch in t) for t in report["titles"])
