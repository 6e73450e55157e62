"""The screen is a hard limit: after every flow of the app (start with a long input, a training run started
twice and ended, travel to an earlier step in Translate and Compare, Compare with every scorer and the Words
toggle, Back, the Length study, the beam tree, a Transformer's long translation and its Layers window, the
error dialog) every top-level window's frame stays inside QScreen.availableGeometry() of a 1280×800 and a
1280×720 screen (tests/gui/flow_frames.py drives them in a subprocess whose offscreen screen has that size)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
FLOWS = 14

pytestmark = pytest.mark.slow  # a subprocess per screen: a real model, a short training run, every tab


@pytest.mark.parametrize("height", [800, 720])
def test_no_flow_pushes_a_window_past_the_screen(tmp_path, height):
    config = tmp_path / "screen.json"
    config.write_text(json.dumps({"screens": [{"name": "screen", "x": 0, "y": 0, "width": 1280, "height": height,
                                               "logicalDpi": 96, "logicalBaseDpi": 96, "dpr": 1}]}))
    environment = {**os.environ, "QT_QPA_PLATFORM": f"offscreen:configfile={config}",
                   "XDG_CONFIG_HOME": str(tmp_path / "settings"), "XDG_DATA_HOME": str(tmp_path / "data")}
    result = subprocess.run([sys.executable, "-m", "tests.gui.flow_frames"], cwd=ROOT, env=environment,
                            capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-3000:]
    report = json.loads(result.stdout.splitlines()[-1])
    assert report["available"] == [0, 0, 1280, height]
    assert len(report["checked"]) == FLOWS, report["checked"]
    assert report["layers"] is not None  # the Layers window was open, a map enlarged, when its frame was checked
    assert report["travelled"].startswith("Travelled back: model at step ")  # a kept snapshot, not the saved model
    assert report["outside"] == [], "\n".join(f"{o['flow']}: {o['window']} at {o['frame']}" for o in report["outside"])
