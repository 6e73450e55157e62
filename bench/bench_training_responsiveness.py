"""How responsive the window stays while the Train tab trains a model (issue: GUI responsiveness).

Starts a real run on the built-in dates task in a :class:`TrainingPanel` and measures the gaps
between ticks of a 10 ms QTimer on the GUI thread, the way a user feels stalls. Prints the longest
gap and the median and 99th percentile, separately for the preparation (corpus, tokenizers) and
for training (validations included). Targets: longest ≤ 100 ms, median ≤ 20 ms.

    python bench/bench_training_responsiveness.py [--seconds 60] [--hidden 128] [--visible]

The run's model goes to a temporary data folder, never the user's.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

TICK_MS = 10


def _figures(gaps: list[float]) -> str:
    if not gaps:
        return "no ticks"
    ordered = sorted(gaps)
    p99 = ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))]
    return (f"{len(gaps):6d} ticks  longest {max(gaps):6.1f} ms  median {statistics.median(gaps):5.1f} ms  "
            f"p99 {p99:6.1f} ms  over 100 ms: {sum(g > 100 for g in gaps)}")


def main() -> int:
    """Parse the command line and run the benchmark (what it measures: the module docstring)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=60.0, help="stop the run after this long (default 60)")
    parser.add_argument("--hidden", type=int, default=128, help="hidden size (default 128, the form's default)")
    parser.add_argument("--epochs", type=int, default=6, help="epochs (default 6)")
    parser.add_argument("--visible", action="store_true", help="use the real display instead of offscreen")
    args = parser.parse_args()
    if not args.visible:
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    os.environ["ATTENTION_STUDIO_DATA"] = tempfile.mkdtemp(prefix="attention-studio-bench-")

    from PySide6.QtCore import QElapsedTimer, QTimer
    from PySide6.QtWidgets import QApplication

    from gui.training.panel import TrainingPanel

    app = QApplication.instance() or QApplication(sys.argv)
    panel = TrainingPanel()
    panel.resize(1400, 900)
    panel.show()
    panel.form.hidden.setValue(args.hidden)
    panel.form.epochs.setValue(args.epochs)

    clock = QElapsedTimer()
    gaps: dict[str, list[float]] = {"preparing": [], "training": []}
    worst: list[tuple[float, float, str]] = []  # (gap, at, status) of the longest gaps
    last = [0.0]
    ended = [False]

    def tick() -> None:
        now = clock.nsecsElapsed() / 1e6
        record = panel.controller.current
        phase = "training" if record is not None and record.step_count > 0 else "preparing"
        gaps[phase].append(now - last[0])
        if len(gaps[phase]) > 1 or phase == "training":
            worst.append((now - last[0], now, record.status if record is not None else "-"))
            worst.sort(reverse=True)
            del worst[5:]
        last[0] = now

    def finished(_folder: str) -> None:
        ended[0] = True

    panel.runFinished.connect(finished)
    timer = QTimer()
    timer.setInterval(TICK_MS)
    timer.timeout.connect(tick)
    app.processEvents()
    clock.start()
    timer.start()
    panel.start()
    started = time.monotonic()
    while not ended[0] and time.monotonic() - started < args.seconds:
        app.processEvents()
        time.sleep(0.001)
    timer.stop()
    stopped_cleanly = panel.stop_and_wait(30_000)
    record = panel.table.records()[-1]
    app.processEvents()
    print(f"dates run: hidden {args.hidden}, {record.step_count} steps, {len(record.validations)} validations, "
          f"{record.last_step.tokens_per_second if record.last_step else 0:,.0f} target tokens/s, "
          f"{os.cpu_count()} CPU cores, training on {panel.status_label.text().count('tok/s') and ''}"
          f"{_threads()} torch thread(s)")
    print(f"preparing : {_figures(gaps['preparing'][1:])}")
    print(f"training  : {_figures(gaps['training'])}")
    everything = gaps["preparing"][1:] + gaps["training"]
    print(f"whole run : {_figures(everything)}")
    print("longest gaps: " + "; ".join(f"{gap:.0f} ms at {at / 1000:.2f} s ({status})" for gap, at, status in worst))
    ok = everything and max(everything) <= 100 and statistics.median(everything) <= 20
    print(f"target (longest ≤ 100 ms, median ≤ 20 ms): {'met' if ok else 'NOT met'}; stopped cleanly: "
          f"{stopped_cleanly}")
    return 0


def _threads() -> int:
    from gui.training.runner import training_threads

    return training_threads()


if __name__ == "__main__":
    raise SystemExit(main())
