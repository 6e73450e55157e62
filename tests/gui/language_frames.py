"""Opens the main window (every tab, the Translate tab's empty state) and the Translate tab's dialogs in the
interface language given as the first argument, on the screen Qt is given, and prints as one JSON object
the screen's available geometry and, per window, its frame and the texts it cuts off (gui/common/text_fit.py).
Run in a subprocess by tests/gui/test_chinese_window.py under ``QT_QPA_PLATFORM=offscreen:configfile=…``,
which sets the screen's size (this module holds no tests of its own)."""

from __future__ import annotations

import json
import sys

from PySide6.QtCore import QRect
from PySide6.QtWidgets import QApplication, QWidget


def _rect(rect: QRect) -> list[int]:
    return [rect.x(), rect.y(), rect.width(), rect.height()]


def main() -> int:
    language = sys.argv[1] if len(sys.argv) > 1 else "zh_CN"
    app = QApplication(sys.argv[:1])
    app.setOrganizationName("AttentionStudioLanguageFrames")
    from gui.i18n import install_language

    problem = install_language(language)
    from gui.common.text_fit import clipped_texts
    from gui.main_window import MainWindow
    from gui.translate.beam_dialog import tree_footer
    from gui.translate.length_study.dialog import LengthStudyDialog

    windows: dict[str, dict[str, object]] = {}

    def record(name: str, window: QWidget) -> None:
        app.processEvents()
        windows[name] = {"frame": _rect(window.frameGeometry()), "clipped": clipped_texts(window)}

    window = MainWindow(None, "", defer_training=False)  # every tab built, none started
    window.show()
    for index in range(window.tabs.count()):
        window.tabs.setCurrentIndex(index)
        record(f"main window, tab {index}", window)
    window.tabs.setCurrentIndex(0)
    translate = window.translate_tab
    translate.view.show_empty_state(True)
    record("main window, no model yet", window)
    translate.view.show_empty_state(False)
    study = LengthStudyDialog(translate)
    study.show_direction(None, None, force=True)
    study.show()
    record("length study", study)
    window.tabs.setCurrentWidget(translate)
    tree = translate.open_beam_tree()  # docked under the map: the main window holds it
    tree.status.setText(tree_footer(5, False, 12, 3))
    record("beam tree", window)
    available = app.primaryScreen().availableGeometry()
    print(json.dumps({"language": language, "problem": problem, "available": _rect(available),
                      "windows": windows}, ensure_ascii=False), flush=True)
    window.close()  # the Train tab's background jobs end before the process does
    return 0


if __name__ == "__main__":
    sys.exit(main())
