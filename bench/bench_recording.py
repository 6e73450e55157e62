"""Recording a long decode: the memory a recording takes and the window's longest stall while it is
written, for GIF, MP4 and the session file, at 20, 100 and 410 output steps (synthetic greedy
`DecodeStep`s over max(10, T/2) source tokens — no model needed).

Each case runs in a process of its own (a fresh heap), its modules imported and its colour table read
before the clock starts (the app pays those once). Memory is the resident set sampled every 5 ms from
just before the recording starts, its peak minus that start; a case that passes ``--cap-mb`` is
stopped there (reported as "> cap"). The stall is the longest gap between two ticks of a 5 ms timer
in the GUI thread while the recording is written. Kind ``idle`` is the floor: a worker that only
sleeps for 2 s while the timer ticks (on a busy machine the window's turns are late even then). ``--in-window`` writes it in the GUI thread
itself, as the app did before recordings moved to a worker (``write_recording``, whose signature the
earlier code shares: run this script from an older checkout to measure it).

    python bench/bench_recording.py                     # every kind at 20, 100 and 410 steps
    python bench/bench_recording.py --steps 410 --kinds gif
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

TICK_MS = 5
SAMPLE_SECONDS = 0.005


def _rss_mb() -> float:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


class MemoryWatch(threading.Thread):
    """The peak resident set from now on; stops the process past ``cap_mb`` above the start."""

    def __init__(self, cap_mb: float, on_cap) -> None:
        super().__init__(daemon=True)
        self.start_mb = self.peak_mb = _rss_mb()
        self.cap_mb, self.on_cap = cap_mb, on_cap
        self.running = True

    def run(self) -> None:
        while self.running:
            self.peak_mb = max(self.peak_mb, _rss_mb())
            if self.peak_mb - self.start_mb > self.cap_mb:
                self.on_cap(self)
            time.sleep(SAMPLE_SECONDS)


def synthetic_steps(count: int, width: int):
    """``count`` greedy steps over ``width`` source tokens, as the engine makes them."""
    import numpy as np

    from engine.decoding.search import Alternative, DecodeStep

    rng = np.random.default_rng(0)
    rows = rng.dirichlet(np.full(width, 0.3), size=count).astype(np.float32)
    steps: list = []
    for index in range(count):
        token = "</s>" if index == count - 1 else f"▁word{index}"
        steps.append(DecodeStep(index=index, token_id=5 + index, token=token, probability=0.5,
                                attention=rows[index], scores=rows[index] * 4 - 1,
                                alternatives=tuple(Alternative(k, f"▁alt{k}", 0.1) for k in range(5)),
                                hypothesis_tokens=tuple(s.token for s in steps) + (token,),
                                hypothesis_attention=rows[: index + 1], log_probability=-0.1 * index,
                                is_eos=index == count - 1, previous_steps=tuple(steps)))
    return steps


def one_case(kind: str, count: int, in_window: bool, cap_mb: float, folder: str) -> dict:
    """Run one recording in this process; its figures."""
    from PySide6.QtCore import QElapsedTimer, QTimer
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance() or QApplication([])
    from gui.attention.panel import AttentionPanel

    with contextlib.suppress(ImportError):  # what the app imports once (absent from older checkouts)
        import engine.records.session_save  # noqa: F401
        from gui.attention.frames import viridis_palette

        viridis_palette()

    width = max(10, count // 2)
    panel = AttentionPanel()
    panel.begin(tuple(f"▁src{j}" for j in range(width)), True, "e_ij = vᵀ tanh(W s + U h)", "Additive (Bahdanau)")
    for step in synthetic_steps(count, width):
        panel.record.add(step)
    metadata = {"model": "bench", "source": "a synthetic decode", "model_sha256": "ab" * 32, "scorer": "additive",
                "seconds_per_step": 0.0, "beam_size": 1}
    path = Path(folder) / f"bench-{count}.{'session.json' if kind == 'session' else kind}"
    result = {"kind": kind, "steps": count, "source_tokens": width, "mode": "in window" if in_window else "worker"}

    def capped(watch: MemoryWatch) -> None:
        print(json.dumps(result | {"peak_mb": round(watch.peak_mb - watch.start_mb), "capped": True,
                                   "stall_ms": None, "seconds": None}), flush=True)
        os._exit(0)

    clock, longest, last = QElapsedTimer(), [0.0], [0.0]

    def tick() -> None:
        now = clock.nsecsElapsed() / 1e6
        longest[0] = max(longest[0], now - last[0])
        last[0] = now

    timer = QTimer()
    timer.setInterval(TICK_MS)
    timer.timeout.connect(tick)
    app.processEvents()
    watch = MemoryWatch(cap_mb, capped)
    watch.start()
    clock.start()
    timer.start()
    started = time.perf_counter()
    outcome = {"error": None}
    if in_window:
        from gui.attention.recording import write_recording

        QTimer.singleShot(0, lambda: _sync(write_recording, kind, panel, path, metadata, outcome, app))
        app.exec()
    else:
        from gui.attention.recording import recording_job
        from gui.workers import JobSet

        jobs = JobSet()
        frames = _idle if kind == "idle" else recording_job(kind, panel, path, metadata).frames
        job = jobs.start(frames, f"record {kind}")
        job.failed.connect(lambda _id, message, _details: outcome.update(error=message))
        job.done.connect(lambda _id: app.quit())
        app.exec()
        jobs.stop_all(5000)
    seconds = time.perf_counter() - started
    timer.stop()
    watch.running = False
    watch.join()
    return result | {"peak_mb": round(watch.peak_mb - watch.start_mb), "capped": False,
                     "stall_ms": round(longest[0], 1), "seconds": round(seconds, 2), "error": outcome["error"],
                     "file_mb": round(path.stat().st_size / 2**20, 2) if path.is_file() else None}


def _idle():
    """A worker that holds nothing: 2 s of sleeps."""
    for _ in range(200):
        time.sleep(0.01)
        yield None


def _sync(write, kind, panel, path, metadata, outcome, app) -> None:
    try:
        write(kind, panel, path, metadata)
    except Exception as error:  # reported in the figures
        outcome["error"] = str(error)
    app.quit()


def main() -> None:
    """Parse the command line and run the benchmark (what it measures: the module docstring)."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--steps", type=int, nargs="+", default=[20, 100, 410])
    parser.add_argument("--kinds", nargs="+", default=["idle", "gif", "mp4", "session"],
                        choices=["idle", "gif", "mp4", "session"])
    parser.add_argument("--in-window", action="store_true", help="write in the GUI thread (the earlier way)")
    parser.add_argument("--cap-mb", type=float, default=4096, help="stop a case whose memory grows past this")
    parser.add_argument("--one", nargs=2, metavar=("KIND", "STEPS"), help=argparse.SUPPRESS)
    parser.add_argument("--folder", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        print(json.dumps(one_case(args.one[0], int(args.one[1]), args.in_window, args.cap_mb, args.folder)), flush=True)
        return
    kinds = [kind for kind in args.kinds if not (args.in_window and kind == "idle")]
    with tempfile.TemporaryDirectory(prefix="bench-recording-") as folder:
        print(f"{'kind':8} {'steps':>5} {'S':>4} {'mode':10} {'peak MB':>8} {'stall ms':>9} {'seconds':>8} {'file MB':>8}")
        for count in args.steps:
            for kind in kinds:
                command = [sys.executable, __file__, "--one", kind, str(count), "--folder", folder,
                           "--cap-mb", str(args.cap_mb)] + (["--in-window"] if args.in_window else [])
                done = subprocess.run(command, capture_output=True, text=True, cwd=os.getcwd())
                lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
                if not lines:
                    print(f"{kind:8} {count:>5} failed: {done.stderr.strip().splitlines()[-1:]}")
                    continue
                row = json.loads(lines[-1])
                peak = f"> {args.cap_mb:.0f}" if row["capped"] else str(row["peak_mb"])
                print(f"{kind:8} {count:>5} {row['source_tokens']:>4} {row['mode']:10} {peak:>8} "
                      f"{row['stall_ms'] if row['stall_ms'] is not None else '-':>9} "
                      f"{row['seconds'] if row['seconds'] is not None else '-':>8} "
                      f"{row.get('file_mb') if row.get('file_mb') is not None else '-':>8}"
                      + (f"  ({row['error']})" if row.get("error") else ""), flush=True)


if __name__ == "__main__":
    main()
