"""Command line: ``python -m engine train | translate | evaluate | average`` (README, "Command line").

Exit status 0 on success; 2 with a one-line reason on stderr for bad arguments or bad files.
Training progress goes to stderr; results (``--json`` or text) to stdout.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import shlex
import sys
import time
from dataclasses import fields, replace
from pathlib import Path

from engine import distributed
from engine.averaging import write_averaged_model
from engine.bundle import load_model_folder
from engine.checkpoint import discard_checkpoint, resumable_from
from engine.concat import long_test_set
from engine.config import ModelShape, TrainConfig
from engine.corpus_stream import DEFAULT_TOKENIZER_SAMPLE
from engine.data import SPLIT_RULES
from engine.device import DEVICE_CHOICES, check_precision, describe_device, resolve_device
from engine.errors import EngineError
from engine.evaluate import evaluate
from engine.events import FinishedEvent, StepEvent, TrainControl, ValidationEvent, format_duration
from engine.forced import force_decode
from engine.interrupt import stop_on_signals
from engine.jobs import TASKS, CorpusChoice, VocabularySizes, load_corpus, prepare_job, stored_train_arguments
from engine.length_study import format_study, record_length_study, run_length_study
from engine.resume_args import override, subparser
from engine.run_lock import claim_run_folder, unless_training
from engine.run_report import score_on_test
from engine.search import NO_STEERING
from engine.settings_meta import add_flags
from engine.tasks import dates
from engine.tensorboard_log import require_tensorboard
from engine.trainer import train
from engine.whatif import make_steering, parse_override

LANGUAGE_CHOICES = ("zh", "en")


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # one line, exit 2
        print(f"{self.prog}: error: {message}", file=sys.stderr)
        raise SystemExit(2)


def _add_decoding_flags(parser: argparse.ArgumentParser) -> None:
    """The search's flags, the same for ``translate`` and ``evaluate``."""
    parser.add_argument("--beam", type=int, default=1, help="beam size (1 = greedy)")
    parser.add_argument("--length-penalty", type=float, default=None,
                        help="beam search: α of GNMT's length penalty ((5+len)/6)^α (0 = raw log-probability); "
                        "default: the model's own, chosen on its validation pairs")
    parser.add_argument("--coverage-penalty", type=float, default=None, metavar="B",
                        help="beam search: β of GNMT's coverage penalty β·Σ_j log(min(Σ_i α_ij, 1)), added to "
                        "log p when the beam is pruned and to log p / lp when finished outputs are ranked (0 = off; "
                        "a model without attention has none); "
                        "default: the model's own if one was chosen on its validation pairs, else 0")
    parser.add_argument("--no-repeat-ngram", type=int, default=0, metavar="N",
                        help="greedy and beam search: no output repeats an n-gram of N sub-word tokens (0 = off, "
                        "the default)")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="python -m engine", description="Attention Studio's translation engine.")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

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
    add_flags(tr, ModelShape)  # one flag per field that has one, stored under its name (engine/settings_meta.py)
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

    tl = commands.add_parser("translate", help="translate TEXT arguments, or stdin lines if none")
    tl.add_argument("--model", type=Path, required=True, help="model folder")
    _add_decoding_flags(tl)
    tl.add_argument("--json", action="store_true",
                    help="one JSON object per input line; its 'warning' is null, or says that the input is not in "
                    "the model's source language (wrong_language) or mostly characters unknown to it "
                    "(unknown_pieces)")
    tl.add_argument("--device", choices=DEVICE_CHOICES, default="auto", help="auto (default), cpu, cuda or mps")
    tl.add_argument("--force-target", metavar="TARGET", default=None,
                    help="forced decoding: instead of searching, score TARGET as the translation of each input "
                    "(per-token probabilities and attention, total log-probability; no beam)")
    tl.add_argument("--prefix", default="", help="what-if: the output must start with this target text; the "
                    "model continues from it (its steps are marked forced in --json)")
    tl.add_argument("--attend", action="append", default=[], metavar="STEP:POS[=W,POS=W…]",
                    help="what-if: at output step STEP (0-based) set the attention by hand — all of it on source "
                    "position POS, or weights over several (renormalized); repeatable; marked overridden in --json")
    tl.add_argument("text", nargs="*", help="sentences to translate")

    ev = commands.add_parser("evaluate", help="BLEU and chrF on a test set")
    ev.add_argument("--model", type=Path, required=True, help="model folder")
    test = ev.add_mutually_exclusive_group(required=True)
    test.add_argument("--test", type=Path, help="TSV file (the model's direction is used)")
    test.add_argument("--task", choices=TASKS, help="the built-in task's test split")
    ev.add_argument("--split", choices=("auto", "test", "valid", "all"), default="auto",
                    help="with --test: the file's held-out test or valid part, or all of it; auto (default) "
                    "uses the test part when the file is the model's own training corpus, else all of it")
    _add_decoding_flags(ev)
    ev.add_argument("--long-set", action="store_true",
                    help="evaluate on the long test set instead: the chosen pairs joined 1-8 at a time "
                    "(deterministic), with BLEU and chrF per source-length bucket 1-10 ... 61+")
    ev.add_argument("--record", action="store_true",
                    help="with --long-set: store the length study in the model folder's config.json (the app "
                    "draws its BLEU-by-length curve from it)")
    ev.add_argument("--json", action="store_true", help="print one JSON object")
    ev.add_argument("--device", choices=DEVICE_CHOICES, default="auto", help="auto (default), cpu, cuda or mps")
    av = commands.add_parser("average", help="average a run's last weight snapshots into a new model folder")
    av.add_argument("--model", type=Path, required=True, help="the run's model folder (trained with --keep-snapshots)")
    av.add_argument("--last", type=int, default=5, help="how many of the last snapshots to average (default 5)")
    av.add_argument("--out", type=Path, required=True, help="model folder to write (not the run's own)")
    av.add_argument("--overwrite", action="store_true",
                    help="replace what --out holds (a model, a run's checkpoint); refused without it")
    return parser


