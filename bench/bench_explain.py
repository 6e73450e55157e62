"""Attribution's cost: a 20-token output of a 20-token source explained by all three methods, and a
100-token input's peak memory.

    .venv/bin/python bench/bench_explain.py [--model zh-en-additive] [--repeats 3] [--ig-steps 32]

1. **Speed.** The first 20 source pieces of a long input and a 20-piece output (the model's own greedy
   output, cut or extended with its own continuation and closed by ``</s>``) are attributed with integrated
   gradients, input × gradient and occlusion (engine.explain.explain_ids: every step, over the source and the
   prefix). Goal: all three together ≤ 2 s on two cores. Wall time and process CPU time are both printed: on a
   machine shared with other jobs the wall time says more about the load than about the work. PyTorch runs as the
   app runs it, its idle OpenMP threads sleeping (``OMP_WAIT_POLICY=PASSIVE`` unless set otherwise).
2. **Memory.** The same for a 100-piece source and a 100-piece output, each method in a fresh process; the
   figure printed is the peak resident memory (sampled every 2 ms) minus the process's once the model is loaded, over the first ``--memory-steps`` steps (whole chunks of work;
   each chunk's batch is bounded alike). Also the time to the first step and to closing the generator then.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
# As the app runs PyTorch (gui/app.py): idle OpenMP threads sleep instead of spinning. On two cores shared with
# other jobs, spinning threads made every small operation wait for a descheduled peer (IG: 16 s CPU against 1.6).
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

LONG_INPUT = ("我每天早上都在公园里跑步，然后去咖啡馆吃早饭。虽然我在学校学了六年英语，我还是说不好。"
              "他告诉我们，明天的会议因为天气不好而推迟到下个星期。") * 4


def pieces(translator, count: int) -> tuple[list[int], list[int]]:
    """``count`` source pieces and a ``count``-piece output (the last one EOS): the model's own greedy output of
    the long input, repeated as often as needed to fill ``count`` (what it costs does not depend on the words)."""
    from engine.text.tokenizer import EOS_ID

    source = list(translator.prepare(LONG_INPUT).ids[:count])
    own = [step.token_id for step in translator.translate(LONG_INPUT).steps if step.token_id != EOS_ID]
    target = (own * (count // max(len(own), 1) + 1))[: count - 1]
    return source, target + [EOS_ID]


class PeakMemory:
    """The largest resident memory above the start, sampled every 2 ms from /proc/self/statm in a thread
    (``ru_maxrss`` cannot be reset: the model's loading would hide a smaller peak)."""

    def __init__(self) -> None:
        import threading

        self.start = self.peak = self._resident()
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)
        self._thread.start()

    @staticmethod
    def _resident() -> int:
        with open("/proc/self/statm") as statm:
            return int(statm.read().split()[1]) * resource.getpagesize()

    def _sample(self) -> None:
        while not self._done.wait(0.002):
            self.peak = max(self.peak, self._resident())

    def stop(self) -> int:
        """Stop sampling; the peak above the start, in MB."""
        self._done.set()
        self._thread.join()
        return round((max(self.peak, self._resident()) - self.start) / 2**20)


def speed(model_name: str, repeats: int, ig_steps: int) -> None:
    """Print each method's time on 20 × 20 pieces (median of ``repeats``) and the three together."""
    import torch

    from engine.explain import ATTRIBUTION_METHODS, explain_ids
    from engine.files.paths import model_argument
    from engine.models.bundle import load_model_folder

    translator = load_model_folder(model_argument(model_name)).translator
    source, target = pieces(translator, 20)
    print(f"{model_name}: {len(source)} source pieces, {len(target)} output pieces, {torch.get_num_threads()} threads, "
          f"IG with {ig_steps} points, OMP_WAIT_POLICY={os.environ.get('OMP_WAIT_POLICY')}")
    list(explain_ids(translator.model, source, target, "grad"))  # warm-up
    totals_wall, totals_cpu = 0.0, 0.0
    for method in ATTRIBUTION_METHODS:
        walls, cpus = [], []
        for _ in range(repeats):
            wall, cpu = time.perf_counter(), time.process_time()
            steps = list(explain_ids(translator.model, source, target, method, ig_steps=ig_steps))
            walls.append(time.perf_counter() - wall)
            cpus.append(time.process_time() - cpu)
            assert len(steps) == len(target)
        wall, cpu = statistics.median(walls), statistics.median(cpus)
        totals_wall += wall
        totals_cpu += cpu
        print(f"  {method:<10} {wall:6.2f} s wall, {cpu:6.2f} s CPU (median of {repeats})")
    print(f"  all three  {totals_wall:6.2f} s wall, {totals_cpu:6.2f} s CPU (goal: ≤ 2 s wall on two cores)")


def memory_child(model_name: str, method: str, count: int, steps: int) -> dict:
    """In a fresh process: peak memory above the loaded model's while ``method`` explains the first ``steps`` steps
    of ``count`` × ``count`` pieces (at least one whole chunk of work: the memory a chunk takes is bounded
    alike for every chunk)."""
    from engine.explain import explain_ids
    from engine.files.paths import model_argument
    from engine.models.bundle import load_model_folder

    translator = load_model_folder(model_argument(model_name)).translator
    source, target = pieces(translator, count)
    meter = PeakMemory()
    started = time.perf_counter()
    generator = explain_ids(translator.model, source, target, method)
    next(generator)
    first = time.perf_counter() - started
    generator.close()
    closed = time.perf_counter() - started
    started = time.perf_counter()
    generator = explain_ids(translator.model, source, target, method)
    done = sum(1 for _, _ in zip(range(steps), generator, strict=False))
    generator.close()
    return {"method": method, "steps": done, "first_step_s": round(first, 2), "closed_after_s": round(closed, 2),
            "all_steps_s": round(time.perf_counter() - started, 2),
            "peak_above_model_mb": meter.stop()}


def memory(model_name: str, count: int, steps: int) -> None:
    """Print each method's peak memory on ``count`` × ``count`` pieces, measured in a fresh process."""
    print(f"{count} source pieces, {count} output pieces: each method in a fresh process")
    for method in ("ig", "grad", "occlusion"):
        output = subprocess.run([sys.executable, __file__, "--child", method, "--model", model_name,
                                 "--pieces", str(count), "--memory-steps", str(steps)],
                                capture_output=True, text=True, check=True).stdout
        found = json.loads(output.strip().splitlines()[-1])
        print(f"  {method:<10} peak {found['peak_above_model_mb']:5,} MB above the loaded model; first step after "
              f"{found['first_step_s']} s (closed at once: {found['closed_after_s']} s); the first {found['steps']} "
              f"steps {found['all_steps_s']} s")


def main() -> int:
    """Run the speed case, then the memory case (each method in a child process)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="zh-en-additive")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--ig-steps", type=int, default=32)
    parser.add_argument("--pieces", type=int, default=100, help="the memory case's source and output length")
    parser.add_argument("--memory-steps", type=int, default=10, help="the memory case's steps explained")
    parser.add_argument("--child", default=None, help=argparse.SUPPRESS)
    parser.add_argument("--skip-memory", action="store_true")
    parser.add_argument("--skip-speed", action="store_true")
    args = parser.parse_args()
    if args.child:
        print(json.dumps(memory_child(args.model, args.child, args.pieces, args.memory_steps)))
        return 0
    if not args.skip_speed:
        speed(args.model, args.repeats, args.ig_steps)
    if not args.skip_memory:
        memory(args.model, args.pieces, args.memory_steps)
    return 0


if __name__ == "__main__":
    sys.exit(main())
