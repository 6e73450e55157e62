"""``python -m engine train``: its flags, the run in the folder it claims, and what it prints.

Training progress goes to stderr (at most every two seconds, every validation, the end); the test
result of a run that ended on its own closes it. Exit status 130 after a stop (Ctrl-C, SIGTERM).
"""

from __future__ import annotations

import argparse
import contextlib
import shlex
import sys
import time
from collections.abc import Callable
from dataclasses import fields, replace
from pathlib import Path

import torch

from engine.corpus.choice import LANGUAGE_CHOICES, TASKS, CorpusChoice, VocabularySizes
from engine.corpus.data import SPLIT_RULES
from engine.networks.device import check_precision, describe_device, resolve_device
from engine.records.lifecycle import RunOrder, RunReady, RunScored, RunStatus, run_lifecycle
from engine.settings.config import HIDDEN_SIZE, ModelShape, TrainConfig
from engine.settings.errors import EngineError
from engine.settings.settings_meta import add_flags, described, flag_name
from engine.text.readable import format_duration, format_tokens
from engine.training import distributed
from engine.training.checkpoint_state import resumable_from
from engine.training.events import (
    FinishedEvent,
    StepEvent,
    TrainControl,
    TrainEvent,
    ValidationEvent,
)
from engine.training.interrupt import stop_on_signals
from engine.training.jobs import LoadedCorpus
from engine.training.tensorboard_log import require_tensorboard
from engine.training.train_run import TrainingJob

PRINT_EVERY_SECONDS = 2.0  # a step line at most this often

Say = Callable[..., None]


def add_train_parser(commands: argparse._SubParsersAction) -> None:
    """Add the ``train`` command and its flags to ``commands`` (the settings' flags from their descriptions)."""
    tr = commands.add_parser("train", help="train a model and write its model folder")
    source = tr.add_mutually_exclusive_group(required=True)
    corpus = described(CorpusChoice)  # each corpus flag's help, said once (engine.corpus.choice)
    source.add_argument("--corpus", type=Path, help=corpus["corpus"].help)
    source.add_argument("--task", choices=TASKS, help=corpus["task"].help)
    tr.add_argument("--src", choices=LANGUAGE_CHOICES, default="zh", help=corpus["source_language"].help)
    tr.add_argument("--tgt", choices=LANGUAGE_CHOICES, default="en", help=corpus["target_language"].help)
    tr.add_argument("--split-rule", choices=SPLIT_RULES, default="strict", help=corpus["split_rule"].help)
    tr.add_argument("--token-cache", action="store_true", help=corpus["token_cache"].help)
    tr.add_argument("--tokenizer-sample", type=int, default=CorpusChoice.tokenizer_sample,
                    help=corpus["tokenizer_sample"].help)
    add_flags(tr, ModelShape)  # one flag per field that has one, stored under its name (engine/settings/settings_meta.py)
    tr.add_argument(flag_name("hidden_size", HIDDEN_SIZE), type=int, default=ModelShape().hidden_size,
                    help=HIDDEN_SIZE.help)  # one size, three fields (ModelShape.with_hidden_size)
    add_flags(tr, VocabularySizes)  # --src-vocab, --tgt-vocab
    add_flags(tr, TrainConfig)
    tr.add_argument("--tensorboard", action="store_true",
                    help="also write TensorBoard event files to OUT/tensorboard (optional extra: "
                    "pip install -e \".[tensorboard]\")")
    tr.add_argument("--float16", action="store_true", help="store the weights as float16 (half the size)")
    tr.add_argument("--resume", action="store_true", help="continue from the checkpoint in --out")
    tr.add_argument("--overwrite", action="store_true",
                    help="start a new run in an --out folder that already holds a model or a checkpoint, "
                    "replacing them (without it such a folder is refused)")
    tr.add_argument("--out", type=Path, required=True, help="model folder to write")


