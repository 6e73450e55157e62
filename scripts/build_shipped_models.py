"""Build the shipped models — one per scorer in each direction (multi-head: zh→en only) — resumably, to a
budget in target tokens.

Every model is a run folder under ``--out`` (default ``build/models``), trained by the engine's own
command line on the Tatoeba corpus shipped in resources/corpora. The build is idempotent and spans as
many sittings as it needs: rerun the same command and

- a model whose run ended on its own (early stopping or the token budget) is skipped;
- a model with a checkpoint resumes from it, bit-exact (``train --resume``: the same batches, the
  same random state); the engine checkpoints after every epoch (a few minutes), so a killed build or
  a restarted machine loses at most the epoch it was in;
- a model whose run ends on its own is finished by the build: its decoding tuned on the long validation set
  (scripts/tune_decoding.py) and its folder copied into ``resources/models-next`` (``--kept``), to be
  committed there; a model kept there under the plan's own recipe is skipped, so that a build carried on
  by another machine, whose ``build/`` is empty, does not train it again; when the set is complete it
  moves into resources/models byte for byte, so the repository's history holds each model once;
- any other model starts afresh;
- the runs under way go first (plan order within each part), so a sitting finishes what an earlier one
  started before it starts a new run.

Two models can train at once, one thread each (``--parallel 2 --threads 1``, the default on a
2-core machine: 1.3× the total throughput of one run on both cores). Ctrl-C or SIGTERM stops every run
cleanly, each with a checkpoint to resume from.

The recipe (docs/model-build.md has the measurements behind it):

- the budget is counted in **target tokens seen** (``--max-target-tokens``), so that a slower or busier
  machine builds the same model; each run also stops early when its validation score has not improved
  for ``EARLY_STOPPING`` validations, with the learning rate halved after ``LR_PATIENCE`` (the plateau
  schedule);
- the score a run is judged on is the mean of its BLEU on the valid pairs and on the valid pairs joined
  1–8 at a time (``--long-validation``): a model is chosen for translating both single sentences and
  long inputs;
- long examples from the start: a share of every epoch's examples are 2–K training pairs joined into
  one (engine.corpus.concat);
- the strict split rule: test = the pairs whose English sha256 digest starts with ``0`` (the peer's test
  split), valid = ``1…``, both held out of training, and no training pair shares a source with them —
  so early stopping reads a held-out score and no test sentence is ever seen in training;
- Chinese tokenizers keep every character of the training data (no byte pieces for them);
- dot and bilinear scores warm up from the scaled-dot temperature over the whole budget.

    python scripts/build_shipped_models.py [--out build/models] [--max-target-tokens 40000000]
        [--parallel 2] [--threads 1] [--device cpu] [--only NAME ...]
    python scripts/build_shipped_models.py --trials   # the long-example mixes, into build/trials
    python scripts/build_shipped_models.py --transformer-trials   # the Transformer's sizes, into build/trials

Then ``python scripts/ship_models.py build/models`` copies the finished folders into resources/models.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from engine.files.paths import TATOEBA_CORPUS  # noqa: E402
from engine.files.safe_open import read_capped  # noqa: E402
from engine.models.config_file import MAX_CONFIG_BYTES  # noqa: E402
from engine.settings.errors import EngineError, ModelFileError  # noqa: E402
from engine.training.checkpoint_state import has_checkpoint  # noqa: E402
from engine.training.events import ENDED_ON_ITS_OWN  # noqa: E402
from engine.training.metrics_log import last_finish_reason  # noqa: E402
from engine.training.run_lock import RunFolderLock  # noqa: E402

TOKEN_CAP = 40_000_000  # target tokens per model at most
# dot / bilinear: the share of the budget over which their scores warm up to the formula as written. The
# whole budget: warmed up over its first 4 M target tokens (a tenth), zh→en dot peaked there (valid score
# 14.7 at 3.3 M) and never gained again in 8 validations at the plain formula (docs/model-build.md); over
# 80–100 % of a 25-minute budget it had scored best (docs/shipped-models.md, "How the recipe was chosen").
WARMUP_SHARE = 1.0
LR_PATIENCE = 2  # validations without a better score before the learning rate is halved
EARLY_STOPPING = 8  # validations without a better score before the run ends
CONCAT_MAX, CONCAT_SHARE = 8, 0.3  # long examples from the start: 2–8 pairs joined, 30 % of the examples (the mix trials)

RECIPE = ("--learning-rate", "0.002", "--lr-schedule", "plateau", "--lr-patience", str(LR_PATIENCE),
          "--early-stopping-patience", str(EARLY_STOPPING), "--long-validation", "--tie-embeddings",
          "--concat-max", str(CONCAT_MAX), "--concat-share", str(CONCAT_SHARE), "--concat-start", "0",
          "--keep-snapshots", "5", "--split-rule", "strict", "--epochs", "1000", "--float16")
SCORERS = ("additive", "none", "scaled_dot", "dot", "bilinear")
WARMED_UP = ("dot", "bilinear")
# zh→en at embeddings 256 with more dropout; en→zh at the default sizes, which keeps the shipped set
# within the repository's weight budget.
DIRECTION_SHAPES = {("zh", "en"): ("--embedding-size", "256", "--dropout", "0.3"), ("en", "zh"): ()}
# The Transformer (engine.networks.transformer), both directions alike: the set's budget, stopping rule, split, long examples
# and tied output layer, with its own sizes and regularization, a learning rate warmed up over its first steps, and
# half the RNN's peak rate. Chosen by the trials below on valid only (docs/model-build.md, "The Transformer").
TRANSFORMER_SHAPE = {"--embedding-size": "256", "--transformer-layers": "2", "--feedforward-size": "1024",
                     "--dropout": "0.3", "--attention-dropout": "0.1", "--activation-dropout": "0.1",
                     "--positions": "sinusoidal", "--learning-rate": "0.001", "--warmup-steps": "500"}


@dataclass(frozen=True)
class ModelPlan:
    """One model of the build: its folder name and its ``engine train`` arguments (all but ``--out``,
    ``--threads``, ``--device`` and ``--resume`` / ``--overwrite``, which the build adds)."""

    name: str
    arguments: tuple[str, ...]


def shipped_plan(corpus: Path, max_target_tokens: int = TOKEN_CAP, seed: int = 1) -> list[ModelPlan]:
    """The shipped set, in build order: each direction's additive model first (the curves that choose
    the budget), then the fixed context C, then the other scorers, then multi-head attention (zh→en only)."""
    corpus_argument = os.path.relpath(corpus, ROOT)
    plans = []
    order = [("zh", "en", "additive"), ("en", "zh", "additive")]
    order += [(s, t, scorer) for scorer in SCORERS[1:] for s, t in DIRECTION_SHAPES]
    order.append(("zh", "en", "multihead"))  # the sixth mechanism, one direction within the weight budget
    order += [(s, t, "transformer") for s, t in DIRECTION_SHAPES]  # the Transformer, both directions alike
    for source, target, scorer in order:
        arguments = ("--corpus", corpus_argument, "--src", source, "--tgt", target, "--scorer", scorer,
                     "--max-target-tokens", str(max_target_tokens), "--seed", str(seed), *RECIPE)
        if scorer == "transformer":
            arguments = with_values(arguments, TRANSFORMER_SHAPE)
        else:
            warmup = ("--temperature-warmup", f"{WARMUP_SHARE:g}") if scorer in WARMED_UP else ()
            arguments = (*arguments, *warmup, *DIRECTION_SHAPES[(source, target)])
        plans.append(ModelPlan(f"{source}-{target}-{scorer}", arguments))
    return plans


def with_values(arguments: tuple[str, ...], values: dict[str, str]) -> tuple[str, ...]:
    """``arguments`` with each flag of ``values`` set to its value: in place where the flag is given, else
    appended (in the order of ``values``)."""
    changed = list(arguments)
    for flag, value in values.items():
        if flag in changed:
            changed[changed.index(flag) + 1] = value
        else:
            changed += [flag, value]
    return tuple(changed)


TRIAL_TOKENS = 3_000_000  # the reduced budget the long-example mixes are compared at
# The mixes set against the recipe's. The recipe was share 0.15 with K 8 until these trials: share 0.3 (K 8)
# scored 16.3 at 3 M target tokens against its 13.4 (share 0.15 with K 12: 11.7), docs/model-build.md.
MIX_TRIALS = {"share0.15-k8": {"--concat-share": "0.15", "--concat-max": "8"},
              "share0.15-k12": {"--concat-share": "0.15", "--concat-max": "12"}}


def mix_trials(corpus: Path, max_target_tokens: int = TRIAL_TOKENS, seed: int = 1) -> list[ModelPlan]:
    """The long-example mixes set against the recipe's (share 0.3, K 8): zh→en additive runs that differ
    from the shipped one only in the share of joined examples or the most pairs joined, at a reduced
    budget. Each is read against the shipped zh-en-additive run's validations at the same target
    tokens (docs/model-build.md); the mix that scores higher there is the recipe's."""
    base = shipped_plan(corpus, max_target_tokens, seed)[0]
    return [ModelPlan(f"{base.name}-{label}", with_values(base.arguments, values)) for label, values in MIX_TRIALS.items()]


