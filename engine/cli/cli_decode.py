"""``python -m engine translate | evaluate | average``: their flags and what they print.

Results go to stdout (``--json``: one JSON object per line); notes and warnings to stderr.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

from engine.cli.cli_explain import add_explain_flags, check_explain_flags, explanation, print_explanation
from engine.corpus.choice import TASKS, CorpusChoice
from engine.corpus.concat import long_test_set
from engine.corpus.corpus_read import Pair
from engine.corpus.tasks import dates
from engine.decoding.finite_output import json_line
from engine.decoding.forced import force_decode
from engine.decoding.search import NO_STEERING, Steering
from engine.decoding.translator import Translation
from engine.decoding.whatif import make_steering, parse_override
from engine.evaluation.evaluate import evaluate
from engine.files.paths import model_argument
from engine.models.bundle import ModelBundle, load_model_folder
from engine.networks.device import DEVICE_CHOICES, resolve_device
from engine.settings.errors import EngineError
from engine.studies.length_study import format_study, record_length_study, run_length_study
from engine.training.averaging import write_averaged_model
from engine.training.jobs import load_corpus
from engine.training.run_lock import unless_training


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
    parser.add_argument("--no-repeat-ngram", type=int, default=None, metavar="N",
                        help="greedy and beam search: no output repeats an n-gram of N sub-word tokens (0 = off); "
                        "default: with a beam, the model's own if one was chosen on its validation pairs, else off; "
                        "greedy: off")


MODEL_HELP = "model folder, or a shipped model's name (zh-en-additive, …)"


def add_translate_parser(commands: argparse._SubParsersAction) -> None:
    """Add the ``translate`` command and its flags to ``commands``."""
    tl = commands.add_parser("translate", help="translate TEXT arguments, or stdin lines if none")
    tl.add_argument("--model", type=model_argument, required=True, help=MODEL_HELP)
    _add_decoding_flags(tl)
    tl.add_argument("--json", action="store_true",
                    help="one JSON object per input line; its 'warning' is null, or says that the input is not in "
                    "the model's source language (wrong_language) or mostly characters unknown to it "
                    "(unknown_pieces); 'unseen' lists the input's words its training sources never had (null when "
                    "the model folder has no record of them)")
    tl.add_argument("--device", choices=DEVICE_CHOICES, default="auto", help="auto (default), cpu, cuda or mps")
    tl.add_argument("--force-target", metavar="TARGET", default=None,
                    help="forced decoding: instead of searching, score TARGET as the translation of each input "
                    "(per-token probabilities and attention, total log-probability; no beam)")
    tl.add_argument("--prefix", default="", help="what-if: the output must start with this target text; the "
                    "model continues from it (its steps are marked forced in --json)")
    tl.add_argument("--attend", action="append", default=[], metavar="STEP:POS[=W,POS=W…]",
                    help="what-if: at output step STEP (0-based) set the attention by hand — all of it on source "
                    "position POS, or weights over several (renormalized); repeatable; marked overridden in --json")
    add_explain_flags(tl)
    tl.add_argument("text", nargs="*", help="sentences to translate")


def add_evaluate_parser(commands: argparse._SubParsersAction) -> None:
    """Add the ``evaluate`` command and its flags to ``commands``."""
    ev = commands.add_parser("evaluate", help="BLEU and chrF on a test set")
    ev.add_argument("--model", type=model_argument, required=True, help=MODEL_HELP)
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


def add_average_parser(commands: argparse._SubParsersAction) -> None:
    """Add the ``average`` command and its flags to ``commands``."""
    av = commands.add_parser("average", help="average a run's last weight snapshots into a new model folder")
    av.add_argument("--model", type=Path, required=True, help="the run's model folder (trained with --keep-snapshots)")
    av.add_argument("--last", type=int, default=5, help="how many of the last snapshots to average (default 5)")
    av.add_argument("--out", type=Path, required=True, help="model folder to write (not the run's own)")
    av.add_argument("--overwrite", action="store_true",
                    help="replace what --out holds (a model, a run's checkpoint); refused without it")


def _valid_text(raw: bytes, where: str) -> str:
    """``raw`` as UTF-8; invalid bytes become U+FFFD, with a one-line note saying where."""
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as error:
        print(f"[note] {where} is not valid UTF-8 (byte 0x{raw[error.start]:02x} at byte {error.start}); "
              "invalid bytes were replaced by U+FFFD", file=sys.stderr)
        return raw.decode("utf-8", errors="replace")


def _argument_bytes(text: str) -> bytes:
    """An argument's bytes: argv arrives decoded with surrogateescape."""
    try:
        return text.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:  # a lone surrogate that stands for no byte
        return text.encode("utf-8", "surrogatepass")


