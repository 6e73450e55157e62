"""Decode latency per sentence on the held-out test split: greedy and beam 5, p50 and p95.

    python bench/bench_decode_latency.py --model resources/models/zh-en-additive [--limit 300] [--threads 2]
        [--source-pieces 10]

One sentence at a time through Translator.translate (what the app does for a typed sentence),
plus batched greedy throughput (Translator.translate_many, batches of 64) for comparison. Any model folder
(an RNN's or a Transformer's). ``--source-pieces N`` times only the test sentences whose source the model cuts
into N pieces (issue 53's target is stated for a 10-token input). Each line also gives the mean CPU time of this
process per sentence (``time.process_time``), which the other processes of a loaded machine do not inflate.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from engine.corpus.choice import CorpusChoice  # noqa: E402
from engine.corpus.tasks import dates  # noqa: E402
from engine.files.paths import TATOEBA_CORPUS  # noqa: E402
from engine.models.bundle import load_model_folder  # noqa: E402
from engine.settings.config import DecodeConfig  # noqa: E402
from engine.training.jobs import load_corpus  # noqa: E402


def percentile(values: list[float], q: float) -> float:
    """The ``q`` quantile of ``values`` (nearest rank, no interpolation)."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main() -> None:
    """Parse the command line and run the benchmark (what it measures: the module docstring)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", type=Path, default=ROOT / "resources" / "models" / "zh-en-additive")
    parser.add_argument("--corpus", type=Path, default=TATOEBA_CORPUS)
    parser.add_argument("--limit", type=int, default=300, help="test sentences timed one by one")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--source-pieces", type=int, default=0,
                        help="time only sources of this many pieces (the model's tokenizer; 0 = any length)")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    bundle = load_model_folder(args.model)
    if bundle.info.get("task") == "dates":
        pairs = dates.dates_split().test
    elif args.corpus.is_file():
        choice = CorpusChoice(corpus=args.corpus, source_language=bundle.source_language,
                              target_language=bundle.target_language)
        pairs = load_corpus(choice).split.test
    else:
        print(f"corpus not found: {args.corpus}; skipping")
        return
    translator = bundle.translator
    sources = [p.source for p in pairs if not args.source_pieces
               or len(translator.prepare(p.source).ids) == args.source_pieces][: args.limit]
    if not sources:
        print(f"no test sentence has {args.source_pieces} source pieces; skipping")
        return
    translator.translate(sources[0])  # warm-up
    length = f" of {args.source_pieces} source pieces" if args.source_pieces else ""
    print(f"model {args.model.name} ({bundle.scorer}, {bundle.parameter_count:,} parameters), {len(sources)} test "
          f"sentences{length}, {args.threads} threads")
    for beam in (1, 5):
        config = DecodeConfig(beam_size=beam)
        times = []
        cpu_started = time.process_time()
        for source in sources:
            started = time.perf_counter()
            translator.translate(source, config)
            times.append((time.perf_counter() - started) * 1000)
        cpu = (time.process_time() - cpu_started) * 1000 / len(sources)
        name = "greedy" if beam == 1 else f"beam {beam}"
        print(f"{name:>7}: p50 {percentile(times, 0.5):6.1f} ms  p95 {percentile(times, 0.95):6.1f} ms  "
              f"mean {statistics.mean(times):6.1f} ms per sentence (CPU {cpu:6.1f} ms)")
    started = time.perf_counter()
    translator.translate_many([p.source for p in pairs], DecodeConfig(), batch_size=64)
    seconds = time.perf_counter() - started
    print(f"batched greedy (64): {seconds / len(pairs) * 1000:.2f} ms per sentence over {len(pairs)} sentences")


if __name__ == "__main__":
    main()
