"""Back through training: from a click on a training curve to the first translation by that model.

    .venv/bin/python bench/bench_travel.py --run PATH [--repeat 5] [--threads 1]

``PATH`` is a run folder that kept weight snapshots (``train --keep-snapshots N``), e.g. one of the
model build's folders. For each of its snapshots, and again for the saved model, the script times
what the app does after a click (goal: ≤ 1 s to the first translation):

1. **find** — list the run's weight points and pick the one nearest the clicked step
   (engine.records.travel.weight_points / nearest_point);
2. **load** — read the run folder's config.json and tokenizers, build the model and load the
   snapshot's weights, every stored file checked (engine.records.travel.load_point);
3. **translate** — greedy decode of one sentence in the run's source language, every step's event
   as the Translate tab receives it (Translator.steps).

The app does 1 in the GUI thread and 2–3 in a decoding worker on one PyTorch thread
(``--threads``). PyTorch is imported before the clock starts: the app has it loaded by then.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import torch  # noqa: E402

from engine.records.travel import load_point, nearest_point, weight_points  # noqa: E402
from engine.settings.config import DecodeConfig  # noqa: E402

SENTENCES = {"zh": "我昨天晚上没有睡好，所以今天早上起得很晚。", "en": "I didn't sleep well last night, so I got up late."}


def click_to_translation(run: Path, step: float) -> tuple[float, float, float, str]:
    """Seconds to find, to load and to translate after a click at ``step``, and the point's label."""
    started = time.perf_counter()
    point = nearest_point(weight_points(run), step)
    if point is None:
        raise SystemExit(f"{run} has no weight points (train with --keep-snapshots N)")
    found = time.perf_counter()
    bundle = load_point(run, point)
    loaded = time.perf_counter()
    for _ in bundle.translator.steps(SENTENCES[bundle.source_language], DecodeConfig()):
        pass
    translated = time.perf_counter()
    return found - started, loaded - found, translated - loaded, point.label


def main() -> int:
    """Parse the command line and run the benchmark (what it measures: the module docstring)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--run", type=Path, required=True, help="a run folder with weight snapshots")
    parser.add_argument("--repeat", type=int, default=5, help="clicks per weight point")
    parser.add_argument("--threads", type=int, default=1, help="PyTorch threads (the app decodes on one)")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    points = weight_points(args.run)
    print(f"{args.run}: {len(points)} weight points; PyTorch threads {args.threads}")
    totals = []
    for point in points:
        times = [click_to_translation(args.run, point.step) for _ in range(args.repeat)]
        find, load, translate = (statistics.median(t[k] for t in times) for k in range(3))
        total = [sum(t[:3]) for t in times]
        totals += total
        print(f"  {times[0][3]:>28}: find {find * 1000:6.1f} ms, load {load * 1000:6.1f} ms, "
              f"translate {translate * 1000:6.1f} ms; total median {statistics.median(total) * 1000:6.1f} ms, "
              f"max {max(total) * 1000:6.1f} ms")
    print(f"every click: median {statistics.median(totals) * 1000:.1f} ms, max {max(totals) * 1000:.1f} ms "
          f"(goal ≤ 1000 ms)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