def _input_lines(texts: list[str]) -> Iterator[str]:
    """The TEXT arguments, or else stdin's lines, as valid text whatever bytes they hold."""
    if texts:
        for number, text in enumerate(texts, 1):
            yield _valid_text(_argument_bytes(text), f"argument {number}")
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


def _loaded_model(args: argparse.Namespace) -> ModelBundle:
    bundle = load_model_folder(args.model)
    bundle.translator.to(resolve_device(args.device))
    return bundle


def command_translate(args: argparse.Namespace) -> int:
    """Translate the TEXT arguments (or stdin's lines) and print them; the exit status."""
    _refuse_steering_a_forced_target(args)
    contrast = check_explain_flags(args)
    bundle = _loaded_model(args)
    if bundle.translator.training_words is None:  # said once; --json then gives "unseen": null
        print(f"[note] {bundle.translator.training_words_note}", file=sys.stderr)
    if args.force_target is not None:
        return _force_target(args, bundle)
    config = _decode_config(args, bundle)
    steering_for = _steering(args, bundle)
    for text in _input_lines(args.text):
        translation = bundle.translator.translate(text, config, steering_for(text))
        _print_explained(args, bundle, text, translation, contrast)
    return 0


def _refuse_steering_a_forced_target(args: argparse.Namespace) -> None:
    """EngineError when ``--force-target`` comes with ``--prefix`` or ``--attend``."""
    if args.force_target is not None and (args.prefix or args.attend):
        raise EngineError("--force-target scores one given target as it is: it takes no --prefix or --attend "
                          "(they steer a search; drop --force-target to steer one)")


def _steering(args: argparse.Namespace, bundle: ModelBundle) -> Callable[[str], Steering]:
    """How each input's search is steered: by ``--prefix`` and ``--attend`` (checked here, before any input is
    read), or not at all."""
    overrides = dict(parse_override(spec) for spec in args.attend)
    prefix = _valid_text(args.prefix.encode("utf-8", "surrogatepass"), "--prefix") if args.prefix else ""

    def steering_for(text: str) -> Steering:
        if not (prefix or overrides):
            return NO_STEERING
        prepared = bundle.translator.prepare(text)
        return make_steering(bundle.translator, prepared, bundle.target_language, prefix, overrides)

    return steering_for


def _print_explained(args: argparse.Namespace, bundle: ModelBundle, text: str, translation: Translation,
                     contrast: dict[int, str]) -> None:
    """One input's translation printed, with its attribution when ``--explain`` asks for one."""
    attribution = None if args.explain is None else explanation(bundle.translator, translation, args.explain,
                                                                contrast, args.ig_steps)
    _print_translation(translation, args.json, _unseen(bundle, text),
                       {} if args.explain is None else {"attribution": attribution})
    if args.explain is not None and not args.json:
        print_explanation(translation, attribution)


def _unseen(bundle, text: str) -> list[str] | None:
    """The input's words its training never had (engine.text.training_words); None without a usable record."""
    return None if bundle.translator.training_words is None else bundle.translator.unseen_words(text)


