"""Drives the app's flows as a learner would and prints, as one JSON object, every top-level window's frame
that left the screen's available geometry after each flow (none, when the window holds: growth is absorbed
by scroll areas and splitters). Run in a subprocess by tests/gui/test_every_flow_frames.py under
``QT_QPA_PLATFORM=offscreen:configfile=…``, which sets the screen's size (this module holds no tests).

The flows: start (a model loaded, a four-sentence input translated), a training run started, stopped and
started again (then stopped after two validations), travel to an earlier step of it (Translate and Compare), Compare with every panel, Words
toggled, the Length study, the beam tree, a Transformer's long translation and its Layers window (each kind, a map
enlarged), the error dialog, and Back.
"""

from __future__ import annotations

import json
import sys
import time

from PySide6.QtCore import QEventLoop, QRect
from PySide6.QtWidgets import QApplication

LONG_INPUT = ("我们明天去公园。她每天早上喝一杯咖啡。这本书很有意思，我已经读了两遍。"
              "如果明天下雨，我们就待在家里看电影。")
TIMEOUT_S = 120


def _rect(rect: QRect) -> list[int]:
    return [rect.x(), rect.y(), rect.width(), rect.height()]


def main() -> int:
    app = QApplication(sys.argv[:1])
    app.setOrganizationName("AttentionStudioFlowFrames")
    from gui.app import ErrorReporter
    from gui.main_window import MainWindow

    available = app.primaryScreen().availableGeometry()
    outside: list[dict] = []
    checked: list[str] = []

    def wait(condition, timeout: float = TIMEOUT_S) -> bool:
        end = time.monotonic() + timeout
        while not condition() and time.monotonic() < end:
            app.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 50)
        return bool(condition())

    def check(flow: str) -> None:
        wait(lambda: False, 0.3)  # layouts settle, deferred resizes land
        checked.append(flow)
        for window in app.topLevelWidgets():
            if window.isVisible() and not available.contains(window.frameGeometry()):
                outside.append({"flow": flow, "window": window.objectName() or type(window).__name__,
                                "frame": _rect(window.frameGeometry())})

    window = MainWindow(None, "", defer_training=False)
    window.confirm_stop_training = True
    window.show()
    window.start()
    translate = window.translate_tab
    if not wait(lambda: translate.controller.bundle is not None):
        print(json.dumps({"error": "no model loaded"}))
        return 1
    translate.translate_text(LONG_INPUT)
    wait(lambda: translate.last_translation is not None and not translate.controller.running)
    check("start: a long input translated")

    window.tabs.setCurrentWidget(window.train_tab)
    wait(lambda: window.training_panel is not None)
    panel = window.training_panel
    form = panel.form
    form.embedding.setValue(16)
    form.hidden.setValue(32)
    form.epochs.setValue(2)
    form.validate_every.setValue(5)
    panel.start_button.click()
    wait(lambda: panel.table.records() and panel.table.records()[-1].step_count >= 6)
    check("training started")
    panel.stop_and_wait(30_000)
    wait(lambda: panel.controller.current is None)
    panel.start_button.click()
    wait(lambda: panel.table.records()[-1].step_count >= 6)
    check("training started a second time")
    record = panel.table.records()[-1]
    wait(lambda: record.step_count >= 12)  # two validations, each with its snapshot and the best saved
    panel.stop_and_wait(30_000)
    wait(lambda: panel.controller.current is None)
    check("training stopped")

    window.tabs.setCurrentWidget(window.compare_tab)
    compare = window.compare_tab
    wait(lambda: compare.panels and not compare.controller.loading)
    compare.set_sentence(LONG_INPUT)
    wait(lambda: compare.controller.run is not None and not compare.controller.busy)
    check("Compare, every scorer")
    compare.view_bar.words.setChecked(not compare.view_bar.words.isChecked())
    check("Compare, Words toggled")

    window._travel(str(record.folder), 7.0)
    wait(lambda: translate.controller.past is not None and compare.controller.past is not None)
    travelled = translate.view.past_badge.label.text()  # a run started in the app keeps snapshots: it travels
    check("travel: Translate")
    window.tabs.setCurrentWidget(compare)
    wait(lambda: not compare.controller.loading)
    check("travel: Compare")
    compare.past_badge.back_button.click()
    wait(lambda: translate.controller.past is None and compare.controller.past is None)
    check("back to the final models")

    window.tabs.setCurrentWidget(translate)
    translate.open_length_study()
    check("Length study")
    translate.view.choice_bar.beam_spin.setValue(3)
    translate.translate_text("我们明天去公园。")
    wait(lambda: not translate.controller.running)
    translate.open_beam_tree()
    check("beam tree")

    bar = translate.view.choice_bar  # a Transformer: its layer/head chooser in the bar, then its Layers window
    bar.scorer_combo.setCurrentIndex(bar.scorer_combo.findData("transformer"))
    bar.scorer_combo.activated.emit(bar.scorer_combo.currentIndex())
    wait(lambda: translate.controller.entry is not None and translate.controller.entry.scorer == "transformer")
    translate.translate_text(LONG_INPUT)
    wait(lambda: translate.last_translation is not None and not translate.controller.running)
    check("Transformer: a long input translated")
    translate.view.layers_button.click()
    layers = translate.model_view.window
    for kind in ("encoder", "decoder", "cross"):
        layers.kind_box.setCurrentIndex(layers.kind_box.findData(kind))
        layers.open_map(1, 0)
    check("Transformer: the Layers window, each kind, one map enlarged")
    layers_frame = _rect(layers.frameGeometry()) if layers.isVisible() and layers.opened == (1, 0) else None
    reporter = ErrorReporter()
    reporter.window = window
    reporter._show("Decoding failed", "RuntimeError: the decoder broke", "Traceback …\n" * 200)
    check("error dialog")
    print(json.dumps({"available": _rect(available), "checked": checked, "outside": outside,
                      "travelled": travelled, "layers": layers_frame}, ensure_ascii=False), flush=True)
    window.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