TRANSFORMER_TRIAL_TOKENS = 2_000_000  # the reduced budget the Transformer's sizes are compared at
# The recipe the trials started from (3 layers; TRANSFORMER_SHAPE but for that), and what each trial changes of it (the
# "base" trial nothing), after Araabi & Monz 2020's advice for small corpora (shallower, narrower, more regularized)
# and the open question of positions. 2 layers scored within 0.5 of 3 and became the recipe (docs/model-build.md).
TRANSFORMER_TRIAL_BASE = {"--transformer-layers": "3"}
TRANSFORMER_TRIALS = {"base": {}, "learned-positions": {"--positions": "learned"},
                      "layers2": {"--transformer-layers": "2"}, "ff512": {"--feedforward-size": "512"}}


def transformer_trials(corpus: Path, max_target_tokens: int = TRANSFORMER_TRIAL_TOKENS, seed: int = 1) -> list[ModelPlan]:
    """zh→en Transformer runs that differ from the recipe they started from (TRANSFORMER_TRIAL_BASE) in one setting
    each, at a reduced budget, read on valid only (their validation scores at the same target tokens): the sizes and
    positions the recipe takes."""
    base = next(plan for plan in shipped_plan(corpus, max_target_tokens, seed) if plan.name == "zh-en-transformer")
    start = with_values(base.arguments, TRANSFORMER_TRIAL_BASE)
    return [ModelPlan(f"{base.name}-{label}", with_values(start, values)) for label, values in TRANSFORMER_TRIALS.items()]


