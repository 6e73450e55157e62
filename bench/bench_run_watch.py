"""Watching a run from its folder: opening a 100,000-line metrics log, then following it live.

    .venv/bin/python bench/bench_run_watch.py [--steps 100000] [--follow-seconds 6]

A run folder is written as a long command-line run leaves it (its start line, ``--steps`` step
lines, a validation with an attention snapshot every 2,000 steps); the Train tab opens it
(``TrainingController.watch_run``, what "Open run…" calls) while a 10 ms GUI timer measures how
late its ticks come. Then another thread appends 50 step lines a second, as a training process
does, and the bench measures how far behind the curves are (from a line's write to the record
holding it). Goals (issue "Beyond one machine", item 5): no GUI stall over 50 ms; at most 1 s behind.
"""

from __future__ import annotations

import argparse
import json
import statistics
import threading
import time
from pathlib import Path

from bench_gui_common import StallMeter, isolate_settings

TICK_MS = 10


def write_log(folder: Path, steps: int) -> None:
    """Write a run folder's metrics log of ``steps`` steps (with validations) in ``folder``."""
    from engine.settings.config import ModelShape, TrainConfig

    folder.mkdir(parents=True)
    lines = [{"kind": "start", "source_language": "zh", "target_language": "en", "task": None,
              "corpus_path": "/data/big.tsv", "data": {"corpus": "big.tsv"},
              "model": ModelShape().with_vocabularies(4000, 4000).to_dict(),
              "train_config": TrainConfig(epochs=20).to_dict()}]
    attention = [[round(1.0 if i == j else 0.0, 3) for j in range(20)] for i in range(20)]
    for step in range(1, steps + 1):
        lines.append(_step(step))
        if step % 2000 == 0:
            lines.append({"kind": "validation", "step": step, "epoch": step // 5000 + 1, "valid_loss": 2.0,
                          "bleu": 20.0, "chrf": 40.0, "exact_match": 0.1, "is_best": True, "best_bleu": 20.0,
                          "learning_rate": 0.001, "elapsed_seconds": step * 0.1,
                          "samples": [{"source": "源句", "reference": "a reference", "hypothesis": "a hypothesis",
                                       "source_tokens": [f"s{j}" for j in range(20)],
                                       "tokens": [f"t{i}" for i in range(20)], "attention": attention}]})
    (folder / "metrics.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")


def _step(step: int) -> dict:
    return {"kind": "step", "step": step, "epoch": step // 5000 + 1, "batch": step % 5000 + 1,
            "batches_per_epoch": 5000, "loss": 3.0 / (1 + step / 10000), "tokens_per_second": 4000.0,
            "learning_rate": 0.001, "skipped_steps": 0, "elapsed_seconds": step * 0.1, "eta_seconds": 100.0}


def main() -> None:
    """Parse the command line and run the benchmark (what it measures: the module docstring)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=100_000)
    parser.add_argument("--follow-seconds", type=float, default=6.0)
    args = parser.parse_args()
    import tempfile

    from PySide6.QtCore import QEventLoop, QTimer
    from PySide6.QtWidgets import QApplication

    from gui.training.panel import TrainingPanel

    isolate_settings()
    _app = QApplication.instance() or QApplication([])  # noqa: F841 (kept alive for the run)
    folder = Path(tempfile.mkdtemp(prefix="attention-studio-watch-")) / "run"
    write_log(folder, args.steps)
    print(f"metrics log: {args.steps + 1 + args.steps // 2000:,} lines, "
          f"{(folder / 'metrics.jsonl').stat().st_size / 2**20:.1f} MB")
    panel = TrainingPanel()
    panel.resize(1280, 760)
    panel.show()
    meter = StallMeter(TICK_MS)
    meter.start()
    gaps = meter.stalls

    def run_until(condition, seconds: float, each=lambda: None) -> None:
        """Run the event loop (as the app does: Qt's own loop, Python only in slots) until
        ``condition`` holds or ``seconds`` pass, calling ``each`` every 5 ms."""
        loop = QEventLoop()
        deadline = time.perf_counter() + seconds
        check = QTimer()

        def poll() -> None:
            each()
            if condition() or time.perf_counter() >= deadline:
                loop.quit()

        check.timeout.connect(poll)
        check.start(5)
        loop.exec()
        check.stop()

    # The Train tab is on screen before "Open run…" is clicked, its one-time warm-up (an import in
    # the background, 2–3 s after the tab is first shown) done.
    run_until(lambda: not panel.controller.warming_up(), 30)
    run_until(lambda: False, 0.5)
    gaps.clear()
    started = time.perf_counter()
    meter.restart_clock()
    record = panel.controller.watch_run(folder)
    run_until(lambda: record.last_step is not None and record.last_step.step == args.steps, 60)
    opened = time.perf_counter() - started
    run_until(lambda: False, 0.5)  # the redraws that follow
    print(f"open: all {args.steps:,} steps shown after {opened:.2f} s; longest GUI stall {max(gaps):.1f} ms, "
          f"median {statistics.median(gaps):.1f} ms (n={len(gaps)})")
    gaps.clear()
    written: dict[int, float] = {}
    lags: list[float] = []
    stop = threading.Event()

    def append() -> None:
        step = args.steps
        with (folder / "metrics.jsonl").open("a", encoding="utf-8") as handle:
            while not stop.is_set():
                step += 1
                handle.write(json.dumps(_step(step)) + "\n")
                handle.flush()
                written[step] = time.perf_counter()
                time.sleep(0.02)

    writer = threading.Thread(target=append)
    writer.start()
    seen = [args.steps]

    def follow() -> bool:
        newest = record.last_step.step
        now = time.perf_counter()
        for step in range(seen[0] + 1, newest + 1):
            lags.append(now - written[step])
        seen[0] = max(seen[0], newest)
        return False

    run_until(lambda: False, args.follow_seconds, follow)
    stop.set()
    writer.join()
    print(f"follow: {len(lags):,} appended steps, behind by at most {max(lags):.2f} s (median "
          f"{statistics.median(lags):.2f} s; goal ≤ 1 s); longest GUI stall {max(gaps):.1f} ms (goal ≤ 50 ms)")
    meter.stop()
    panel.controller.stop_and_wait(3000)
    panel.close()


if __name__ == "__main__":
    main()