def command_train(args: argparse.Namespace) -> int:
    if args.corpus is not None and args.src == args.tgt:
        raise EngineError(f"--src and --tgt must differ (both are {args.src})")
    if args.resume and args.overwrite:
        raise EngineError("--resume continues the run in --out and --overwrite replaces it: give one of them")
    device = resolve_device(args.device)
    check_precision(args.precision, device)  # a device this machine lacks: refused first
    if args.tensorboard:
        require_tensorboard()  # before anything is read or written
    ranks = distributed.from_environment()  # torchrun's RANK / WORLD_SIZE, or a world of one
    distributed.start(ranks, ranks.device(device))
    try:
        # Under torchrun, rank 0 owns the run folder: it alone claims, writes and reports.
        claim = claim_run_folder(args.out, resume=args.resume, overwrite=args.overwrite) if ranks.is_main else (
            contextlib.nullcontext())
        with claim:
            if args.overwrite and ranks.is_main:
                discard_checkpoint(args.out)  # the old run's state must never be resumed with the new tokenizers
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


def _settings_from(settings_class: type, args: argparse.Namespace):
    """One of the engine's settings dataclasses from the ``train`` flags: each flag stores under its
    field's name (``dest``), so a new field needs only its flag (docs/architecture.md, "What a
    change touches")."""
    given = vars(args)
    return settings_class(**{f.name: given[f.name] for f in fields(settings_class) if f.name in given})


def _train_in_claimed_folder(args: argparse.Namespace, ranks: distributed.Distributed) -> int:
    say = print if ranks.is_main else _quiet  # the other ranks of a torchrun run keep quiet
    choice = replace(CorpusChoice.dates_task(), token_cache=args.token_cache) if args.task else CorpusChoice(
        corpus=args.corpus, source_language=args.src, target_language=args.tgt, split_rule=args.split_rule,
        token_cache=args.token_cache, tokenizer_sample=args.tokenizer_sample)
    train_config = _settings_from(TrainConfig, args)
    model_shape = _settings_from(ModelShape, args).with_hidden_size(args.hidden_size)
    command = "python -m engine " + " ".join(shlex.quote(a) for a in args.argv)
    job, loaded = prepare_job(
        choice, args.out, model_shape, train_config, _settings_from(VocabularySizes, args), resume=args.resume,
        command=command, storage_dtype="float16" if args.float16 else "float32",
        on_status=lambda message: say(f"[train] {message}", file=sys.stderr), distributed=ranks,
    )
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
    control = TrainControl()
    last_print = 0.0
    finished = None
    # Under torchrun a stop is told once, by rank 0 when it is done (torchrun also stops the others so
    # when one process dies: no rank promises a checkpoint it may not be able to write).
    with stop_on_signals(control, on_first=_quiet if ranks.active else _say_stopping, on_pause=_say_paused):
        for event in train(job, control, resume=args.resume, tensorboard=args.tensorboard,
                           on_status=lambda message: say(f"[train] {message}", file=sys.stderr)):
            if isinstance(event, StepEvent) and time.monotonic() - last_print >= 2.0:
                last_print = time.monotonic()
                say(f"[train] epoch {event.epoch} batch {event.batch}/{event.batches_per_epoch} "
                      f"loss {event.loss:.3f} lr {event.learning_rate:.2g} {event.tokens_per_second:,.0f} tok/s "
                      f"elapsed {format_duration(event.elapsed_seconds)} eta {format_duration(event.eta_seconds)}",
                      file=sys.stderr)
            elif isinstance(event, ValidationEvent):
                best = " (best, saved)" if event.is_best else ""
                long = "" if event.long_bleu is None else f" long-input BLEU {event.long_bleu:.2f} score {event.score:.2f}"
                say(f"[valid] epoch {event.epoch} loss {event.valid_loss:.3f} BLEU {event.bleu:.2f} "
                      f"chrF {event.chrf:.2f} exact {event.exact_match:.3f}{long}{best}", file=sys.stderr)
                for sample in event.samples[:1]:
                    say(f"[valid]   {sample.source} → {sample.hypothesis}", file=sys.stderr)
            elif isinstance(event, FinishedEvent):
                finished = event
    if finished is not None:
        say(f"[train] finished ({finished.reason}) after {finished.steps} steps, "
              f"{format_duration(finished.seconds)}; best valid BLEU {finished.best_bleu:.2f} "
              f"(epoch {finished.best_epoch}); {finished.tokens_per_second:,.0f} target tok/s", file=sys.stderr)
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


