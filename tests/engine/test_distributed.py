"""Data-parallel training under torchrun (engine.training.distributed): two gloo processes on the CPU take
the steps one process takes on the same global batch."""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from engine.settings.errors import ConfigError
from engine.training.distributed import SINGLE, Distributed, from_environment
from engine.training.metrics_log import read_records

ROOT = Path(__file__).resolve().parents[2]
# A tiny dates model, no dropout (each rank would draw other masks than one process does), a fixed
# number of steps: the loss curves of 1 and 2 processes must then agree to float rounding.
TINY_RUN = ["--task", "dates", "--scorer", "additive", "--embedding-size", "16", "--hidden-size", "32",
            "--dropout", "0", "--batch-size", "32", "--max-steps", "24", "--epochs", "1", "--seed", "3",
            "--threads", "1"]


def test_the_rank_comes_from_torchruns_environment_and_each_rank_gets_its_own_slice():
    assert from_environment({}) == SINGLE and not SINGLE.active
    ranks = from_environment({"WORLD_SIZE": "2", "RANK": "1", "LOCAL_RANK": "1"})
    assert ranks.active and not ranks.is_main
    batch = list(range(7))
    slices = [Distributed(rank, 2, rank).shard(batch) for rank in (0, 1)]
    assert slices == [[0, 2, 4, 6], [1, 3, 5]] and sorted(slices[0] + slices[1]) == batch
    for bad in ({"WORLD_SIZE": "2", "RANK": "2"}, {"WORLD_SIZE": "two"}):
        with pytest.raises(ConfigError):
            from_environment(bad)


def _losses(folder: Path) -> list[float]:
    records, _ = read_records(folder)
    return [r["loss"] for r in records if r.get("kind") == "step"]


@pytest.mark.slow
def test_two_gloo_processes_follow_one_process_on_the_same_global_batch(tmp_path):
    single, parallel = tmp_path / "single", tmp_path / "parallel"
    subprocess.run([sys.executable, "-m", "engine", "train", *TINY_RUN, "--out", str(single)],
                   cwd=ROOT, check=True, capture_output=True, timeout=300)
    run = subprocess.run([sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc-per-node", "2",
                          "-m", "engine", "train", *TINY_RUN, "--out", str(parallel)],
                         cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr[-3000:]
    assert "2 processes" in run.stderr and run.stderr.count("[train] finished") == 1  # rank 0 alone reports
    one, two = _losses(single), _losses(parallel)
    assert len(one) == len(two) == 24
    assert two == pytest.approx(one, abs=1e-4)  # the same steps: they differ by float rounding only (~1e-6)
    assert (parallel / "config.json").is_file() and (parallel / "model.safetensors").is_file()


def _ranks_of(launcher: int) -> dict[int, int]:
    """{rank: process id} of torchrun's workers (their RANK, read from /proc)."""
    found = {}
    for entry in Path("/proc").iterdir():
        try:
            if not entry.name.isdigit() or int((entry / "stat").read_text().split()[3]) != launcher:
                continue
            environment = (entry / "environ").read_bytes().split(b"\0")
        except OSError:
            continue
        found.update({int(item[5:]): int(entry.name) for item in environment if item.startswith(b"RANK=")})
    return found


@pytest.mark.slow
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="finds the ranks' processes in /proc")
def test_a_rank_that_dies_makes_each_survivor_say_so_in_one_line_and_fail_without_a_traceback(tmp_path):
    logs, out = tmp_path / "logs", tmp_path / "run"
    long_run = [*TINY_RUN[: TINY_RUN.index("--max-steps")], "--max-steps", "100000", "--epochs", "50",
                "--seed", "3", "--threads", "1"]
    launcher = subprocess.Popen(
        [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc-per-node", "3", "--log-dir",
         str(logs), "--redirects", "2", "-m", "engine", "train", *long_run, "--out", str(out)],
        cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 240
        while not (out / "metrics.jsonl").is_file() or "step" not in (out / "metrics.jsonl").read_text():
            assert time.monotonic() < deadline and launcher.poll() is None, "the run never started training"
            time.sleep(0.5)
        ranks = _ranks_of(launcher.pid)
        os.kill(ranks[1], signal.SIGKILL)
        launcher.communicate(timeout=240)
    finally:
        if launcher.poll() is None:
            launcher.kill()
    assert launcher.returncode != 0
    told = {}
    for rank in (0, 2):  # the survivors
        [stderr] = logs.glob(f"*/attempt_0/{rank}/stderr.log")
        text = stderr.read_text()
        said = [line for line in text.splitlines() if "another process of this run has ended" in line]
        assert len(said) == 1 and said[0].startswith(f"[train] rank {rank} of 3: "), text[-2000:]
        assert "Traceback" not in text and "stopping: saving a checkpoint" not in text, text[-2000:]
        told[rank] = said[0]
    assert "resume" in told[0]  # rank 0 owns the run folder: it says what a --resume would continue from