def command_train(args: argparse.Namespace) -> int:
    """Train as the flags ask (engine.records.lifecycle), under torchrun too; the exit status (130 after a stop)."""
    device = _checked_device(args)
    ranks = distributed.from_environment()  # torchrun's RANK / WORLD_SIZE, or a world of one
    distributed.start(ranks, ranks.device(device))
    try:
        try:
            return _train(args, ranks)
        except KeyboardInterrupt:  # before the training loop (reading, tokenizers) or a second Ctrl-C
            print(f"[train] interrupted; {resumable_from(args.out)}", file=sys.stderr)
            return 130
    except Exception as error:
        if not (ranks.active and distributed.lost_peer(error)):
            raise
        resumable = resumable_from(args.out) if ranks.is_main else ""
        print(distributed.lost_peer_message(ranks, error, resumable), file=sys.stderr)  # one line, no traceback
        return 1
    finally:
        with contextlib.suppress(Exception):  # after a lost peer the group may not close cleanly
            distributed.finish()


def _checked_device(args: argparse.Namespace) -> torch.device:
    """The device to train on, once the flags agree with one another and with this machine."""
    if args.corpus is not None and args.src == args.tgt:
        raise EngineError(f"--src and --tgt must differ (both are {args.src})")
    if args.resume and args.overwrite:
        raise EngineError("--resume continues the run in --out and --overwrite replaces it: give one of them")
    device = resolve_device(args.device)
    check_precision(args.precision, device)  # a device this machine lacks: refused first
    if args.tensorboard:
        require_tensorboard()  # before anything is read or written
    return device


def _settings_from(settings_class: type, args: argparse.Namespace):
    """One of the engine's settings dataclasses from the ``train`` flags: each flag stores under its
    field's name (``dest``), so a new field needs only its flag (docs/architecture.md, "What a
    change touches")."""
    given = vars(args)
    return settings_class(**{f.name: given[f.name] for f in fields(settings_class) if f.name in given})


def _corpus_choice(args: argparse.Namespace) -> CorpusChoice:
    if args.task:
        return replace(CorpusChoice.dates_task(), token_cache=args.token_cache)
    return CorpusChoice(corpus=args.corpus, source_language=args.src, target_language=args.tgt,
                        split_rule=args.split_rule, token_cache=args.token_cache,
                        tokenizer_sample=args.tokenizer_sample)


def _order(args: argparse.Namespace, ranks: distributed.Distributed) -> RunOrder:
    """The run the flags ask for (engine.records.lifecycle)."""
    return RunOrder(
        folder=args.out, corpus=_corpus_choice(args),
        model=_settings_from(ModelShape, args).with_hidden_size(args.hidden_size),
        train=_settings_from(TrainConfig, args), vocabularies=_settings_from(VocabularySizes, args),
        resume=args.resume, overwrite=args.overwrite,
        command="python -m engine " + " ".join(shlex.quote(a) for a in args.argv),
        storage_dtype="float16" if args.float16 else "float32", tensorboard=args.tensorboard,
        prepare_aside=not ranks.active,  # under torchrun the ranks prepare together, on their main threads
    )


def _train(args: argparse.Namespace, ranks: distributed.Distributed) -> int:
    """The run's life (engine.records.lifecycle), said on stderr; its exit status."""
    say = print if ranks.is_main else _quiet  # the other ranks of a torchrun run keep quiet
    control = TrainControl()
    printer = _EventPrinter(say)
    scored = None
    # Under torchrun a stop is told once, by rank 0 when it is done (torchrun also stops the others so
    # when one process dies: no rank promises a checkpoint it may not be able to write).
    signals = stop_on_signals(control, on_first=_quiet if ranks.active else _say_stopping, on_pause=_say_paused)
    with contextlib.ExitStack() as training, contextlib.closing(run_lifecycle(_order(args, ranks), control,
                                                                               ranks)) as items:
        for item in items:
            if isinstance(item, RunStatus):
                say(f"[train] {item.text}", file=sys.stderr)
            elif isinstance(item, RunReady):
                _say_prepared(args, ranks, item.job, item.loaded, say)
                training.enter_context(signals)  # from the first batch on, Ctrl-C asks for a checkpoint
            elif isinstance(item, RunScored):
                scored = item.evaluation
            else:
                printer(item)
                if isinstance(item, FinishedEvent):
                    training.close()  # scoring is not training: Ctrl-C interrupts it
                    printer.say_finished()
    if control.stop_requested:
        say(f"[train] stopped; {resumable_from(args.out)}", file=sys.stderr)
        return 130
    if scored is not None:
        print(f"[test] BLEU {scored.scores.bleu:.2f} chrF {scored.scores.chrf:.2f} "
              f"exact {scored.exact_match:.3f} on {scored.count} held-out pairs; model in {args.out}",
              file=sys.stderr)
    return 0


