"""Training throughput of our Transformer against Joey NMT 2.3's of the same size, side by side in one run.

    .venv/bin/python bench/bench_transformer_vs_joey.py [--rounds 3] [--steps 300] [--logging-freq 25]
        [--threads 2] [--out build/bench-transformer-vs-joey] [--venv build/peer/venv] [--corpus FILE]

Issue 53's target: our Transformer trains at ≥ 1.5× the target tokens per second of Joey NMT's Transformer of the
same size on the same machine. Rounds alternate (ours, Joey, ours, Joey, …) so that whatever else the machine does
falls on both alike; each round trains a fresh start of its model for ``--steps`` steps of the same batch.

- **Ours**: the shipped zh→en Transformer recipe (``scripts/build_shipped_models.py``: its ``zh-en-transformer``
  arguments, parsed by ``python -m engine train``'s own parser: 2 layers, model size 256, the registry's 4 heads,
  feed-forward 1024, output layer tied to the target embeddings, batches of 64 sentences) on our strict zh→en split,
  on the CPU. The recipe's long examples (pairs joined into one) are turned off (``--concat-share 0``), so that both
  sides train on the same single sentences. Driven as ``bench/bench_training_throughput.py`` drives a
  ``TrainingRun``: ``train_step`` over the run's own batches (shuffled pools sorted by length), in this process.
- **Joey's**: ``bench/peer_joey.py``'s environment (``ensure_environment``: Joey 2.3 under torch 2.13, its one
  patch), its export of the same split and its SentencePiece vocabularies of 4000 pieces
  (``export_split``, ``ensure_vocabularies``), and its Transformer config (``train_config`` /
  ``model_section("transformer")``: the same sizes, pre-norm, tied softmax, batches of 64 sentences), trained by
  ``python -m joeynmt train`` in a fresh model folder under ``--out`` for the same number of steps, validation
  never reached. Its process gets the same thread count through ``OMP_NUM_THREADS`` / ``MKL_NUM_THREADS``
  (``peer_joey.thread_environment``); this process sets ``torch.set_num_threads``.

**Method, the same for both**: target tokens (each sentence's pieces and its end-of-sentence token, no padding)
over wall time, in intervals of ``--logging-freq`` steps; a round's figure is the mean of its intervals with the
first one left out as warm-up. Joey's intervals are its own step lines' ``Tokens per Sec`` (Joey times each
interval from the previous line, validation excluded); ours are timed the same way around ``train_step``. The
ratio printed is the median over the pairs of rounds of ours / Joey's. Both models' parameter counts are printed
(ours from the model, Joey's from its log's ``Total params``) with their difference.

Timings mean something only on a quiet machine: nothing else CPU-bound running.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import time
from dataclasses import fields
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import peer_joey as peer  # noqa: E402

from engine.settings.config import ModelShape, TrainConfig  # noqa: E402
from engine.settings.scorer_table import SCORER_TABLE  # noqa: E402
from scripts.build_shipped_models import shipped_plan, with_values  # noqa: E402

PLAN_NAME = "zh-en-transformer"
SINGLE_SENTENCES = {"--concat-share": "0"}  # the recipe's long examples off: both sides train on single sentences
DEFAULT_OUT = ROOT / "build" / "bench-transformer-vs-joey"


# ------------------------------------------------------------------------------------------------ the two sides


def our_recipe(corpus: Path | None = None) -> tuple[ModelShape, TrainConfig, argparse.Namespace]:
    """The shipped zh→en Transformer's model shape and training settings, from the build's own arguments parsed by
    ``python -m engine train``'s parser (long examples off, the CPU), and the parsed flags."""
    from engine.cli.cli_train import add_train_parser
    from engine.files.paths import TATOEBA_CORPUS

    plan = next(p for p in shipped_plan(corpus or TATOEBA_CORPUS) if p.name == PLAN_NAME)
    arguments = with_values(plan.arguments, {**SINGLE_SENTENCES, "--device": "cpu"})
    if corpus is not None:
        arguments = with_values(arguments, {"--corpus": str(corpus)})
    parser = argparse.ArgumentParser(prog="python -m engine")
    add_train_parser(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(["train", *arguments, "--out", str(DEFAULT_OUT / "ours")])
    given = vars(args)

    def settings(settings_class: type):
        return settings_class(**{f.name: given[f.name] for f in fields(settings_class) if f.name in given})

    return settings(ModelShape).with_hidden_size(args.hidden_size), settings(TrainConfig), args


def our_sizes(shape: ModelShape, config: TrainConfig) -> dict[str, int | bool]:
    """What must be the same on both sides, of ours."""
    return {"layers": shape.transformer_layers, "heads": SCORER_TABLE[shape.scorer].heads,
            "model_size": shape.embedding_size, "feed_forward": shape.feedforward_size,
            "tied_output": shape.tie_embeddings, "batch_sentences": config.batch_size}


def joey_sizes(config: dict) -> dict[str, int | bool]:
    """The same, read from a Joey config (``peer_joey.train_config``); encoder and decoder must agree."""
    model, training = config["model"], config["training"]
    encoder, decoder = model["encoder"], model["decoder"]
    keys = ("num_layers", "num_heads", "hidden_size", "ff_size")
    if {k: encoder[k] for k in keys} != {k: decoder[k] for k in keys}:
        raise ValueError(f"Joey's encoder and decoder differ: {encoder} / {decoder}")
    if encoder["embeddings"]["embedding_dim"] != encoder["hidden_size"]:
        raise ValueError("Joey's embeddings and model size differ")
    return {"layers": encoder["num_layers"], "heads": encoder["num_heads"], "model_size": encoder["hidden_size"],
            "feed_forward": encoder["ff_size"], "tied_output": bool(model["tied_softmax"]),
            "batch_sentences": training["batch_size"] if training["batch_type"] == "sentence" else -1}


def joey_config(model_dir: Path, data: Path, steps: int, logging_freq: int) -> dict:
    """Joey's Transformer config (peer_joey's, at our sizes) for ``steps`` steps into ``model_dir``: a step line every
    ``logging_freq`` steps, no validation."""
    never = steps * 10  # validation_freq past the last step
    plan = peer.Schedule(updates=steps, epochs=steps + 1, logging_freq=logging_freq, validation_freq=never)
    return peer.train_config("transformer", model_dir, data, plan)


# --------------------------------------------------------------------------------------------------- the figures


def joey_interval_rates(log_text: str) -> list[float]:
    """Joey's ``Tokens per Sec`` of each step line of a ``train.log``, in order (the warm-up interval included)."""
    return [float(m["tps"]) for m in peer._STEP_LINE.finditer(log_text)]


def round_rate(interval_rates: list[float]) -> float:
    """A round's tokens/s: the mean of its intervals, the first (warm-up) left out; needs two intervals or more."""
    if len(interval_rates) < 2:
        raise ValueError(f"{len(interval_rates)} interval(s): at least 2 needed (the first is warm-up); "
                         "give more --steps or a smaller --logging-freq")
    return statistics.mean(interval_rates[1:])


def ratio_of_rounds(ours: list[float], joey: list[float]) -> float:
    """The median over the pairs of rounds of ours / Joey's."""
    return statistics.median(a / b for a, b in zip(ours, joey, strict=True))


# ----------------------------------------------------------------------------------------------------- training


def train_ours(job, steps: int, logging_freq: int, seed: int) -> list[float]:
    """Train a fresh copy of the job's model for ``steps`` steps; the target tokens/s of each interval."""
    from engine.networks.model import build_model
    from engine.training.batches import make_batches
    from engine.training.events import TrainControl
    from engine.training.train_run import TrainingRun

    job.model.load_state_dict(build_model(job.model.config, seed=seed).state_dict())  # a fresh start, as Joey's
    run = TrainingRun(job, TrainControl())
    batches = make_batches(run.train_data, job.train_config.batch_size, seed=seed)[:steps]
    if len(batches) < steps:
        raise SystemExit(f"--steps {steps}: one epoch has only {len(batches)} batches")
    rates, started, tokens = [], time.perf_counter(), run.progress["train_tokens"]
    for step, indices in enumerate(batches, start=1):
        run.train_step(indices)
        if step % logging_freq == 0:
            now, seen = time.perf_counter(), run.progress["train_tokens"]
            rates.append((seen - tokens) / (now - started))
            started, tokens = now, seen
    return rates


def train_joey(venv: Path, folder: Path, data: Path, steps: int, logging_freq: int,
               threads: int) -> tuple[list[float], int | None]:
    """Train Joey's Transformer in a fresh ``folder`` (replaced if there); its step lines' tokens/s and parameters."""
    if folder.exists():
        shutil.rmtree(folder)
    folder.parent.mkdir(parents=True, exist_ok=True)
    config_path = folder.with_suffix(".yaml")
    config_path.write_text(peer.to_yaml(joey_config(folder, data, steps, logging_freq)), encoding="utf-8")
    result = subprocess.run([str(peer.venv_python(venv)), "-m", "joeynmt", "train", str(config_path), "--skip-test"],
                            env=peer.thread_environment(threads), capture_output=True, text=True, check=False)
    log_path = folder / "train.log"
    log = log_path.read_text(encoding="utf-8") if log_path.is_file() else ""
    if result.returncode != 0:
        raise SystemExit(f"Joey NMT exited with {result.returncode}:\n{(log or result.stderr)[-3000:]}")
    for checkpoint in folder.glob("*.ckpt"):  # the one Joey saves at its end (tens of MB a round): not needed
        checkpoint.unlink()
    return joey_interval_rates(log), peer.parse_train_log(log)["parameters"]


def prepare(args: argparse.Namespace):
    """Both sides ready to train: our job (tokenizers trained into OUT/ours) and Joey's environment and data."""
    from engine.corpus.choice import CorpusChoice
    from engine.training.jobs import prepare_job

    shape, config, parsed = our_recipe(args.corpus)
    choice = CorpusChoice(corpus=parsed.corpus, source_language=parsed.src, target_language=parsed.tgt,
                          split_rule=parsed.split_rule)
    job, loaded = prepare_job(choice, args.out / "ours", shape, config)
    peer.ensure_environment(args.venv)
    data = args.out / "data"
    peer.export_split(loaded.split, data, held_out_limit=peer.SMOKE_HELD_OUT)  # Joey reads dev and test too
    peer.ensure_vocabularies(args.venv, data, args.threads)
    ours, theirs = our_sizes(shape, config), joey_sizes(joey_config(args.out / "joey", data, 1, 1))
    if ours != theirs:
        raise SystemExit(f"the two sides differ in size: ours {ours}, Joey's {theirs}")
    print(f"both sides: {ours}; Joey's vocabularies {peer.VOCABULARY} pieces a side, ours "
          f"{job.source_tokenizer.vocab_size} / {job.target_tokenizer.vocab_size}", flush=True)
    return job, data


def main(argv: list[str] | None = None) -> int:
    """Parse the command line and run the benchmark (what it measures: the module docstring)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3, help="rounds of each side, alternating (ours first)")
    parser.add_argument("--steps", type=int, default=300, help="training steps of each round")
    parser.add_argument("--logging-freq", type=int, default=25, help="steps per timed interval (Joey's logging_freq)")
    parser.add_argument("--threads", type=int, default=2, help="CPU threads of each side")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--venv", type=Path, default=ROOT / "build" / "peer" / "venv")
    parser.add_argument("--corpus", type=Path, default=None, help="the Tatoeba cmn-eng.tsv (default: the shipped one)")
    args = parser.parse_args(argv)
    if args.steps < 2 * args.logging_freq:
        parser.error("--steps must be at least twice --logging-freq (the first interval is warm-up)")
    import torch

    torch.set_num_threads(args.threads)
    args.out, args.venv = args.out.resolve(), args.venv.resolve()
    job, data = prepare(args)
    ours, joey, joey_parameters = [], [], None
    for round_no in range(1, args.rounds + 1):
        rates = train_ours(job, args.steps, args.logging_freq, seed=round_no)
        ours.append(round_rate(rates))
        print(f"round {round_no} ours: {ours[-1]:8,.0f} target tokens/s (intervals {[round(r) for r in rates]})",
              flush=True)
        rates, joey_parameters = train_joey(args.venv, args.out / "joey" / f"round-{round_no}", data, args.steps,
                                            args.logging_freq, args.threads)
        joey.append(round_rate(rates))
        print(f"round {round_no} Joey: {joey[-1]:8,.0f} target tokens/s (intervals {[round(r) for r in rates]})",
              flush=True)
    our_parameters = job.model.parameter_count()
    difference = (our_parameters - joey_parameters) / joey_parameters * 100 if joey_parameters else float("nan")
    print(f"parameters: ours {our_parameters:,}, Joey's {joey_parameters or 0:,} ({difference:+.1f} %"
          f"{'' if abs(difference) <= 5 else ': more than 5 % apart'})")
    print(f"{args.rounds} rounds of {args.steps} steps, batch {job.train_config.batch_size} sentences, "
          f"{torch.get_num_threads()} threads: ours median {statistics.median(ours):,.0f}, Joey's median "
          f"{statistics.median(joey):,.0f} target tokens/s; ratio (median of rounds) "
          f"{ratio_of_rounds(ours, joey):.2f}× (goal ≥ 1.5×)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
