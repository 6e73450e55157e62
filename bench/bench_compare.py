"""The Compare tab at full speed: every scorer decoding one sentence at once.

    .venv/bin/python bench/bench_compare.py [--repeats 5]

Uses the shipped zh→en models (all five scorers). Measures, per comparison of a ~20-token
sentence: the time until every panel is complete, and the longest stall of a 10 ms GUI timer
meanwhile; then forced decoding of a 50-token target, per model, with the output layer batched (as the Compare
view runs it) and step by step (exact, the command line's default). Goals (issue "Compare the
scorers"): grid complete ≤ 1 s, longest stall ≤ 50 ms, forced decoding ≤ 20 ms per model.
``--enlarged additive`` keeps that map open in its large window meanwhile (it redraws with its panel).
"""

from __future__ import annotations

import argparse
import statistics
import time

from bench_gui_common import ROOT, StallMeter, isolate_settings

SENTENCE = "虽然这本书很长，但是我还是在一个星期内把它读完了，因为故事太有意思了。"
TICK_MS = 10


def main() -> None:
    """Parse the command line and run the benchmark (what it measures: the module docstring)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--enlarged", metavar="SCORER", default="",
                        help="also keep this scorer's map open large (its window redraws with its panel)")
    args = parser.parse_args()
    from PySide6.QtCore import QEventLoop
    from PySide6.QtWidgets import QApplication

    import engine.records.catalog
    from gui.app import create_window

    isolate_settings()
    engine.records.catalog.SHIPPED_MODELS = ROOT / "resources" / "models"
    window = create_window([])
    app = QApplication.instance()
    window.tabs.setCurrentWidget(window.compare_tab)
    tab = window.compare_tab
    while not tab.controller.slots or tab.controller.loading:
        app.processEvents()
        time.sleep(0.01)
    if args.enlarged:
        tab.enlarge(args.enlarged)
        for _ in range(50):  # shown and laid out before the clock starts
            app.processEvents()
            time.sleep(0.01)
    meter = StallMeter(TICK_MS)
    meter.start()
    stalls = meter.stalls
    completions = []
    for _ in range(args.repeats):
        loop = QEventLoop()
        tab.controller.runFinished.connect(loop.quit)
        started = time.perf_counter()
        meter.restart_clock()
        tab.set_sentence(SENTENCE)
        loop.exec()
        completions.append(time.perf_counter() - started)
        tab.controller.runFinished.disconnect(loop.quit)
    meter.stop()
    scorers = sorted(tab.controller.bundles)
    length = len(next(iter(tab.controller.bundles.values())).translator.prepare(SENTENCE).ids)
    print(f"{len(scorers)} models ({', '.join(scorers)}), a {length}-token sentence, {args.repeats} comparisons"
          + (f", {args.enlarged}'s map open large" if args.enlarged else ""))
    print(f"grid complete: median {statistics.median(completions) * 1000:.0f} ms, max {max(completions) * 1000:.0f} ms")
    print(f"10 ms timer: longest stall {max(stalls):.1f} ms, p95 "
          f"{sorted(stalls)[int(0.95 * (len(stalls) - 1))]:.1f} ms (n={len(stalls)})")
    from engine.decoding.forced import force_decode_ids

    ids = list(range(10, 60))  # a 50-token target
    for scorer, bundle in sorted(tab.controller.bundles.items()):
        figures = []
        for batched in (False, True):  # exact (the CLI's default) and batched (the Compare view's)
            force_decode_ids(bundle.translator, SENTENCE, ids, batched_output=batched)
            started = time.perf_counter()
            for _ in range(10):
                force_decode_ids(bundle.translator, SENTENCE, ids, batched_output=batched)
            figures.append((time.perf_counter() - started) * 100)
        print(f"forced decoding of 50 target tokens, {scorer}: {figures[1]:.1f} ms with the output layer batched "
              f"(the Compare view), {figures[0]:.1f} ms step by step (exact)")
    window.close()


if __name__ == "__main__":
    main()