def _say_prepared(args: argparse.Namespace, ranks: distributed.Distributed, job: TrainingJob,
                  loaded: LoadedCorpus, say: Say) -> None:
    """The data read (and what was skipped), the split, the model and where it trains."""
    if loaded.report is not None:
        say(f"[data] {loaded.report.summary()}", file=sys.stderr)
        for line in loaded.report.details(limit=5):
            say(f"[data]   {line}", file=sys.stderr)
    sizes = loaded.summary.get("split") or loaded.split.sizes()  # a token-cached corpus counts its training ids
    say(f"[data] split: {sizes['train']:,} train / {sizes['valid']:,} valid / {sizes['test']:,} test; "
        f"model: {job.model.parameter_count():,} parameters, scorer {args.scorer}, cell {args.cell}",
        file=sys.stderr)
    processes = (f", {ranks.world_size} processes (torchrun: each takes 1/{ranks.world_size} of every batch of "
                 f"{args.batch_size})") if ranks.active else ""
    say(f"[train] device: {describe_device(ranks.device(resolve_device(args.device)))}, precision {args.precision}"
        f"{processes}", file=sys.stderr)


class _EventPrinter:
    """The training events as stderr lines: a step at most every PRINT_EVERY_SECONDS, each validation."""

    def __init__(self, say: Say) -> None:
        self.say = say
        self.last_print = 0.0
        self.finished: FinishedEvent | None = None

    def __call__(self, event: TrainEvent) -> None:
        if isinstance(event, StepEvent) and time.monotonic() - self.last_print >= PRINT_EVERY_SECONDS:
            self.last_print = time.monotonic()
            self.say(f"[train] epoch {event.epoch} batch {event.batch}/{event.batches_per_epoch} "
                     f"loss {event.loss:.3f} lr {event.learning_rate:.2g} {event.tokens_per_second:,.0f} tok/s "
                     f"{format_tokens(event.target_tokens)} target tokens "
                     f"elapsed {format_duration(event.elapsed_seconds)} eta {format_duration(event.eta_seconds)}",
                     file=sys.stderr)
        elif isinstance(event, ValidationEvent):
            self._say_validation(event)
        elif isinstance(event, FinishedEvent):
            self.finished = event

    def _say_validation(self, event: ValidationEvent) -> None:
        best = " (best, saved)" if event.is_best else ""
        long = "" if event.long_bleu is None else f" long-input BLEU {event.long_bleu:.2f} score {event.score:.2f}"
        self.say(f"[valid] epoch {event.epoch} loss {event.valid_loss:.3f} BLEU {event.bleu:.2f} "
                 f"chrF {event.chrf:.2f} exact {event.exact_match:.3f}{long}{best}", file=sys.stderr)
        for sample in event.samples[:1]:
            self.say(f"[valid]   {sample.source} → {sample.hypothesis}", file=sys.stderr)

    def say_finished(self) -> None:
        finished = self.finished
        assert finished is not None
        self.say(f"[train] finished ({finished.reason}) after {finished.steps} steps, "
                 f"{format_duration(finished.seconds)}; best valid BLEU {finished.best_bleu:.2f} "
                 f"(epoch {finished.best_epoch}); {finished.tokens_per_second:,.0f} target tok/s", file=sys.stderr)


def _quiet(*_args: object, **_kwargs: object) -> None:
    """Print nothing (the ranks other than 0 of a torchrun run)."""


def _say_stopping() -> None:
    print("[train] stopping: saving a checkpoint at the current batch (Ctrl-C again to quit at once)",
          file=sys.stderr)


def _say_paused(paused: bool) -> None:
    print("[train] paused; its time budget waits too (kill -USR1 again to resume)" if paused else "[train] resumed",
          file=sys.stderr)
