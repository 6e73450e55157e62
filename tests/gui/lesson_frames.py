"""Opens the main window with the Lesson dock shown, in the language given (en, zh_CN), on the screen Qt
is given, goes through every tab and every chapter, and prints one JSON object: the available geometry
and, per tab and chapter, the window's frame and the lesson's buttons in screen coordinates. Run in a
subprocess by tests/gui/test_lesson_frames.py (this module holds no tests of its own)."""

from __future__ import annotations

import json
import sys

from PySide6.QtCore import QRect
from PySide6.QtWidgets import QApplication, QWidget


def _rect(rect: QRect) -> list[int]:
    return [rect.x(), rect.y(), rect.width(), rect.height()]


def _global(widget: QWidget) -> list[int]:
    return _rect(QRect(widget.mapToGlobal(widget.rect().topLeft()), widget.size()))


def main() -> int:
    app = QApplication(sys.argv[:1])
    app.setOrganizationName("AttentionStudioLessonFrames")
    from gui.i18n import install_language
    from gui.main_window import MainWindow

    problem = install_language(sys.argv[1])
    window = MainWindow(None, "", defer_training=False)  # every tab built, none started
    window.show()
    window.lesson_button.click()
    panel = window.lesson_panel
    frames: dict[str, dict[str, list[int]]] = {}
    for index in range(window.tabs.count()):
        window.tabs.setCurrentIndex(index)
        for chapter in panel.chapters:
            panel.open_chapter(chapter.key)
            app.processEvents()
            frames[f"{index}/{chapter.key}"] = {
                "frame": _rect(window.frameGeometry()), "show_me": _global(panel.show_button),
                "reset": _global(panel.reset_button), "tasks": _global(panel.tasks), "status_bar": _global(window.statusBar()),
            }
    titles = [chapter.title for chapter in panel.chapters]
    print(json.dumps({"available": _rect(app.primaryScreen().availableGeometry()), "frames": frames,
                      "titles": titles, "show_me": panel.show_button.text(), "problem": problem}), flush=True)
    window.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
