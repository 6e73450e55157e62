"""Attention Studio: ``python main.py [--model MODEL_DIR]`` opens the window."""

import sys

from PySide6.QtWidgets import QApplication

from gui.app import create_window


def run(argv: list[str]) -> int:
    """Build the window, then run the event loop until it closes."""
    window = create_window(argv, defer_training=True)
    code = QApplication.instance().exec()
    window.deleteLater()
    return code


if __name__ == "__main__":
    sys.exit(run(sys.argv[1:]))