KEPT = ROOT / "resources" / "models-next"  # finished models of the set being built, until they ship
SHIPPED = ROOT / "resources" / "models"  # the shipped set: a model shipped under the plan's recipe is done too


def kept_by_recipe(kept: Path | None, plan: ModelPlan) -> bool:
    """Whether ``kept`` (a folder of finished models) holds ``plan``'s model, trained by the plan's own
    arguments (a model kept under an older recipe does not count: it is built again)."""
    if kept is None or not (kept / plan.name / "config.json").exists():
        return False
    try:
        command = stored_config(kept / plan.name / "config.json").get("command")
    except EngineError:  # damaged, or not a regular file: built again
        return False
    return isinstance(command, str) and f"train {' '.join(plan.arguments)} " in command


def stored_config(path: Path) -> dict:
    """A model's config.json as a dict (a regular file, at most MAX_CONFIG_BYTES read: engine.files.safe_open);
    ModelFileError in one line when it cannot be read or is no JSON object."""
    try:
        config = json.loads(read_capped(path, MAX_CONFIG_BYTES, ModelFileError).decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as error:
        raise ModelFileError(f"{path} is not valid JSON ({' '.join(str(error).split())[:120]})") from None
    except RecursionError:
        raise ModelFileError(f"{path} nests too deep to read") from None
    if not isinstance(config, dict):
        raise ModelFileError(f"{path} holds no JSON object")
    return config


def kept_in(folders: tuple[Path | None, ...], plan: ModelPlan) -> Path | None:
    """The first of ``folders`` (the kept folder, then the shipped one) holding ``plan``'s model under
    the plan's own recipe, or None: a model shipped before the rest of its set is not built again."""
    return next((folder for folder in folders if kept_by_recipe(folder, plan)), None)


def model_state(folder: Path, kept: bool = False) -> str:
    """``kept`` (finished and kept in the repository's folder of finished models), ``finished`` (its run
    ended on its own), ``resumable`` (a checkpoint to go on from) or ``new``."""
    if kept:
        return "kept"
    if last_finish_reason(folder) in ENDED_ON_ITS_OWN:
        return "finished"
    return "resumable" if has_checkpoint(folder) else "new"


def under_way_first(plans: list[ModelPlan], out: Path, done: tuple[Path | None, ...] = ()) -> list[ModelPlan]:
    """``plans`` with the runs under way (a checkpoint in ``out``, not kept in ``done``) moved to the front,
    each part in plan order: a sitting finishes what an earlier one started before it starts new runs."""
    def under_way(plan: ModelPlan) -> bool:
        return model_state(out / plan.name, kept_in(done, plan) is not None) == "resumable"
    return sorted(plans, key=lambda plan: not under_way(plan))


class Build:
    """Runs the plans' trainings as child processes, ``parallel`` at a time; :meth:`stop` asks every
    running one to stop (SIGTERM: the engine checkpoints and exits) and starts no more."""

    def __init__(self, out: Path, parallel: int = 2, threads: int = 1, device: str = "cpu",
                 log=print, kept: Path | None = None, shipped: Path | None = None) -> None:
        self.out, self.parallel, self.threads, self.device, self.log = out, parallel, threads, device, log
        self.kept, self.shipped = kept, shipped
        self.children: set[subprocess.Popen] = set()
        self.lock = threading.Lock()
        self.stopping = False

    def command(self, plan: ModelPlan, state: str) -> list[str]:
        folder = os.path.relpath(self.out / plan.name, ROOT)
        return [sys.executable, "-m", "engine", "train", *plan.arguments, "--threads", str(self.threads),
                "--device", self.device, "--resume" if state == "resumable" else "--overwrite", "--out", folder]

    def run_one(self, plan: ModelPlan) -> tuple[str, str, int]:
        """Train (or resume, or skip) one model, then finish it (:meth:`finish`); (name, its state
        before, exit code)."""
        folder = self.out / plan.name
        done = kept_in((self.kept, self.shipped), plan)
        state = model_state(folder, done is not None)
        if state == "kept":  # a rerun says what it skipped, and why
            self.log(f"{plan.name}: skipped, already built under the plan's recipe (in {done})")
            return plan.name, state, 0
        if self.stopping:
            return plan.name, state, 130
        if state == "finished":  # trained before; finished now if it was not then
            return plan.name, state, self.finish(plan)
        self.log(f"{plan.name}: {'resuming' if state == 'resumable' else 'starting'}")
        started = time.monotonic()
        code = self.run_child(plan, self.command(plan, state))
        now = model_state(folder)
        self.log(f"{plan.name}: {now if code == 0 else f'exit {code}, {now}'} after "
                 f"{(time.monotonic() - started) / 60:.1f} min")
        if code == 0 and now == "finished":
            code = self.finish(plan)
        return plan.name, state, code

    def finish(self, plan: ModelPlan) -> int:
        """A model whose run ended on its own, made ready to keep: its decoding tuned on the long
        validation set (scripts/tune_decoding.py: averaging, α, β, n-gram) and its folder copied into
        the kept folder (scripts/ship_models.py), where a later build on any machine finds it once it
        is committed. Nothing to do without a kept folder (the trials); the exit code of the first
        step that failed, else 0."""
        if self.kept is None or self.stopping:
            return 0
        corpus = plan.arguments[plan.arguments.index("--corpus") + 1]
        folder = os.path.relpath(self.out / plan.name, ROOT)
        steps = (("tuning its decoding", [sys.executable, str(ROOT / "scripts" / "tune_decoding.py"), folder,
                                          "--corpus", corpus, "--threads", str(self.threads)]),
                 ("keeping it", [sys.executable, str(ROOT / "scripts" / "ship_models.py"), os.path.relpath(self.out, ROOT),
                                 "--into", str(self.kept), "--only", plan.name]))
        for what, command in steps:
            self.log(f"{plan.name}: {what}")
            code = self.run_child(plan, command)
            if code != 0 or self.stopping:
                self.log(f"{plan.name}: {what} ended with exit {code}; the next build tries again")
                return code or 130
        self.log(f"{plan.name}: kept in {self.kept} — commit it there")
        return 0

    def run_child(self, plan: ModelPlan, command: list[str]) -> int:
        """Run ``command`` from the project's root, its output appended to the model's log; stop()
        reaches it. Its exit code."""
        self.out.mkdir(parents=True, exist_ok=True)
        with (self.out / f".{plan.name}.log").open("a", encoding="utf-8") as stream:
            child = subprocess.Popen(command, cwd=ROOT, stdout=stream, stderr=stream,
                                     start_new_session=True)  # a terminal's Ctrl-C reaches it through stop()
            with self.lock:
                self.children.add(child)
            code = child.wait()
            with self.lock:
                self.children.discard(child)
        return code

    def run(self, plans: list[ModelPlan]) -> list[tuple[str, str, int]]:
        with ThreadPoolExecutor(max_workers=max(1, self.parallel)) as pool:
            return list(pool.map(self.run_one, plans))

    def stop(self, *_: object) -> None:
        self.stopping = True
        with self.lock:
            for child in self.children:
                child.send_signal(signal.SIGTERM)


def summary(out: Path, plans: list[ModelPlan], kept: Path | None = None,
            shipped: Path | None = None) -> list[dict]:
    """What each model's folder (a kept or shipped one first) says it took: steps, target tokens, seconds
    and its scores."""
    rows = []
    for plan in plans:
        done = kept_in((kept, shipped), plan)
        config_path = (done or out) / plan.name / "config.json"
        state = model_state(out / plan.name, done is not None)
        if not config_path.exists():
            rows.append({"model": plan.name, "state": state})
            continue
        try:
            config = stored_config(config_path)
        except EngineError as error:  # one damaged folder never hides the others' rows
            rows.append({"model": plan.name, "state": state, "problem": str(error)})
            continue
        training = config.get("training") or {}
        history = training.get("history") or [{}]
        best = (config.get("metrics") or {}).get("valid") or {}
        rows.append({"model": plan.name, "state": state, "steps": training.get("steps"),
                     "target_tokens": history[-1].get("target_tokens"), "seconds": training.get("train_seconds"),
                     "valid_bleu": best.get("bleu"), "long_valid_bleu": best.get("long_bleu"),
                     "best_step": best.get("step")})
    return rows


def main(argv: list[str] | None = None) -> int:
    """Parse the command line and run (what it does: the module docstring); the exit status."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=TATOEBA_CORPUS)
    parser.add_argument("--out", type=Path, default=None, help="build/models (build/trials with --trials)")
    parser.add_argument("--max-target-tokens", type=int, default=TOKEN_CAP, help="budget per model")
    parser.add_argument("--parallel", type=int, default=2, help="models trained at once")
    parser.add_argument("--threads", type=int, default=1, help="torch threads of each run")
    parser.add_argument("--device", default="cpu", choices=("cpu", "cuda", "auto"))
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--only", nargs="*", help="model names to build, e.g. zh-en-dot")
    parser.add_argument("--kept", type=Path, default=KEPT,
                        help="finished models kept in the repository until the set ships (skipped when their "
                        "recorded command is the plan's); default resources/models-next")
    parser.add_argument("--summary", action="store_true", help="print what each model took and exit")
    parser.add_argument("--trials", action="store_true",
                        help="build the long-example mix trials (zh→en additive, reduced budget) instead")
    parser.add_argument("--transformer-trials", action="store_true",
                        help="build the Transformer's size trials (zh→en, reduced budget) instead")
    args = parser.parse_args(argv)
    trials = args.trials or args.transformer_trials
    args.out = args.out or ROOT / "build" / ("trials" if trials else "models")
    if not args.corpus.is_file():
        print(f"corpus not found: {args.corpus}", file=sys.stderr)
        return 2
    if args.transformer_trials:
        plans = transformer_trials(args.corpus, min(args.max_target_tokens, TRANSFORMER_TRIAL_TOKENS), args.seed)
    elif args.trials:
        plans = mix_trials(args.corpus, min(args.max_target_tokens, TRIAL_TOKENS), args.seed)
    else:
        plans = shipped_plan(args.corpus, args.max_target_tokens, args.seed)
    if args.only:
        unknown = sorted(set(args.only) - {plan.name for plan in plans})
        if unknown:
            raise SystemExit(f"unknown model name(s) {', '.join(unknown)}; valid: {', '.join(p.name for p in plans)}")
        plans = [plan for plan in plans if plan.name in args.only]
    kept = None if trials else args.kept  # the trials are never kept
    shipped = None if trials else SHIPPED
    if args.summary:
        try:
            rows = summary(args.out, plans, kept, shipped)
        except EngineError as error:  # a run's log that is not a file, say
            print(f"build_shipped_models: error: {error}", file=sys.stderr)
            return 2
        for row in rows:
            print(json.dumps(row, ensure_ascii=False))
        return 0
    try:  # one build per folder, through the lock train holds (each run claims its own folder inside)
        claim = RunFolderLock(args.out).acquire()
    except EngineError as error:
        print(f"build_shipped_models: error: {error}", file=sys.stderr)
        return 2
    build = Build(args.out, args.parallel, args.threads, args.device,
                  log=lambda message: print(f"[{time.strftime('%H:%M:%S')}] {message}", flush=True),
                  kept=kept, shipped=shipped)
    signal.signal(signal.SIGTERM, build.stop)
    signal.signal(signal.SIGINT, build.stop)
    try:
        results = build.run(under_way_first(plans, args.out, (kept, shipped)))
    except EngineError as error:
        print(f"build_shipped_models: error: {error}", file=sys.stderr)
        return 2
    finally:
        claim.release()
    return 0 if all(code == 0 for _, _, code in results) else 1


if __name__ == "__main__":
    sys.exit(main())