def _quiet(*_args: object, **_kwargs: object) -> None:
    """Print nothing (the ranks other than 0 of a torchrun run)."""


def _say_stopping() -> None:
    print("[train] stopping: saving a checkpoint at the current batch (Ctrl-C again to quit at once)",
          file=sys.stderr)


def _say_paused(paused: bool) -> None:
    print("[train] paused; its time budget waits too (kill -USR1 again to resume)" if paused else "[train] resumed",
          file=sys.stderr)


def _valid_text(raw: bytes, where: str) -> str:
    """``raw`` as UTF-8; invalid bytes become U+FFFD, with a one-line note saying where."""
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as error:
        print(f"[note] {where} is not valid UTF-8 (byte 0x{raw[error.start]:02x} at byte {error.start}); "
              "invalid bytes were replaced by U+FFFD", file=sys.stderr)
        return raw.decode("utf-8", errors="replace")


def _input_lines(texts: list[str]):
    """The TEXT arguments, or else stdin's lines, as valid text whatever bytes they hold."""
    if texts:
        for number, text in enumerate(texts, 1):  # argv arrives decoded with surrogateescape
            try:
                raw = text.encode("utf-8", "surrogateescape")
            except UnicodeEncodeError:  # a lone surrogate that stands for no byte
                raw = text.encode("utf-8", "surrogatepass")
            yield _valid_text(raw, f"argument {number}")
        return
    stream = getattr(sys.stdin, "buffer", None)
    if stream is None:  # a text stream without bytes underneath (an embedding program's StringIO)
        for line in sys.stdin:
            yield line.rstrip("\n")
        return
    for number, raw in enumerate(stream, 1):
        yield _valid_text(raw.rstrip(b"\r\n"), f"stdin line {number}")


def _decode_config(args: argparse.Namespace, bundle):
    """``translate`` / ``evaluate``: the beam, the model's own penalties unless given, the n-gram option."""
    return bundle.decode_config(args.beam, args.length_penalty, args.coverage_penalty, args.no_repeat_ngram)


def command_translate(args: argparse.Namespace) -> int:
    if args.force_target is not None and (args.prefix or args.attend):
        raise EngineError("--force-target scores one given target as it is: it takes no --prefix or --attend "
                          "(they steer a search; drop --force-target to steer one)")
    bundle = load_model_folder(args.model)
    bundle.translator.to(resolve_device(args.device))
    if args.force_target is not None:
        return _force_target(args, bundle)
    config = _decode_config(args, bundle)
    overrides = dict(parse_override(spec) for spec in args.attend)
    prefix = _valid_text(args.prefix.encode("utf-8", "surrogatepass"), "--prefix") if args.prefix else ""
    for text in _input_lines(args.text):
        steering = NO_STEERING
        if prefix or overrides:
            prepared = bundle.translator.prepare(text)
            steering = make_steering(bundle.translator, prepared, bundle.target_language, prefix, overrides)
        translation = bundle.translator.translate(text, config, steering)
        if args.json:
            print(json.dumps(translation.to_json(), ensure_ascii=False), flush=True)
        else:
            if translation.notice:
                print(f"[note] {translation.notice}", file=sys.stderr)
            if translation.warning() is not None:
                print(f"[warning] {translation.language_check.message}", file=sys.stderr)
            print(translation.text, flush=True)
    return 0


def _force_target(args: argparse.Namespace, bundle) -> int:
    """``translate --force-target``: the given target scored under the model, per input."""
    if args.beam != 1:
        raise EngineError("--force-target scores one given target: it takes no --beam")
    target = _valid_text(args.force_target.encode("utf-8", "surrogatepass"), "--force-target")
    for text in _input_lines(args.text):
        forced = force_decode(bundle.translator, text, target, bundle.target_language)
        if args.json:
            print(json.dumps(forced.to_json(), ensure_ascii=False), flush=True)
            continue
        if forced.notice:
            print(f"[note] {forced.notice}", file=sys.stderr)
        for token, probability in zip(forced.tokens, forced.probabilities, strict=True):
            print(f"{token}\t{probability:.4f}")
        print(f"log-probability {forced.log_probability:.4f}", flush=True)
    return 0


