"""Attention Studio: ``python main.py [--model MODEL_DIR | NAME]`` opens the window (NAME: a shipped model's,
e.g. ``zh-en-additive``)."""

import sys

from PySide6.QtWidgets import QApplication

from gui.app import create_window
from gui.platform_check import platform_problem


def run(argv: list[str]) -> int:
    """Build the window, then run the event loop until it closes; first, when Qt's platform plugin
    cannot load for want of a system library, say which and exit (gui/platform_check.py)."""
    problem = platform_problem(argv)
    if problem:
        print(problem, file=sys.stderr)
        return 1
    window = create_window(argv, defer_training=True)
    code = QApplication.instance().exec()
    window.deleteLater()
    return code


if __name__ == "__main__":
    sys.exit(run(sys.argv[1:]))
