"""The window in Chinese fits 1280×800 and 1280×720 screens as the English one does: every frame (the main
window on each tab and with no model yet, the Length study, the beam tree) inside the screen's available
geometry, and no label, button or box cutting its text off (gui/common/text_fit.py) — Chinese and English texts
differ in width. A subprocess per screen and language (tests/gui/language_frames.py)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from PySide6.QtCore import QRect

ROOT = Path(__file__).resolve().parents[2]
# Texts cut on purpose, with the reason: none may be cut otherwise.
CUT_ON_PURPOSE = {
    "attentionHoverLabel": "the map's hover line is one line cut at the side when narrow; its tooltip holds it whole",
}

pytestmark = pytest.mark.slow  # a subprocess per screen, each building every tab


def frames(tmp_path: Path, language: str, height: int) -> dict:
    config = tmp_path / "screen.json"
    config.write_text(json.dumps({"screens": [{"name": "screen", "x": 0, "y": 0, "width": 1280, "height": height,
                                               "logicalDpi": 96, "logicalBaseDpi": 96, "dpr": 1}]}))
    environment = {**os.environ, "QT_QPA_PLATFORM": f"offscreen:configfile={config}",
                   "XDG_CONFIG_HOME": str(tmp_path / "settings"), "ATTENTION_STUDIO_DATA": str(tmp_path / "data")}
    result = subprocess.run([sys.executable, "-m", "tests.gui.language_frames", language], cwd=ROOT, env=environment,
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-3000:]
    return json.loads(result.stdout.splitlines()[-1])


@pytest.mark.parametrize("height", [800, 720])
@pytest.mark.parametrize("language", ["zh_CN", "en"])
def test_every_window_fits_the_screen_and_cuts_no_text(tmp_path, language, height):
    report = frames(tmp_path, language, height)
    assert report["problem"] == "" and report["language"] == language
    available = QRect(*report["available"])
    assert available == QRect(0, 0, 1280, height)
    assert len(report["windows"]) == 6  # three tabs, the empty state, two dialogs
    for name, window in report["windows"].items():
        assert available.contains(QRect(*window["frame"])), f"{name}: frame {window['frame']} outside the screen"
        cut = [line for line in window["clipped"] if not any(f"'{key}'" in line for key in CUT_ON_PURPOSE)]
        assert not cut, f"{language}, 1280×{height}, {name}: " + "; ".join(cut)
