"""The layers as the interpreter sees them (subprocesses: slow tier): importing the engine loads no
Qt, and the window's modules load without PyTorch. The source-level checks are in test_layers.py."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # trains a model, opens the real window, runs a subprocess or fuzzes many cases

ROOT = Path(__file__).resolve().parents[2]


def test_importing_every_engine_module_loads_no_qt():
    modules = [".".join(p.relative_to(ROOT).with_suffix("").parts) for p in (ROOT / "engine").rglob("*.py")
               if p.stem not in ("__init__", "__main__")]
    code = (f"import importlib, sys\nfor m in {modules!r}: importlib.import_module(m)\n"
            "bad = [m for m in sys.modules if m.split('.')[0] in ('PySide6', 'pyqtgraph')]\n"
            "print(bad); sys.exit(1 if bad else 0)")
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr


def test_importing_the_main_window_does_not_import_torch():
    """The window appears before PyTorch has loaded: start-up speed depends on it."""
    code = ("import sys\nimport gui.main_window, gui.app\n"
            "bad = [m for m in ('torch', 'sentencepiece', 'sacrebleu') if m in sys.modules]\n"
            "print(bad); sys.exit(1 if bad else 0)")
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120,
                            env={**os.environ, "QT_QPA_PLATFORM": "offscreen"})
    assert result.returncode == 0, result.stdout + result.stderr
