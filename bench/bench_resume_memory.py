"""Memory of what a resume reads of a big metrics log: its first line (the stored command), the lines
it keeps up to its checkpoint (streamed into the log's replacement) and how the run last ended.

    .venv/bin/python bench/bench_resume_memory.py [--megabytes 100]

Writes a log of step lines with a validation line (a 20×20 attention snapshot) every 1,000 steps, then
reports the peak of Python's allocations (tracemalloc) and the time of each reading. A reader that
loaded the whole log (as resuming did before it streamed) peaked at about 11 times the log's size.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from engine.training.metrics_log import METRICS_FILE, MetricsLog, last_finish_reason, read_description  # noqa: E402
from tests.engine.test_metrics_damage import COMMAND, _line, step_event, validation_event  # noqa: E402


def write_big_log(folder: Path, megabytes: float) -> int:
    """Write a metrics log of about ``megabytes`` in ``folder``; the number of step lines."""
    log = MetricsLog(folder)
    log.start({"source_language": "en", "target_language": "iso", "command": COMMAND})
    step_line = _line(step_event(0))
    validation_line = _line(validation_event(0, tokens=tuple("abcdefghijklmnopqrst"),
                                             source=tuple("ABCDEFGHIJKLMNOPQRST")))
    target, step = megabytes * 1024**2, 0
    with (folder / METRICS_FILE).open("a", encoding="utf-8") as handle:
        while handle.tell() < target:
            step += 1
            handle.write(step_line.replace('"step": 0', f'"step": {step}') + "\n")
            if step % 1000 == 0:
                handle.write(validation_line.replace('"step": 0', f'"step": {step}') + "\n")
    return step


def measure(name: str, function) -> None:
    """Run ``function`` and print its time and peak Python memory under ``name``."""
    tracemalloc.start()
    started = time.perf_counter()
    function()
    seconds = time.perf_counter() - started
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    print(f"{name:<28} peak {peak / 1024**2:7.2f} MB  {seconds:6.1f} s")


def main() -> None:
    """Parse the command line and run the benchmark (what it measures: the module docstring)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--megabytes", type=float, default=100.0)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as temp:
        folder = Path(temp)
        steps = write_big_log(folder, args.megabytes)
        size = (folder / METRICS_FILE).stat().st_size
        print(f"log: {size / 1024**2:.1f} MB, {steps:,} steps")
        measure("stored command (first line)", lambda: json.dumps(read_description(folder)))
        measure("how the run last ended", lambda: last_finish_reason(folder))
        measure("keep the lines up to a step", lambda: MetricsLog(folder).truncate_after(steps // 2))


if __name__ == "__main__":
    main()
