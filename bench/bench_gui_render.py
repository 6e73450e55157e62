"""Per-step cost of the heatmap update: what the GUI thread spends when one decoding step
arrives and is drawn at once. Three figures per step: the update (output text, record, heatmap
image and axis labels, step inspector), the heatmap's own paint, and the whole window's repaint
(Qt repaints every changed widget together: heatmap, inspector table, output line).

    .venv/bin/python bench/bench_gui_render.py [--model MODEL_DIR] [--repeat 5]

Real steps from the model are replayed for a short sentence and for a source at the engine's
200-token cap. Goal: ≤ 5 ms per step.
"""

from __future__ import annotations

import argparse
import time

from bench_gui_common import bench_model, describe, full_speed, isolate_settings, sentence_for

PAINT_MS: list[float] = []  # time inside the heatmap's paintEvent, per paint


def time_heatmap_paints() -> None:
    """Wrap the heatmap's paint event so that each paint's time is recorded."""
    from gui.attention.heatmap import HeatmapView

    original = HeatmapView.paintEvent

    def timed(self, event) -> None:
        started = time.perf_counter()
        original(self, event)
        PAINT_MS.append((time.perf_counter() - started) * 1000)

    HeatmapView.paintEvent = timed


def replay(app, tab, run, steps, translation, repeat: int) -> tuple[list[float], list[float], list[float]]:
    """Per step, in milliseconds: the update, the heatmap's paint, the whole window's repaint."""
    panel = tab.view.attention_panel
    update_ms: list[float] = []
    paint_ms: list[float] = []
    total_ms: list[float] = []
    for _ in range(repeat):
        tab._on_run_started(run)
        app.processEvents()
        for step in steps:
            started = time.perf_counter()
            tab._on_step(step)
            panel.render_now()  # no coalescing: draw every step
            updated = time.perf_counter()
            PAINT_MS.clear()
            panel.heatmap.viewport().repaint()
            done = time.perf_counter()
            update_ms.append((updated - started) * 1000)
            paint_ms.append(sum(PAINT_MS))
            total_ms.append((done - started) * 1000)
        tab._on_finished(translation)
        app.processEvents()
    return update_ms, paint_ms, total_ms


def main() -> None:
    """Parse the command line and run the benchmark (what it measures: the module docstring)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default=None)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    model = bench_model(args.model)
    from PySide6.QtWidgets import QApplication

    from engine.settings.config import DecodeConfig
    from gui.app import create_window
    from gui.translate.controller import RunInfo

    isolate_settings()
    time_heatmap_paints()
    window = create_window(["--model", str(model)])
    full_speed(window)
    app = QApplication.instance()
    tab = window.translate_tab
    while tab.controller.bundle is None:
        app.processEvents()
        time.sleep(0.005)
    bundle = tab.controller.bundle
    label, formula = tab.controller.scorers[bundle.scorer]
    sentence = sentence_for(model)
    print(f"model: {model.name}; per step: output text + record + heatmap image/labels + inspector + repaint")
    for name, text in (("sentence", sentence), ("200-token source", (sentence + " ") * 200)):
        prepared = bundle.translator.prepare(text)
        generator = bundle.translator.steps(prepared, DecodeConfig())
        steps = []
        while True:
            try:
                steps.append(next(generator))
            except StopIteration as stop:
                translation = stop.value
                break
        run = RunInfo(0, prepared, bundle, 1, label, formula)
        update_ms, paint_ms, total_ms = replay(app, tab, run, steps, translation, args.repeat)
        heatmap_ms = [u + p for u, p in zip(update_ms, paint_ms, strict=True)]
        verdict = "met" if sorted(heatmap_ms)[len(heatmap_ms) // 2] <= 5 else "MISSED"
        print(f"{name} ({len(prepared.tokens)} source tokens, {len(steps)} steps)")
        print(f"  update (all widgets' data)        {describe(update_ms)}")
        print(f"  update + heatmap paint            {describe(heatmap_ms)}  (goal ≤ 5 ms: {verdict})")
        print(f"  update + whole-window repaint     {describe(total_ms)}")
    window.close()


if __name__ == "__main__":
    main()
