"""Opens every window of the app on the screen Qt is given and prints, as one JSON object, the
screen's available geometry and each window's frame with the widgets that must stay visible in it
(the status bar, the Close button, a footer). Run in a subprocess by tests/gui/test_screen_fit.py
under ``QT_QPA_PLATFORM=offscreen:configfile=…``, which sets the screen's size (this module holds
no tests of its own)."""

from __future__ import annotations

import json
import sys

from PySide6.QtCore import QRect
from PySide6.QtWidgets import QApplication, QWidget

from engine.settings import SCORER_TABLE


def _rect(rect: QRect) -> list[int]:
    return [rect.x(), rect.y(), rect.width(), rect.height()]


def _global(widget: QWidget) -> list[int]:
    """``widget``'s rectangle in screen coordinates."""
    return _rect(QRect(widget.mapToGlobal(widget.rect().topLeft()), widget.size()))


def main() -> int:
    app = QApplication(sys.argv[:1])
    app.setOrganizationName("AttentionStudioWindowFrames")
    from gui.app import ErrorReporter
    from gui.compare.enlarged import EnlargedMap
    from gui.compare.model import PanelSlot, plan_slots
    from gui.compare.panel import ScorerPanel
    from gui.main_window import MainWindow
    from gui.translate.length_study.dialog import LengthStudyDialog

    frames: dict[str, dict[str, list[int]]] = {}

    def record(name: str, window: QWidget, **parts: QWidget) -> None:
        app.processEvents()
        frames[name] = {"frame": _rect(window.frameGeometry()), **{k: _global(w) for k, w in parts.items()}}

    window = MainWindow(None, "", defer_training=False)  # every tab built, none started
    compare = window.compare_tab
    compare.controller.slots = plan_slots([], "zh-en")  # the Compare grid with every scorer's panel
    compare.controller.slotsChanged.emit(compare.controller.slots)
    window.show()
    for index in range(window.tabs.count()):
        window.tabs.setCurrentIndex(index)
        record(f"main window, {window.tabs.tabText(index)} tab", window, status_bar=window.statusBar())
    study = LengthStudyDialog(window.translate_tab)
    study.show_direction(None, None, force=True)
    study.show()
    [close] = [b for b in study.findChildren(QWidget) if b.metaObject().className() == "QPushButton"
               and b.text().replace("&", "") == "Close"]
    record("length study", study, close_button=close)
    window.tabs.setCurrentWidget(window.translate_tab)
    tree = window.translate_tab.open_beam_tree()  # docked under the map: the main window holds it
    tree.status.setText("Beam of 5: 12 steps, 3 finished hypotheses. Click a node to see its hypothesis.")
    record("beam tree", window, footer=tree.status)
    panel = ScorerPanel(PanelSlot(SCORER_TABLE["additive"], None))
    enlarged = EnlargedMap(panel, window.compare_tab)
    enlarged.show()
    record("enlarged map", enlarged, caption=enlarged.caption)
    reporter = ErrorReporter()
    reporter.window = window
    reporter._show("Decoding failed", "RuntimeError: the decoder broke", "Traceback …\n" * 200)
    [dialog] = reporter.dialogs
    record("error dialog", dialog)
    available = app.primaryScreen().availableGeometry()
    print(json.dumps({"available": _rect(available), "windows": frames}), flush=True)
    window.close()  # the Train tab's background jobs end before the process does
    return 0


if __name__ == "__main__":
    sys.exit(main())
