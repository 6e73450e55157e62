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

from engine.corpus.corpus_stream import DEFAULT_TOKENIZER_SAMPLE
from engine.corpus.data import SPLIT_RULES
from engine.evaluation.run_report import score_on_test
from engine.files.run_lock import claim_run_folder
from engine.networks.device import check_precision, describe_device, resolve_device
from engine.settings.config import ModelShape, TrainConfig
from engine.settings.errors import EngineError
from engine.settings.settings_meta import add_flags
from engine.training import distributed
from engine.training.checkpoint import discard_checkpoint, resumable_from
from engine.training.events import (
    FinishedEvent,
    StepEvent,
    TrainControl,
    TrainEvent,
    ValidationEvent,
    format_duration,
    format_tokens,
)
from engine.training.interrupt import stop_on_signals
from engine.training.jobs import TASKS, CorpusChoice, LoadedCorpus, VocabularySizes, prepare_job
from engine.training.tensorboard_log import require_tensorboard
from engine.training.trainer import TrainingJob, train

LANGUAGE_CHOICES = ("zh", "en")
PRINT_EVERY_SECONDS = 2.0  # a step line at most this often

Say = Callable[..., None]


def add_train_parser(commands: argparse._SubParsersAction) -> None:
    tr = commands.add_parser("train", help="train a model and write its model folder")
    source = tr.add_mutually_exclusive_group(required=True)
    source.add_argument("--corpus", type=Path, help="TSV file: English<TAB>Chinese[<TAB>attribution]")
    source.add_argument("--task", choices=TASKS, help="built-in synthetic task instead of a corpus")
    tr.add_argument("--src", choices=LANGUAGE_CHOICES, default="zh", help="source language (with --corpus)")
    tr.add_argument("--tgt", choices=LANGUAGE_CHOICES, default="en", help="target language (with --corpus)")
    tr.add_argument("--split-rule", choices=SPLIT_RULES, default="strict",
                    help="strict (default): hold out valid and test, and drop training pairs sharing a source "
                    "with them; peer: train on every non-test pair, as the Joey NMT peer figures did")
    tr.add_argument("--token-cache", action="store_true",
                    help="big corpora: read the corpus in one streaming pass, train the tokenizers on a sample, "
                    "and encode the training pairs once into an on-disk token cache (in the data folder) that "
                    "later runs on the same corpus reuse; training reads ids from it, never the text")
    tr.add_argument("--tokenizer-sample", type=int, default=DEFAULT_TOKENIZER_SAMPLE,
                    help=f"with --token-cache: training pairs the tokenizers learn from (default "
                    f"{DEFAULT_TOKENIZER_SAMPLE:,}, a seeded reservoir sample)")
    add_flags(tr, ModelShape)  # one flag per field that has one, stored under its name (engine/settings/settings_meta.py)
    tr.add_argument("--hidden-size", type=int, default=ModelShape.decoder_hidden_size, help="encoder size per direction and decoder size")
    tr.add_argument("--src-vocab", dest="source", type=int, default=VocabularySizes.source, help="source SentencePiece vocabulary size")
    tr.add_argument("--tgt-vocab", dest="target", type=int, default=VocabularySizes.target, help="target SentencePiece vocabulary size")
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
    device = _checked_device(args)
    ranks = distributed.from_environment()  # torchrun's RANK / WORLD_SIZE, or a world of one
    distributed.start(ranks, ranks.device(device))
    try:
        with _claimed(args, ranks):
            try:
                return _train_in_claimed_folder(args, ranks)
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


def _checked_device(args: argparse.Namespace) -> str:
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


@contextlib.contextmanager
def _claimed(args: argparse.Namespace, ranks: distributed.Distributed):
    """Under torchrun, rank 0 owns the run folder: it alone claims, writes and reports."""
    if not ranks.is_main:
        yield
        return
    with claim_run_folder(args.out, resume=args.resume, overwrite=args.overwrite):
        if args.overwrite:
            discard_checkpoint(args.out)  # the old run's state must never be resumed with the new tokenizers
        yield


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


def _train_in_claimed_folder(args: argparse.Namespace, ranks: distributed.Distributed) -> int:
    say = print if ranks.is_main else _quiet  # the other ranks of a torchrun run keep quiet
    choice = _corpus_choice(args)
    job, loaded = prepare_job(
        choice, args.out, _settings_from(ModelShape, args).with_hidden_size(args.hidden_size),
        _settings_from(TrainConfig, args), _settings_from(VocabularySizes, args), resume=args.resume,
        command="python -m engine " + " ".join(shlex.quote(a) for a in args.argv),
        storage_dtype="float16" if args.float16 else "float32",
        on_status=lambda message: say(f"[train] {message}", file=sys.stderr), distributed=ranks,
    )
    _say_prepared(args, ranks, job, loaded, say)
    control, finished = _run(args, ranks, job, say)
    if control.stop_requested:
        say(f"[train] stopped; {resumable_from(args.out)}", file=sys.stderr)
        return 130
    if not ranks.is_main:
        return 0
    evaluation = score_on_test(args.out, loaded.split.test, finished, length_study=choice.corpus is not None)
    print(f"[test] BLEU {evaluation.scores.bleu:.2f} chrF {evaluation.scores.chrf:.2f} "
          f"exact {evaluation.exact_match:.3f} on {evaluation.count} held-out pairs; model in {args.out}",
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


def _run(args: argparse.Namespace, ranks: distributed.Distributed, job: TrainingJob,
         say: Say) -> tuple[TrainControl, FinishedEvent | None]:
    """Train, saying how it goes; the run's control (was a stop asked?) and its finished event."""
    control = TrainControl()
    printer = _EventPrinter(say)
    # Under torchrun a stop is told once, by rank 0 when it is done (torchrun also stops the others so
    # when one process dies: no rank promises a checkpoint it may not be able to write).
    with stop_on_signals(control, on_first=_quiet if ranks.active else _say_stopping, on_pause=_say_paused):
        for event in train(job, control, resume=args.resume, tensorboard=args.tensorboard,
                           on_status=lambda message: say(f"[train] {message}", file=sys.stderr)):
            printer(event)
    if printer.finished is not None:
        printer.say_finished()
    return control, printer.finished


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
