"""What keeping weight snapshots adds to a training run, per optimizer step (goal: ≤ 5 %).

    .venv/bin/python bench/bench_snapshot_cost.py [--steps 20] [--keep 12] [--validate-every 0]

Runs in the app keep the weights of 12 validations (gui/training/settings.APP_KEEP_SNAPSHOTS): one
float16 safetensors file per validation, with its digest, written atomically, older ones thinned
(engine/training/snapshots.save_snapshot). The script times, for the corpus preset's model (4 M weights,
vocabularies of 4,000) and the dates task's (0.5 M): one optimizer step on a batch of 64 random
sentence pairs of 12 tokens, and one snapshot written (the first few warm the digest and the disk, so
the median of 15). The cost per step is the snapshot's time over the steps between two validations:
``--validate-every`` N steps, or one epoch of the task (the dates task's 20,000 pairs: 313 steps; a
Tatoeba epoch: ~1,600 steps) when 0.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import torch  # noqa: E402

from engine.networks.model import build_model  # noqa: E402
from engine.training.snapshots import save_snapshot  # noqa: E402
from gui.training.settings import CORPUS_PRESET, TASK_PRESET  # noqa: E402

MODELS = (("corpus preset, zh→en", CORPUS_PRESET.model, (4000, 4000), 1600),
          ("dates task", TASK_PRESET.model, (500, 300), 313))


def step_seconds(model: torch.nn.Module, vocabularies: tuple[int, int], steps: int) -> float:
    """Median seconds of one optimizer step (forward, loss, backward, Adam) on random pairs."""
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    source = torch.randint(4, vocabularies[0], (64, 12))
    target = torch.randint(4, vocabularies[1], (64, 12))
    lengths = torch.full((64,), 12)
    times = []
    model.train()
    for _ in range(steps):
        started = time.perf_counter()
        optimizer.zero_grad()
        output = model(source, lengths, target[:, :-1])
        logits = output[0] if isinstance(output, tuple) else output
        loss = torch.nn.functional.cross_entropy(logits.reshape(-1, logits.shape[-1]), target[:, 1:].reshape(-1))
        loss.backward()
        optimizer.step()
        times.append(time.perf_counter() - started)
    return statistics.median(times[2:])


def snapshot_seconds(model: torch.nn.Module, keep: int) -> float:
    """Median seconds of one snapshot written (and the folder thinned to ``keep``)."""
    state = model.state_dict()
    with tempfile.TemporaryDirectory() as folder:
        times = []
        for validation in range(1, 16):
            started = time.perf_counter()
            save_snapshot(Path(folder), validation * 100, state, keep)
            times.append(time.perf_counter() - started)
    return statistics.median(times)


def main() -> None:
    """Time a step and a snapshot for each model; print the snapshot's share of a step."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--keep", type=int, default=12)
    parser.add_argument("--validate-every", type=int, default=0)
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    for name, shape, vocabularies, epoch_steps in MODELS:
        torch.manual_seed(1)
        model = build_model(shape.with_vocabularies(*vocabularies))
        step = step_seconds(model, vocabularies, args.steps)
        snapshot = snapshot_seconds(model, args.keep)
        between = args.validate_every or epoch_steps
        share = snapshot / (between * step)
        print(f"{name}: a step {step * 1000:.0f} ms, a snapshot {snapshot * 1000:.0f} ms; one every {between} steps "
              f"adds {share:.2%} per step (goal ≤ 5 %); every 100 steps {snapshot / (100 * step):.2%}")


if __name__ == "__main__":
    main()
