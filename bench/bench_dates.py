"""Wall-clock minutes for the built-in dates task to reach 95% exact match on its valid split.

    python bench/bench_dates.py [--scorer additive] [--threads 2] [--validate-every 50]

Trains the default dates model (the same as `python -m engine train --task dates`) and validates
every N steps, printing elapsed time and exact match; stops at the first validation ≥ 95%.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from engine.corpus.choice import CorpusChoice  # noqa: E402
from engine.settings.config import ModelShape, TrainConfig  # noqa: E402
from engine.training.events import TrainControl, ValidationEvent  # noqa: E402
from engine.training.jobs import prepare_job  # noqa: E402
from engine.training.trainer import train  # noqa: E402


def main() -> None:
    """Parse the command line and run the benchmark (what it measures: the module docstring)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scorer", default="additive")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--validate-every", type=int, default=50)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    started = time.monotonic()
    with tempfile.TemporaryDirectory() as folder:
        config = TrainConfig(epochs=20, validate_every_steps=args.validate_every, seed=1)
        job, _ = prepare_job(CorpusChoice.dates_task(), Path(folder), ModelShape(scorer=args.scorer), config)
        control = TrainControl()
        for event in train(job, control):
            if isinstance(event, ValidationEvent):
                minutes = (time.monotonic() - started) / 60
                print(f"step {event.step:5d}  {minutes:5.2f} min  exact match {event.exact_match:.3f}  "
                      f"BLEU {event.bleu:.2f}")
                if event.exact_match >= 0.95:
                    print(f"reached 95% exact match in {minutes:.2f} minutes (preparation included), "
                          f"scorer {args.scorer}, {args.threads} threads")
                    control.request_stop()


if __name__ == "__main__":
    main()