def _print_translation(translation, as_json: bool, unseen: list[str] | None = None, extra: dict | None = None) -> None:
    document = translation.to_json() | {"unseen": unseen} | (extra or {})
    line = json_line(document, "translate")  # checked in either form: a NaN score reads as an empty text
    if as_json:
        print(line, flush=True)
        return
    if translation.notice:
        print(f"[note] {translation.notice}", file=sys.stderr)
    if unseen:
        print(f"[note] never seen in training: {', '.join(unseen)}", file=sys.stderr)
    if translation.warning() is not None:
        print(f"[warning] {translation.language_check.message}", file=sys.stderr)
    print(translation.text, flush=True)


def _force_target(args: argparse.Namespace, bundle) -> int:
    """``translate --force-target``: the given target scored under the model, per input."""
    if args.beam != 1:
        raise EngineError("--force-target scores one given target: it takes no --beam")
    target = _valid_text(args.force_target.encode("utf-8", "surrogatepass"), "--force-target")
    for text in _input_lines(args.text):
        forced = force_decode(bundle.translator, text, target, bundle.target_language)
        if args.json:
            print(json_line(forced.to_json() | {"unseen": _unseen(bundle, text)}, "translate --force-target"),
                  flush=True)
            continue
        if forced.notice:
            print(f"[note] {forced.notice}", file=sys.stderr)
        for token, probability in zip(forced.tokens, forced.probabilities, strict=True):
            print(f"{token}\t{probability:.4f}")
        print(f"log-probability {forced.log_probability:.4f}", flush=True)
    return 0


def command_evaluate(args: argparse.Namespace) -> int:
    """Score the model on a test set (BLEU, chrF, exact match) and print it; the exit status."""
    bundle = _loaded_model(args)
    pairs: Sequence[Pair]
    if args.task:
        pairs = dates.dates_split(seed=(bundle.info.get("data") or {}).get("seed", 1)).test
    else:
        pairs = _file_pairs(args, bundle)
    if args.long_set:
        with unless_training(args.model) if args.record else contextlib.nullcontext():  # --record writes there
            return _evaluate_long_set(args, bundle, pairs)
    if args.record:
        raise EngineError("--record stores a length study: use it with --long-set")
    evaluation = evaluate(bundle.translator, pairs, bundle.target_language,
                          _decode_config(args, bundle))
    if args.json:
        print(json_line(evaluation.to_json(include_exact_match=bool(args.task)), "evaluate",
                        "on this test set"))  # never a bare NaN
    else:
        print(f"BLEU {evaluation.scores.bleu:.2f}  chrF {evaluation.scores.chrf:.2f}  n {evaluation.count}  "
              f"{evaluation.count / max(evaluation.seconds, 1e-9):.1f} sentences/s")
        print(evaluation.scores.signature)
    return 0


def _file_pairs(args: argparse.Namespace, bundle: ModelBundle) -> Sequence[Pair]:
    """The pairs of ``--test`` that ``--split`` asks for (auto: the held-out test part of the model's
    own training corpus, else the whole file)."""
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
    return pairs


def _evaluate_long_set(args: argparse.Namespace, bundle, pairs) -> int:
    """The length study on the long test set made from ``pairs`` (printed; stored with --record)."""
    long_pairs = long_test_set(pairs, bundle.source_language, bundle.target_language)
    study = run_length_study(bundle.translator, long_pairs, bundle.target_language,
                             _decode_config(args, bundle))
    if args.record:
        record_length_study(args.model, study)
    if args.json:
        print(json_line({"length_study": study.to_json()}, "evaluate --long-set",
                        "on the long test set"))  # never a bare NaN
    else:
        print(f"long test set: {study.n} inputs ({len(pairs)} pairs joined 1-8 at a time), beam {study.beam}")
        print(format_study(study))
        print(study.signature)
    return 0


def command_average(args: argparse.Namespace) -> int:
    """Average a run's last weight snapshots into a new model folder; the exit status."""
    folder = write_averaged_model(args.model, args.out, args.last, overwrite=args.overwrite)
    used = load_model_folder(folder).info["averaged"]["count"]
    print(f"[average] {used} snapshot(s) of {args.model} averaged into {folder}", file=sys.stderr)
    return 0
