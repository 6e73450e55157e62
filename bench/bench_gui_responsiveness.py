"""GUI event-loop responsiveness while decoding at full speed: the longest stall of a 10 ms
QTimer (how late its tick came), while the app decodes sentences back to back.

    .venv/bin/python bench/bench_gui_responsiveness.py [--model MODEL_DIR] [--seconds 10]

Two loads: the example sentence repeated, and a pasted page (input capped at the engine's limits:
the longest decodings the app ever runs). Goal: longest stall ≤ 50 ms.
"""

from __future__ import annotations

import argparse
import statistics
import time

from bench_gui_common import StallMeter, bench_model, full_speed, isolate_settings, sentence_for

TICK_MS = 10


def measure(app, window, text: str | None, seconds: float) -> tuple[list[float], int, int]:
    """Stalls (ms a tick came late) over ``seconds`` of the event loop, decoding ``text`` back to
    back (None: idle, for comparison). Returns the stalls, decodings started and rows shown."""
    from PySide6.QtCore import QEventLoop, QTimer

    tab = window.translate_tab
    if text is not None:
        tab.view.source_input.setText(text)
    meter = StallMeter(TICK_MS)
    stalls = meter.stalls
    counts = {"runs": 0, "rows": 0}

    def on_row(_index: int) -> None:
        counts["rows"] += 1

    def keep_decoding() -> None:
        if text is not None and not tab.controller.running:
            tab.translate()
            counts["runs"] += 1

    feeder = QTimer()
    feeder.timeout.connect(keep_decoding)
    tab.view.attention_panel.stepShown.connect(on_row)
    meter.start()
    feeder.start(1)
    loop = QEventLoop()  # app.quit() would close the window too
    QTimer.singleShot(int(seconds * 1000), loop.quit)
    loop.exec()
    meter.stop()
    feeder.stop()
    tab.view.attention_panel.stepShown.disconnect(on_row)
    tab.controller.stop()
    return stalls, counts["runs"], counts["rows"]


def main() -> None:
    """Parse the command line and run the benchmark (what it measures: the module docstring)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default=None)
    parser.add_argument("--seconds", type=float, default=10.0)
    args = parser.parse_args()
    model = bench_model(args.model)
    from PySide6.QtWidgets import QApplication

    from gui.app import create_window

    isolate_settings()
    window = create_window(["--model", str(model)])
    full_speed(window)
    app = QApplication.instance()
    while window.translate_tab.controller.bundle is None:
        app.processEvents()
        time.sleep(0.005)
    sentence = sentence_for(model)
    print(f"model: {model.name}, speed: as fast as possible, timer: {TICK_MS} ms")
    for name, text in (("idle", None), ("sentence", sentence), ("pasted page", (sentence + " ") * 200)):
        stalls, runs, steps = measure(app, window, text, args.seconds / (4 if text is None else 2))
        ordered = sorted(stalls)
        p99 = ordered[int(0.99 * (len(ordered) - 1))]
        verdict = "met" if ordered[-1] <= 50 else "MISSED"
        print(f"{name:12s} {runs:4d} decodings, {steps:6d} steps shown: longest stall {ordered[-1]:.1f} ms, "
              f"p99 {p99:.1f} ms, median {statistics.median(ordered):.2f} ms  (goal ≤ 50 ms: {verdict})")
    window.close()


if __name__ == "__main__":
    main()
