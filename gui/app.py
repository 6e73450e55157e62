"""Application start-up: arguments, QApplication, fonts, logging, the exception hook, the window.

``create_window(argv)`` builds and shows the main window from the command-line arguments without
entering the event loop (``main.py`` and :func:`main` then run it). The window appears before
PyTorch is imported: scanning and loading models happen in the background.

Any exception that reaches the top (in the GUI thread or any Python thread) is logged to
``<user data folder>/logs/attention-studio.log`` and shown in a dialog; it is never swallowed.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
import threading
import traceback
from pathlib import Path
from types import TracebackType

from PySide6.QtCore import QCoreApplication, QObject, Qt, Signal, Slot
from PySide6.QtGui import QIcon
from PySide6.QtWidgets import QApplication, QMessageBox, QWidget

from engine.files import (  # torch-free: the app starts before PyTorch loads
    APP_ICON,
    model_argument,
    user_data_folder,
)
from gui.fonts import apply_cjk_font
from gui.i18n import install_language
from gui.main_window import MainWindow
from gui.platform_check import platform_problem
from gui.screen_fit import keep_on_screen

APP_NAME = "Attention Studio"
log = logging.getLogger("attention_studio")


def parse_args(argv: list[str]) -> argparse.Namespace:
    """``[--model MODEL_DIR | NAME]``; Qt's own options (``-platform …``) and a leading program name are
    left alone."""
    parser = argparse.ArgumentParser(prog="attention-studio", description="Watch an attention translator work.")
    parser.add_argument("--model", type=model_argument, default=None,
                        help="model folder to open, or a shipped model's name (zh-en-additive, …)")
    args, _unknown = parser.parse_known_args(argv)
    return args


def configure_logging() -> Path | None:
    """Log to stderr and to the user's log file (one file handler, replaced if the folder changed)."""
    log.setLevel(logging.INFO)
    path = user_data_folder() / "logs" / "attention-studio.log"
    for handler in list(log.handlers):
        if isinstance(handler, logging.FileHandler):
            if Path(handler.baseFilename) == path:
                return path
            log.removeHandler(handler)
            handler.close()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handler = logging.FileHandler(path, encoding="utf-8", delay=True)
    except OSError as error:
        log.warning("cannot write the log file %s: %s", path, error)
        return None
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(message)s"))
    log.addHandler(handler)
    if not any(type(h) is logging.StreamHandler for h in log.handlers):
        log.addHandler(logging.StreamHandler())
    return path


class ErrorReporter(QObject):
    """Shows errors in a (non-blocking) dialog; ``report`` may be emitted from any thread."""

    report = Signal(str, str, str)  # title, message, details

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.window: QWidget | None = None
        self.dialogs: list[QMessageBox] = []
        self.report.connect(self._show, Qt.ConnectionType.QueuedConnection)

    @Slot(str, str, str)
    def _show(self, title: str, message: str, details: str) -> None:
        log.error("%s: %s\n%s", title, message, details)
        dialog = QMessageBox(QMessageBox.Icon.Critical, title, message, QMessageBox.StandardButton.Close,
                             self.window)
        dialog.setObjectName("errorDialog")
        dialog.setDetailedText(details)
        dialog.setInformativeText(self.tr("The details are also in the log file."))
        dialog.setModal(False)
        keep_on_screen(dialog)
        dialog.finished.connect(lambda _result, d=dialog: self.dialogs.remove(d) if d in self.dialogs else None)
        self.dialogs.append(dialog)
        dialog.show()


_reporter: ErrorReporter | None = None


def install_exception_hooks(reporter: ErrorReporter) -> None:
    """Route uncaught exceptions to the log and a dialog, then to the previous hook."""
    global _reporter
    _reporter = reporter
    if getattr(sys.excepthook, "_attention_studio", False):
        return
    previous = sys.excepthook

    def hook(kind: type[BaseException], error: BaseException, tb: TracebackType | None) -> None:
        details = "".join(traceback.format_exception(kind, error, tb))
        if _reporter is not None:
            title = QCoreApplication.translate("ErrorReporter", "Unexpected error")
            _reporter.report.emit(title, f"{kind.__name__}: {error}", details)
        else:
            log.error("unexpected error\n%s", details)
        previous(kind, error, tb)

    hook._attention_studio = True  # type: ignore[attr-defined]
    sys.excepthook = hook
    threading.excepthook = lambda args: hook(args.exc_type, args.exc_value, args.exc_traceback)  # type: ignore[arg-type]


def ensure_application(argv: list[str]) -> QApplication:
    """The QApplication, made with ``argv`` when there is none yet."""
    app = QApplication.instance()
    if app is None:
        app = QApplication([sys.argv[0] if sys.argv else "attention-studio", *argv])
    app.setApplicationName(APP_NAME)
    app.setDesktopFileName("attention-studio")  # resources/attention-studio.desktop
    if APP_ICON.is_file():
        app.setWindowIcon(QIcon(str(APP_ICON)))  # every window's icon, the main one included
    if not app.organizationName():
        app.setOrganizationName(APP_NAME)
    return app  # type: ignore[return-value]


def prefer_passive_threads() -> None:
    """Let idle OpenMP threads sleep instead of spinning (unless the user chose otherwise).

    PyTorch's worker threads spin between parallel regions by default; on a desktop with few
    cores that spinning competes with the GUI thread (stalls) and with the other threads
    (decoding and training both ran several times slower under load). Effective only before
    PyTorch is imported, which the app does lazily, in the background.
    """
    if "torch" not in sys.modules:
        os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")


def create_window(argv: list[str], *, defer_training: bool = False) -> MainWindow:
    """Build and show the main window from command-line arguments; the event loop is not entered.

    Every widget exists when it returns, unless ``defer_training``: then the Training tab is built
    once the engine has been imported in the background (``main.py`` does this for a fast start)."""
    args = parse_args(argv)
    prefer_passive_threads()
    app = ensure_application(argv)
    configure_logging()
    reporter = ErrorReporter(app)
    install_exception_hooks(reporter)
    family = apply_cjk_font(app)
    language_problem = install_language()  # before any widget: every tr() answers in the chosen language
    window = MainWindow(args.model, family, defer_training)
    reporter.window = window
    window.errorReported.connect(reporter.report)
    window.restore_settings()
    if language_problem:
        window.statusBar().showMessage(language_problem, 10000)
    window.show()
    window.start()
    return window


def main() -> int:
    """Console entry point: ``attention-studio [--model MODEL_DIR | NAME]`` (a missing system library that
    Qt's platform plugin needs is named instead, gui/platform_check.py)."""
    problem = platform_problem(sys.argv[1:])
    if problem:
        print(problem, file=sys.stderr)
        return 1
    window = create_window(sys.argv[1:], defer_training=True)
    code = QApplication.instance().exec()
    window.deleteLater()
    return code