def command_evaluate(args: argparse.Namespace) -> int:
    bundle = load_model_folder(args.model)
    bundle.translator.to(resolve_device(args.device))
    if args.task:
        pairs = dates.dates_split(seed=(bundle.info.get("data") or {}).get("seed", 1)).test
    else:
        choice = CorpusChoice(corpus=args.test, source_language=bundle.source_language,
                              target_language=bundle.target_language)
        loaded = load_corpus(choice, for_training=False)
        split, part = loaded.split, args.split
        if part == "auto":
            trained_on = bundle.info.get("data") or {}
            own_corpus = (trained_on.get("corpus"), trained_on.get("pairs")) == (
                loaded.summary["corpus"], loaded.summary["pairs"])
            part = "test" if own_corpus else "all"
            print(f"[evaluate] {'held-out test part of the training corpus' if own_corpus else 'whole file'}",
                  file=sys.stderr)
        pairs = {"test": split.test, "valid": split.valid, "all": split.train + split.valid + split.test}[part]
        if not pairs:
            raise EngineError(f"the {part} part of {args.test} is empty ({sum(split.sizes().values())} pairs in "
                              "all); evaluate on the whole file with --split all")
    if args.long_set:
        with unless_training(args.model) if args.record else contextlib.nullcontext():  # --record writes there
            return _evaluate_long_set(args, bundle, pairs)
    if args.record:
        raise EngineError("--record stores a length study: use it with --long-set")
    evaluation = evaluate(bundle.translator, pairs, bundle.target_language,
                          _decode_config(args, bundle))
    if args.json:
        print(json.dumps(evaluation.to_json(include_exact_match=bool(args.task)), ensure_ascii=False))
    else:
        print(f"BLEU {evaluation.scores.bleu:.2f}  chrF {evaluation.scores.chrf:.2f}  n {evaluation.count}  "
              f"{evaluation.count / max(evaluation.seconds, 1e-9):.1f} sentences/s")
        print(evaluation.scores.signature)
    return 0


def _evaluate_long_set(args: argparse.Namespace, bundle, pairs) -> int:
    """The length study on the long test set made from ``pairs`` (printed; stored with --record)."""
    long_pairs = long_test_set(pairs, bundle.source_language, bundle.target_language)
    study = run_length_study(bundle.translator, long_pairs, bundle.target_language,
                             _decode_config(args, bundle))
    if args.record:
        record_length_study(args.model, study)
    if args.json:
        print(json.dumps({"length_study": study.to_json()}, ensure_ascii=False))
    else:
        print(f"long test set: {study.n} inputs ({len(pairs)} pairs joined 1-8 at a time), beam {study.beam}")
        print(format_study(study))
        print(study.signature)
    return 0


def command_average(args: argparse.Namespace) -> int:
    folder = write_averaged_model(args.model, args.out, args.last, overwrite=args.overwrite)
    used = load_model_folder(folder).info["averaged"]["count"]
    print(f"[average] {used} snapshot(s) of {args.model} averaged into {folder}", file=sys.stderr)
    return 0


COMMANDS = {"train": command_train, "translate": command_translate, "evaluate": command_evaluate,
            "average": command_average}


def _with_stored_run(argv: list[str]) -> list[str]:
    """``train --resume --out DIR`` alone: the run's own arguments first, the ones given after them
    (a given flag overrides its stored value; contradictions are refused when the job is prepared)."""
    if not argv or argv[0] != "train" or "--resume" not in argv or {"--corpus", "--task"} & set(argv):
        return argv
    try:
        out = Path(argv[argv.index("--out") + 1])
    except (ValueError, IndexError):
        return argv
    stored = stored_train_arguments(out)
    if stored is None:
        raise EngineError(f"--resume: {out} records no command-line run to continue (a run started in the app is "
                          "resumed from its Train tab); give the run's options, or check the folder")
    return ["train", *override(stored, argv[1:], subparser(build_parser(), "train"))]


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    try:
        argv = _with_stored_run(argv)
    except EngineError as error:
        print(f"python -m engine train: error: {error}", file=sys.stderr)
        return 2
    args = build_parser().parse_args(argv)
    args.argv = argv
    try:
        return COMMANDS[args.command](args)
    except EngineError as error:
        print(f"python -m engine {args.command}: error: {error}", file=sys.stderr)
        return 2
    except OSError as error:  # disk full, read-only folder, …: what was saved before stays intact (atomic writes)
        where = f"{error.filename}: " if error.filename else ""
        print(f"python -m engine {args.command}: error: {where}{error.strerror or error}; files written before "
              "are intact", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
