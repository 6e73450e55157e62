"""The layers: the engine never imports Qt, and the window starts without PyTorch (docs/architecture.md)."""

import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FORBIDDEN = ("PySide6", "PyQt5", "PyQt6", "pyqtgraph", "superqt", "gui")


def test_no_engine_source_file_imports_qt_or_the_gui():
    for path in (ROOT / "engine").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            for name in names:
                assert name.split(".")[0] not in FORBIDDEN, f"{path.name} imports {name}"


def test_importing_every_engine_module_loads_no_qt():
    modules = [f"engine.{p.stem}" for p in (ROOT / "engine").glob("*.py") if p.stem != "__init__"]
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
                            env={**__import__("os").environ, "QT_QPA_PLATFORM": "offscreen"})
    assert result.returncode == 0, result.stdout + result.stderr


# The files the engine keeps in a run folder; the GUI reaches them only through engine functions
# (engine.metrics_log, engine.checkpoint, engine.run_report), never by name.
ENGINE_RUN_FILES = ("metrics.jsonl", "state.json", "state.safetensors", "run.json")


def test_the_gui_never_names_a_run_folders_files():
    for path in (ROOT / "gui").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                named = [name for name in ENGINE_RUN_FILES if name in node.value]
                assert not named, f"{path.relative_to(ROOT)} names {named[0]}: read it through the engine"
