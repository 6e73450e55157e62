"""Data-parallel training on this machine: one process against ``torchrun`` with N processes.

    .venv/bin/python bench/bench_ddp.py [--processes 2] [--steps 200] [--threads 2]

Both runs train the same model (the shipped models' sizes: embeddings and GRU 256, tied output
layer) on the dates task with the same global batch for the same number of optimizer steps, and
report the training throughput the engine logs (target tokens per second of optimizer steps,
validation excluded) and the wall time of the whole command. One process gets ``--threads``
torch threads; each of the N processes gets threads / N, so both use the same cores.

On a 2-core CPU no speed-up is possible: two processes share the two cores one process already
uses, and pay the all-reduce on top. Data parallelism pays where each process has a device (or a
machine) of its own.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from engine.training.metrics_log import read_records  # noqa: E402


def run(command: list[str]) -> tuple[float, float]:
    """(training tokens per second, wall seconds) of a train command writing to its --out."""
    started = time.perf_counter()
    subprocess.run(command, cwd=ROOT, check=True, capture_output=True)
    seconds = time.perf_counter() - started
    out = Path(command[command.index("--out") + 1])
    finished = [r for r in read_records(out)[0] if r.get("kind") == "finished"][-1]
    return float(finished["tokens_per_second"]), seconds


def main() -> None:
    """Parse the command line and run the benchmark (what it measures: the module docstring)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--processes", type=int, default=2)
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--threads", type=int, default=2, help="torch threads of the single process")
    args = parser.parse_args()
    common = ["--task", "dates", "--scorer", "additive", "--embedding-size", "256", "--hidden-size", "256",
              "--tie-embeddings", "--batch-size", "64", "--max-steps", str(args.steps), "--epochs", "1"]
    with tempfile.TemporaryDirectory() as folder:
        one = run([sys.executable, "-m", "engine", "train", *common, "--threads", str(args.threads),
                   "--out", f"{folder}/one"])
        many = run([sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc-per-node",
                    str(args.processes), "-m", "engine", "train", *common,
                    "--threads", str(max(1, args.threads // args.processes)), "--out", f"{folder}/many"])
    print(f"{args.steps} steps of 64 sentences, dates task, embeddings/GRU 256")
    print(f"1 process, {args.threads} threads:      {one[0]:8,.0f} target tok/s, whole command {one[1]:5.1f} s")
    print(f"{args.processes} processes (torchrun, gloo): {many[0]:8,.0f} target tok/s, whole command {many[1]:5.1f} s"
          f"  (×{many[0] / one[0]:.2f})")


if __name__ == "__main__":
    main()
