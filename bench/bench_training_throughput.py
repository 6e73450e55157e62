"""Training throughput of the default zh→en model, in target tokens per second.

Model: 1-layer bi-GRU 256, embeddings 128, SentencePiece 4k per side, batch 64 sentences, additive
attention (the default). Method: target tokens (EOS included, padding excluded) over the wall time
of the optimizer steps, validation excluded — the same method as Joey NMT's log figure.

    python bench/bench_training_throughput.py [--steps 80] [--threads 2] [--scorer additive]
        [--tie-embeddings] [--batch-size 64] [--profile]

``--tie-embeddings`` measures the shipped models' architecture (output layer tied to the target
embedding, so a 128×4000 output product instead of 256×4000).

Needs the Tatoeba corpus at resources/corpora/tatoeba-cmn-eng/cmn-eng.tsv (or --corpus).
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
from engine.files.paths import TATOEBA_CORPUS  # noqa: E402
from engine.settings.config import ModelShape, TrainConfig  # noqa: E402
from engine.training.batches import make_batches  # noqa: E402
from engine.training.events import TrainControl  # noqa: E402
from engine.training.jobs import prepare_job  # noqa: E402
from engine.training.train_run import TrainingRun  # noqa: E402


def main() -> None:
    """Parse the command line and run the benchmark (what it measures: the module docstring)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=TATOEBA_CORPUS)
    parser.add_argument("--steps", type=int, default=80)
    parser.add_argument("--warmup", type=int, default=10)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--scorer", default="additive")
    parser.add_argument("--tie-embeddings", action="store_true", help="the shipped models' tied output layer")
    parser.add_argument("--batch-size", type=int, default=TrainConfig.batch_size, help="sentences per batch")
    parser.add_argument("--profile", action="store_true", help="print where the time goes (torch profiler)")
    args = parser.parse_args()
    if not args.corpus.is_file():
        print(f"corpus not found: {args.corpus}; skipping")
        return
    torch.set_num_threads(args.threads)
    with tempfile.TemporaryDirectory() as folder:
        shape = ModelShape(scorer=args.scorer, tie_embeddings=args.tie_embeddings)
        config = TrainConfig(seed=1, batch_size=args.batch_size)
        job, _ = prepare_job(CorpusChoice(corpus=args.corpus), Path(folder), shape, config)
        run = TrainingRun(job, TrainControl())
        batches = make_batches(run.train_data, job.train_config.batch_size, seed=1)
        for indices in batches[: args.warmup]:
            run.train_step(indices)
        run.progress.update(train_seconds=0.0, train_tokens=0)
        started = time.perf_counter()
        measured = batches[args.warmup : args.warmup + args.steps]
        if args.profile:
            with torch.profiler.profile() as profiler:
                for indices in measured:
                    run.train_step(indices)
            print(profiler.key_averages().table(sort_by="self_cpu_time_total", row_limit=18))
        else:
            for indices in measured:
                run.train_step(indices)
        wall = time.perf_counter() - started
    tokens = run.progress["train_tokens"]
    tied = ", tied output layer" if args.tie_embeddings else ""
    print(f"scorer {args.scorer}{tied}, {torch.get_num_threads()} threads, {job.model.parameter_count():,} parameters")
    print(f"{len(measured)} steps, {tokens:,} target tokens in {wall:.1f} s: {tokens / wall:,.0f} target tokens/s "
          f"({wall / len(measured) * 1000:.0f} ms per batch of {job.train_config.batch_size})")


if __name__ == "__main__":
    main()
