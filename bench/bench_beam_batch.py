"""Beam-5 evaluation speed: one sentence at a time against batched beam search (engine.decoding.beam_batch).

    python bench/bench_beam_batch.py [--model resources/models/zh-en-additive] [--limit 500] [--threads 2]
        [--against resources/models/zh-en-additive]

Decodes the first ``--limit`` sources of the test split both ways, checks that the outputs are the
same, and prints sentences per second. Any model folder (an RNN's or a Transformer's); ``--against`` measures a
second one the same way in the same run, right after, and prints the first's batched speed as a multiple of the
second's (issue 53: the Transformer's batched beam ≥ the RNN's sentences/s), by the wall clock and by this process's
CPU time (``time.process_time``: on a loaded machine the wall clock counts the other processes' turns too). Joey NMT 2.3 decoded the same 500 sources at beam 5 at 73
sentences/s (batched) on the project's 2-core reference machine (issue measurement, see docs/performance.md).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from engine.corpus.choice import CorpusChoice  # noqa: E402
from engine.files.paths import TATOEBA_CORPUS  # noqa: E402
from engine.models.bundle import load_model_folder  # noqa: E402
from engine.training.jobs import load_corpus  # noqa: E402

JOEY_BEAM5_SENTENCES_PER_SECOND = 73.0


def measure(folder: Path, corpus: Path, limit: int, beam: int, threads: int) -> tuple[float, float]:
    """Decode the test sources with the model in ``folder`` one at a time and batched, print the figures; the
    batched sentences per second by the wall clock and per CPU second."""
    bundle = load_model_folder(folder)
    choice = CorpusChoice(corpus=corpus, source_language=bundle.source_language,
                          target_language=bundle.target_language)
    sources = [p.source for p in load_corpus(choice).split.test[:limit]]
    config = bundle.decode_config(beam)
    translator = bundle.translator
    translator.translate(sources[0], config)  # warm-up
    started = time.perf_counter()
    one_by_one = [translator.translate(s, config) for s in sources]
    single = len(sources) / (time.perf_counter() - started)
    started, cpu_started = time.perf_counter(), time.process_time()
    batched = translator.translate_many(sources, config)
    many = len(sources) / (time.perf_counter() - started)
    many_cpu = len(sources) / (time.process_time() - cpu_started)
    same = sum(a.text == b.text for a, b in zip(one_by_one, batched, strict=True))
    print(f"model {folder.name} ({bundle.scorer}, {bundle.parameter_count:,} parameters), beam {beam}, "
          f"α {config.length_penalty}, {len(sources)} test sources, {threads} threads")
    print(f"one at a time: {single:.1f} sentences/s")
    print(f"batched:       {many:.1f} sentences/s ({many / single:.2f}× one at a time; "
          f"{many / JOEY_BEAM5_SENTENCES_PER_SECOND:.2f}× Joey NMT's {JOEY_BEAM5_SENTENCES_PER_SECOND:.0f})")
    print(f"batched by CPU time: {many_cpu:.1f} sentences per CPU second ({1000 / many_cpu:.2f} ms a sentence)")
    print(f"identical outputs: {same} of {len(sources)}", flush=True)
    return many, many_cpu


def main() -> None:
    """Parse the command line and run the benchmark (what it measures: the module docstring)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", type=Path, default=ROOT / "resources" / "models" / "zh-en-additive")
    parser.add_argument("--corpus", type=Path, default=TATOEBA_CORPUS)
    parser.add_argument("--limit", type=int, default=500)
    parser.add_argument("--beam", type=int, default=5)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--against", type=Path, default=None, help="a second model folder, measured right after")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    many, many_cpu = measure(args.model, args.corpus, args.limit, args.beam, args.threads)
    if args.against is not None:
        other, other_cpu = measure(args.against, args.corpus, args.limit, args.beam, args.threads)
        print(f"batched: {args.model.name} {many:.1f} against {args.against.name} {other:.1f} sentences/s: "
              f"{many / other:.2f}×; by CPU time {many_cpu:.1f} against {other_cpu:.1f}: {many_cpu / other_cpu:.2f}×")


if __name__ == "__main__":
    main()
