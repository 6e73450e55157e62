"""What-if decoding at full speed: continuing from a prefix, and the beam tree growing live.

    .venv/bin/python bench/bench_whatif.py [--model MODEL_DIR] [--repeats 20] [--seconds 6]

1. **Continuing from a prefix.** A two-sentence input is decoded freely (greedy), timing every step;
   then the first half of its own output is given as a prefix and the decode continues from there.
   Goal: the continuation costs no more than the free decode's remaining steps — the prefix is
   taken from the decode just shown (engine.decoding.decode_memo) or teacher-forced without search
   (engine.decoding.teacher_forcing), never re-decoded.
2. **The beam tree's update + paint per step, beam 10**: the recorded levels of a beam-10 search
   are added to the tree one step at a time, each followed by the event processing that paints
   it (what Qt repaints: the new column, or the whole view when it scrolls), and — the worst case —
   by a forced repaint of the whole view. Goal: ≤ 5 ms per step.
3. **The GUI's longest stall while a tree grows**: the real window decodes back to back at beam 10
   with the beam-tree window open; a 10 ms timer measures how late its ticks come. Goal: ≤ 50 ms.
"""

from __future__ import annotations

import argparse
import statistics
import time

from bench_gui_common import StallMeter, bench_model, describe, isolate_settings

SENTENCES = {
    "zh": "你看起来很紧张。尽管我在学校学了六年英语，我还是说不好。",
    "en": "You look nervous. Although I studied English for six years at school, I still cannot speak it well.",
}
TICK_MS = 10


def prefix_costs(translator, text: str, repeats: int) -> None:
    """Print what a steered decode of ``text`` costs against a plain one, over ``repeats``."""
    from engine.decoding.search import Steering
    from engine.settings.config import DecodeConfig

    def timed_steps(steering: Steering = Steering()) -> tuple[list[float], list[int]]:
        started = time.perf_counter()
        stamps, ids = [], []
        for step in translator.steps(text, DecodeConfig(), steering):
            stamps.append(time.perf_counter() - started)
            ids.append(step.token_id)
        return stamps, ids

    text = translator.prepare(text)  # as the app passes it: prepared once per sentence
    stamps, ids = timed_steps()
    cut = len(ids) // 2
    prefix = tuple(ids[:cut])
    free_total, free_rest, steered = [], [], []
    for _ in range(repeats):
        stamps, _ = timed_steps()
        free_total.append(stamps[-1])
        free_rest.append(stamps[-1] - stamps[cut - 1])
        steered_stamps, steered_ids = timed_steps(Steering(prefix=prefix))
        assert steered_ids == ids, "continuing from the model's own prefix must reproduce its decode"
        steered.append(steered_stamps[-1])
    ms = statistics.median
    print(f"prefix: {len(ids)} output tokens, the first {cut} given")
    print(f"  free decode, all steps:        {ms(free_total) * 1000:6.2f} ms")
    print(f"  free decode, steps {cut}…{len(ids) - 1}:     {ms(free_rest) * 1000:6.2f} ms")
    verdict = "met" if ms(steered) <= ms(free_rest) else "MISSED"
    print(f"  continuing from the prefix:    {ms(steered) * 1000:6.2f} ms  "
          f"(goal ≤ the remaining steps: {verdict}; ×{ms(steered) / ms(free_rest):.2f})")


def tree_costs(app, translator, text: str) -> None:
    """Print what building the beam tree dialog of ``text`` costs."""
    from engine.settings.config import DecodeConfig
    from gui.translate.beam_dialog import BeamTreeDialog

    levels = [(step.index, step.beam_level) for step in translator.steps(text, DecodeConfig(beam_size=10))
              if step.beam_level]
    dialog = BeamTreeDialog()
    dialog.resize(900, 520)
    dialog.show()
    app.processEvents()
    for forced in (False, True):
        costs = []
        for _ in range(5):
            dialog.show_levels([])
            app.processEvents()
            for depth, nodes in levels:
                started = time.perf_counter()
                dialog.tree.add_level(depth, nodes)
                if forced:
                    dialog.tree.flush()  # draw the step now rather than at the event loop's next turn
                    dialog.tree.viewport().repaint()
                else:
                    app.processEvents()
                costs.append((time.perf_counter() - started) * 1000)
        verdict = "met" if statistics.median(costs) <= 5 else "MISSED"
        how = "a forced repaint of the whole view" if forced else "Qt's own repaint"
        print(f"beam tree, beam 10, {len(levels)} steps, {dialog.tree.node_count()} nodes: update + paint per step "
              f"({how}) {describe(costs)} (goal ≤ 5 ms: {verdict})")
    dialog.close()


def stall_while_tree_grows(app, window, text: str, seconds: float) -> None:
    """Print the window's longest stalls while the beam tree of ``text`` grows for ``seconds``."""
    from PySide6.QtCore import QEventLoop, QTimer

    tab = window.translate_tab
    bar = tab.view.choice_bar
    bar.beam_spin.setValue(10)
    bar.speed_slider.setValue(0)
    tab.view.source_input.setText(text)
    tab.open_beam_tree()
    settle = QEventLoop()  # the tree's window is on screen before the decoding starts
    QTimer.singleShot(500, settle.quit)
    settle.exec()
    meter = StallMeter(TICK_MS)
    stalls = meter.stalls
    runs = [0]

    def keep_decoding() -> None:
        if not tab.controller.running:
            tab.translate()
            runs[0] += 1

    feeder = QTimer()
    feeder.timeout.connect(keep_decoding)
    meter.start()
    feeder.start(1)
    loop = QEventLoop()
    QTimer.singleShot(int(seconds * 1000), loop.quit)
    loop.exec()
    meter.stop()
    feeder.stop()
    tab.controller.stop()
    ordered = sorted(stalls)
    verdict = "met" if ordered[-1] <= 50 else "MISSED"
    print(f"live tree, beam 10, {runs[0]} decodings in {seconds:.0f} s: longest stall {ordered[-1]:.1f} ms, "
          f"p99 {ordered[int(0.99 * (len(ordered) - 1))]:.1f} ms (goal ≤ 50 ms: {verdict})")


def main() -> None:
    """Parse the command line and run the benchmark (what it measures: the module docstring)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default=None)
    parser.add_argument("--repeats", type=int, default=20)
    parser.add_argument("--seconds", type=float, default=6.0)
    args = parser.parse_args()
    model = bench_model(args.model)
    from PySide6.QtWidgets import QApplication

    from engine.models.bundle import load_model_folder
    from gui.app import create_window

    isolate_settings()
    bundle = load_model_folder(model)
    text = SENTENCES.get(bundle.source_language, "Sunday, November 29, 2026")
    print(f"model: {model.name}; input: {text}")
    prefix_costs(bundle.translator, text, args.repeats)
    window = create_window(["--model", str(model)])
    app = QApplication.instance()
    while window.translate_tab.controller.bundle is None:
        app.processEvents()
        time.sleep(0.005)
    tree_costs(app, bundle.translator, text)
    stall_while_tree_grows(app, window, text, args.seconds)
    window.close()


if __name__ == "__main__":
    main()
