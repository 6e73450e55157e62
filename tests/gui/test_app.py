"""Start-up pieces: arguments, fonts, logging and the exception hook."""

from __future__ import annotations

import subprocess
import sys
import threading
from pathlib import Path

import pytest
from PySide6.QtWidgets import QLabel

from gui import app as app_module
from gui.fonts import PREFERRED_CJK_FAMILIES, pick_cjk_family

pytestmark = pytest.mark.slow  # trains a model, opens the real window, runs a subprocess or fuzzes many cases

ROOT = Path(__file__).resolve().parents[2]


def test_arguments():
    assert app_module.parse_args(["--model", "some/folder"]).model == Path("some/folder")
    assert app_module.parse_args([]).model is None
    assert app_module.parse_args(["-platform", "offscreen"]).model is None  # Qt's options are left alone


def test_main_py_help_documents_the_model_option():
    result = subprocess.run([sys.executable, str(ROOT / "main.py"), "--help"], capture_output=True, text=True,
                            timeout=60, cwd=ROOT)
    assert result.returncode == 0 and "--model" in result.stdout


def test_cjk_font_choice():
    assert pick_cjk_family(["DejaVu Sans", "Noto Sans CJK SC"]) == "Noto Sans CJK SC"
    assert pick_cjk_family(["DejaVu Sans"], ["Some Chinese Font"]) == "Some Chinese Font"
    assert pick_cjk_family(["DejaVu Sans"]) is None
    assert PREFERRED_CJK_FAMILIES[0] == "Noto Sans CJK SC"


def test_missing_cjk_font_is_reported(qtbot):
    from gui.main_window import MainWindow

    window = MainWindow(cjk_family=None)
    qtbot.addWidget(window)
    warning = window.findChild(QLabel, "fontWarning")
    assert warning is not None and "Noto Sans CJK" in warning.toolTip()


def test_uncaught_exceptions_are_logged_and_shown(qtbot, monkeypatch):
    seen = []
    monkeypatch.setattr(app_module.sys, "excepthook", lambda *exc: seen.append(exc[0]))
    monkeypatch.setattr(threading, "excepthook", threading.excepthook)
    log_file = app_module.configure_logging()
    reporter = app_module.ErrorReporter()
    app_module.install_exception_hooks(reporter)
    try:
        raise ValueError("boom in a slot")
    except ValueError as error:
        app_module.sys.excepthook(ValueError, error, error.__traceback__)
    qtbot.waitUntil(lambda: bool(reporter.dialogs), timeout=2000)
    dialog = reporter.dialogs[0]
    assert "boom in a slot" in dialog.text() and "ValueError" in dialog.detailedText()
    assert seen == [ValueError]  # the previous hook still runs
    for handler in app_module.log.handlers:
        handler.flush()
    assert "boom in a slot" in log_file.read_text(encoding="utf-8")
    dialog.close()
