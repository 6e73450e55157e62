"""Tune what is chosen after training, on validation pairs, for each model folder given.

Both choices are made on the *long validation set*: the first ``--valid`` validation pairs joined 1–8
at a time (as the long test set is made from the test pairs), so that short and multi-sentence
inputs both count.

1. **Checkpoint averaging.** When the run kept weight snapshots (``train --keep-snapshots``), the
   mean of its last k snapshots (k from ``--average``) is scored greedily on the long validation set
   against the run's best model; the folder keeps whichever scores higher, and says so in
   config.json (``averaged``). A replaced model is scored again on the test pairs and the long
   test set.
2. **Beam length penalty.** GNMT's α (``engine.decoding.search.length_penalty_factor``) is chosen from
   ``--alphas`` (widened upwards by 0.6 at a time, up to 5, while the best is the largest tried) by beam-5
   BLEU on the long validation set and stored as ``decoding.length_penalty``,
   which ``translate``, ``evaluate`` and the app then use by default.
   **Coverage penalty.** Then, with that α, GNMT's β (engine.decoding.coverage) is chosen from ``--betas`` the
   same way — the highest beam valid BLEU, the smaller β on a tie, so β = 0 (off) stays unless a
   penalty scores higher, and higher beyond chance (a paired bootstrap against off, p ≤ 0.05) — and
   stored as ``decoding.coverage_penalty``; the share of looping outputs
   (engine.decoding.repetition) is recorded beside each β's BLEU, and the references' share beside them.
   **Repeated n-grams.** Then, with that α and β, the n-gram constraint (engine.decoding.ngram_block: no output
   repeats an n-gram of n sub-word tokens) is chosen from ``--ngrams`` the same way — the highest beam
   valid BLEU, "off" (0) on a tie with off or when the gain over off may be chance (p > 0.05), then the
   larger n — among the n whose outputs loop no more
   often than the references allow (engine.decoding.repetition.loop_bound; when none does, the fewest loops) — and stored as
   ``decoding.no_repeat_ngram``, which beam search then uses by default (greedy decoding stays
   unconstrained unless asked); each n's share of looping outputs is recorded beside its BLEU.
3. The length study on the long test set is recorded again, greedy and with beam 5, and the test
   BLEU / chrF with beam 5 and the chosen α (``metrics.test_beam5``).

Every figure it tried is written into config.json (``decoding.tried``), so the choice can be
checked; ``--more-alphas`` later widens the α search of tuned folders without redoing the rest,
``--coverage-only`` chooses β and n for folders tuned before, and ``--beam-only`` chooses α, β and n afresh
after a change to beam search. Under the peer split rule the validation pairs
are also training pairs: they only choose between settings, as they choose the checkpoint during
training.

    python scripts/tune_decoding.py resources/models/zh-en-additive [...] [--valid 500]
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import torch  # noqa: E402

from engine.corpus import read_tsv  # noqa: E402
from engine.corpus.concat import long_test_set  # noqa: E402
from engine.corpus.data import split_pairs  # noqa: E402
from engine.decoding.repetition import loop_bound, looping_share  # noqa: E402
from engine.evaluation.evaluate import evaluate  # noqa: E402
from engine.evaluation.significance import paired_bleu_gains  # noqa: E402
from engine.files.paths import TATOEBA_CORPUS  # noqa: E402
from engine.models.bundle import load_model_folder, save_model_folder  # noqa: E402
from engine.models.config_file import read_config, update_config  # noqa: E402
from engine.records.run_report import record_test_metrics  # noqa: E402
from engine.settings.config import DecodeConfig  # noqa: E402
from engine.settings.errors import ConfigError, EngineError  # noqa: E402
from engine.studies.length_study import record_length_study, run_length_study  # noqa: E402
from engine.training.averaging import write_averaged_model  # noqa: E402
from engine.training.run_lock import unless_training  # noqa: E402
from engine.training.snapshots import list_snapshots  # noqa: E402


def _valid_bleu(folder: Path, valid, config: DecodeConfig) -> float:
    bundle = load_model_folder(folder)
    return evaluate(bundle.translator, valid, bundle.target_language, config).scores.bleu


# config.json keys that save_model_folder writes itself.
_WRITTEN_ON_SAVE = ("format", "format_version", "model", "parameter_count", "weights", "tokenizers")


def _replace_weights(folder: Path, averaged_folder: Path) -> None:
    """Save the averaged model into the run's folder, keeping the run's record (config.json last)."""
    averaged = load_model_folder(averaged_folder)
    info = read_config(folder)
    metadata = {key: value for key, value in info.items() if key not in _WRITTEN_ON_SAVE}
    metadata["averaged"] = averaged.info["averaged"]
    translator = averaged.translator
    save_model_folder(folder, translator.model, translator.source_tokenizer, translator.target_tokenizer, metadata,
                      (info.get("weights") or {}).get("dtype", "float32"), translator.training_words)


def choose_average(folder: Path, valid, counts: list[int]) -> dict:
    """Keep the run's best model or the best average of its last snapshots, by greedy valid BLEU."""
    snapshots = len(list_snapshots(folder))
    tried = {"best model": round(_valid_bleu(folder, valid, DecodeConfig()), 2)}
    best_name, best_bleu, best_folder = "best model", tried["best model"], None
    scratch = Path(tempfile.mkdtemp(prefix="averaged-"))
    try:
        for count in sorted({c for c in counts if 2 <= c <= snapshots}):
            out = scratch / f"last-{count}"
            write_averaged_model(folder, out, count)
            name = f"average of the last {count}"
            tried[name] = round(_valid_bleu(out, valid, DecodeConfig()), 2)
            if tried[name] > best_bleu:
                best_name, best_bleu, best_folder = name, tried[name], out
        if best_folder is not None:
            _replace_weights(folder, best_folder)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return {"chosen": best_name, "greedy_valid_bleu": tried, "replaced": best_folder is not None}


ALPHA_STEP, ALPHA_LIMIT = 0.6, 5.0  # when the best α is the largest tried, the search goes on upwards by this step


def choose_length_penalty(folder: Path, valid, alphas: list[float], beam: int, widen: bool = True) -> tuple[float, dict]:
    """The α of the highest beam valid BLEU (the smaller α on a tie); the model is loaded once. With
    ``widen``, while the best α is the largest tried (the grid may stop short of a model that needs a
    larger penalty, as Chinese outputs, long in tokens, do), α goes on upwards by ``ALPHA_STEP`` up to
    ``ALPHA_LIMIT``."""
    bundle = load_model_folder(folder)
    tried: dict[float, float] = {}

    def score(alpha: float) -> None:
        config = DecodeConfig(beam_size=beam, length_penalty=alpha)
        tried[alpha] = round(evaluate(bundle.translator, valid, bundle.target_language, config).scores.bleu, 2)

    for alpha in alphas:
        score(alpha)
    while True:
        best = max(sorted(tried), key=lambda a: tried[a])
        larger = round(best + ALPHA_STEP, 2)
        if not widen or best != max(tried) or larger > ALPHA_LIMIT:
            break
        score(larger)
    return best, {str(a): b for a, b in sorted(tried.items())}


SIGNIFICANT_P = 0.05  # a beam option is turned on only when its gain over off is this unlikely to be chance


def sweep_beam_setting(folder: Path, valid, beam: int, field: str, values: list, off=None) -> dict:
    """Per value of one beam setting (``field`` of DecodeConfig: ``coverage_penalty`` or
    ``no_repeat_ngram``), the beam valid BLEU and the share of looping outputs, every other setting the
    model's stored one; with ``off`` (one of ``values``), each other value's paired-bootstrap p-value
    against it (``p_over_off``, engine.evaluation.significance). The model is loaded once."""
    bundle = load_model_folder(folder)
    tried, outputs = {}, {}
    for value in values:
        evaluation = evaluate(bundle.translator, valid, bundle.target_language,
                              bundle.decode_config(beam, **{field: value}))
        outputs[value] = [t.text for t in evaluation.translations]
        tried[value] = {"bleu": round(evaluation.scores.bleu, 2),
                        "looping_share": round(looping_share(outputs[value], bundle.target_language), 4)}
    others = {value: hypotheses for value, hypotheses in outputs.items() if value != off}
    if off in outputs and others:
        gains = paired_bleu_gains(outputs[off], others, [p.target for p in valid], bundle.target_language)
        for value, gain in gains.items():
            tried[value]["p_over_off"] = round(gain.p_value, 4)
    return tried


def best_of(tried: dict, preference: list, off=None):
    """The value of the highest BLEU in ``tried``; on a tie the one that comes first in ``preference``.
    With ``off`` among them, a value other than off competes only when its gain over off is
    significant (``p_over_off`` ≤ SIGNIFICANT_P): a tenth of a BLEU point on a hundred-odd validation
    inputs is chance, and an option turned on by chance changes every output for nothing."""
    if off in preference:
        preference = [value for value in preference
                      if value == off or tried[value].get("p_over_off", 1.0) <= SIGNIFICANT_P]
    return max(preference, key=lambda value: (tried[value]["bleu"], -preference.index(value)))


def choose_coverage_penalty(folder: Path, valid, betas: list[float], beam: int) -> tuple[float, dict]:
    """The β of the highest beam valid BLEU with the stored length penalty among 0 (off) and the β whose
    gain over off is significant (``best_of``; the smaller β on a tie), and per β its BLEU, share of
    looping outputs and p-value against off."""
    values = sorted(set(betas) | {0.0})
    tried = sweep_beam_setting(folder, valid, beam, "coverage_penalty", values, off=0.0)
    return best_of(tried, values, off=0.0), {str(b): figures for b, figures in tried.items()}


def choose_repeat_ngram(folder: Path, valid, ngrams: list[int], beam: int) -> tuple[int, dict]:
    """The n of the highest beam valid BLEU with the stored α and β (0 — off — on a tie, then the larger
    n: the weaker constraint) among the n whose outputs loop no more often than the references allow
    (engine.decoding.repetition.loop_bound: twice their share, at least 3 %) — and, when off is among those, only
    off and the n whose gain over it is significant (``best_of``); when no n stays within the bound, the n
    of the fewest looping outputs (then the highest BLEU). Per n its BLEU, share of looping outputs and
    p-value against off."""
    values = sorted(set(ngrams) | {0}, key=lambda n: (n != 0, -n))
    tried = sweep_beam_setting(folder, valid, beam, "no_repeat_ngram", values, off=0)
    bound = loop_bound(looping_share([p.target for p in valid], read_config(folder)["target_language"]))
    within = [n for n in values if tried[n]["looping_share"] <= bound]
    if within:
        chosen = best_of(tried, within, off=0)
    else:
        chosen = min(values, key=lambda n: (tried[n]["looping_share"], -tried[n]["bleu"], values.index(n)))
    return chosen, {str(n): figures for n, figures in sorted(tried.items())}


def _store_choice(folder: Path, field: str, value, tried: dict, **more_tried) -> bool:
    """Write ``decoding.<field>`` and what was tried into config.json; True when the choice moved."""
    info = read_config(folder)
    decoding = info.get("decoding") or {}
    changed = value != decoding.get(field, getattr(DecodeConfig, field))
    decoding[field] = value
    decoding.setdefault("tried", {})[field] = tried
    decoding["tried"].update(more_tried)
    info["decoding"] = decoding
    update_config(folder, info)
    return changed


def record_coverage_penalty(folder: Path, valid, betas: list[float], beam: int) -> bool:
    """Choose β beside the stored α and write it (and what was tried) into config.json; True when β moved."""
    bundle = load_model_folder(folder)
    beta, tried = choose_coverage_penalty(folder, valid, betas, beam)
    references = round(looping_share([p.target for p in valid], bundle.target_language), 4)
    print(f"{folder.name}: coverage penalty β = {beta} (beam-{beam} valid BLEU and looping share by β, "
          f"α = {bundle.length_penalty}: {tried}; references loop {references})", flush=True)
    return _store_choice(folder, "coverage_penalty", beta, tried, looping_share_references=references)


def record_repeat_ngram(folder: Path, valid, ngrams: list[int], beam: int) -> bool:
    """Choose the n-gram constraint beside the stored α and β and write it (and what was tried) into
    config.json; True when the choice moved."""
    n, tried = choose_repeat_ngram(folder, valid, ngrams, beam)
    chosen = f"no repeated {n}-gram" if n else "repeated n-grams allowed"
    print(f"{folder.name}: {chosen} (beam-{beam} valid BLEU and looping share by n, 0 = off: {tried})", flush=True)
    return _store_choice(folder, "no_repeat_ngram", n, tried)


def main(argv: list[str] | None = None) -> int:
    """Tune each folder given; an engine error (a bad folder, corpus or value, a folder a training holds): one line, exit 2."""
    args = _parser().parse_args(argv)
    try:
        _check_arguments(args)
        if args.threads:
            torch.set_num_threads(args.threads)
        for folder in args.models:
            with unless_training(folder):  # the lock train holds: never beside a run still writing there
                tune_folder(folder, args)
    except EngineError as error:
        print(f"tune_decoding: error: {error}", file=sys.stderr)
        return 2
    except OSError as error:
        where = f"{error.filename}: " if error.filename else ""
        print(f"tune_decoding: error: {where}{error.strerror or error}", file=sys.stderr)
        return 2
    return 0


def _check_arguments(args: argparse.Namespace) -> None:
    """Refuse a value no decode takes before any folder is read (ConfigError naming the valid range)."""
    if args.valid < 1:
        raise ConfigError(f"--valid must be at least 1 (the validation pairs used); got {args.valid}")
    if any(count < 1 for count in args.average):
        raise ConfigError(f"--average counts must be at least 1 (snapshots averaged); got {args.average}")
    if args.threads < 0:
        raise ConfigError(f"--threads must be 0 (torch's default) or more; got {args.threads}")
    checks = [("--beam", "beam_size", [args.beam]), ("--alphas", "length_penalty", args.alphas),
              ("--betas", "coverage_penalty", args.betas), ("--ngrams", "no_repeat_ngram", args.ngrams)]
    for flag, name, values in checks:
        try:
            for value in values:
                DecodeConfig(**{name: value})
        except ConfigError as error:
            raise ConfigError(f"{flag}: {error}") from None


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("models", nargs="+", type=Path, help="model folders")
    parser.add_argument("--corpus", type=Path, default=TATOEBA_CORPUS)
    parser.add_argument("--valid", type=int, default=600, help="validation pairs used (the first N, joined 1-8 "
                        "at a time)")
    parser.add_argument("--alphas", type=float, nargs="+", default=[0.0, 0.6, 1.0, 1.4, 2.0])
    parser.add_argument("--betas", type=float, nargs="+", default=[0.0, 0.1, 0.2, 0.4],
                        help="coverage penalties β tried with the chosen α (0 = off is always tried)")
    parser.add_argument("--ngrams", type=int, nargs="+", default=[2, 3, 4],
                        help="n-gram constraints tried with the chosen α and β (0 = off is always tried)")
    parser.add_argument("--average", type=int, nargs="*", default=[2, 3, 5], help="snapshot counts to try")
    parser.add_argument("--beam", type=int, default=5)
    parser.add_argument("--threads", type=int, default=0, help="torch threads (0 = torch's default)")
    parser.add_argument("--more-alphas", action="store_true",
                        help="only widen the length-penalty search of folders tuned before: try --alphas beside "
                        "the ones already tried (kept from config.json), keep the checkpoint choice and the greedy "
                        "figures, and redo the beam figures if the choice changes")
    parser.add_argument("--coverage-only", action="store_true",
                        help="only choose the coverage penalty and the n-gram constraint of folders tuned before: try "
                        "--betas with the stored α, then --ngrams, keep everything else, and redo the beam figures if "
                        "a choice changes")
    parser.add_argument("--beam-only", action="store_true",
                        help="choose α, β and the n-gram constraint of folders tuned before afresh (after a change to "
                        "beam search): --alphas (widened as usual), then --betas, then --ngrams; keep the checkpoint "
                        "choice and the greedy figures, and redo the beam figures")
    return parser


def tune_folder(folder: Path, args: argparse.Namespace) -> None:
    """Every choice of one model folder (the module docstring), as the flags say."""
    bundle = load_model_folder(folder)
    pairs, _ = read_tsv(args.corpus, bundle.source_language, bundle.target_language)
    split = split_pairs(pairs, "peer")  # valid and test are the same parts under every split rule
    # The choices are made on the validation pairs joined 1-8 at a time, as the long test set is made
    # from the test pairs: a length penalty chosen on single short sentences alone favours short
    # outputs, which cut multi-sentence inputs short.
    valid = long_test_set(split.valid[: args.valid], bundle.source_language, bundle.target_language)
    if args.more_alphas:
        widen_length_penalty(folder, valid, split, args)
        return
    if args.beam_only:
        retune_beam(folder, valid, split, args)
        return
    if args.coverage_only:
        if record_beam_options(folder, valid, args):
            record_beam_figures(folder, long_test_pairs(folder, split), split, args.beam,
                                load_model_folder(folder).length_penalty)
        return
    averaging = choose_average(folder, valid, args.average)
    print(f"{folder.name}: {averaging}", flush=True)
    bundle = load_model_folder(folder)
    long_pairs = long_test_pairs(folder, split)
    # Greedy test figures again: of the averaged model, and with the attention statistics older runs lack.
    record_test_metrics(folder, evaluate(bundle.translator, split.test, bundle.target_language), beam=1)
    # The greedy study again (of the averaged model, or with what older runs did not store).
    record_length_study(folder, run_length_study(bundle.translator, long_pairs, bundle.target_language))
    alpha, tried = choose_length_penalty(folder, valid, args.alphas, args.beam)
    _print_length_penalty(folder, alpha, tried, args.beam)
    info = read_config(folder)
    info["decoding"] = {
        "length_penalty": alpha, "beam": args.beam, "chosen_on": f"the first {args.valid} validation pairs joined 1-8 at a time ({len(valid)} inputs)",
        "tried": {"length_penalty": tried, "averaging": averaging},
    }
    update_config(folder, info)
    record_beam_options(folder, valid, args)
    record_beam_figures(folder, long_pairs, split, args.beam, alpha)


def long_test_pairs(folder: Path, split) -> list:
    """The long test set of the folder's direction (its languages read from config.json, no model loaded)."""
    info = read_config(folder)
    return long_test_set(split.test, info["source_language"], info["target_language"])


def _print_length_penalty(folder: Path, alpha: float, tried: dict, beam: int) -> None:
    print(f"{folder.name}: length penalty α = {alpha} (beam-{beam} valid BLEU by α: {tried})", flush=True)


def record_beam_options(folder: Path, valid, args) -> bool:
    """Choose β beside the stored α, then the n-gram constraint beside both, and store them; True when either moved."""
    moved = record_coverage_penalty(folder, valid, args.betas, args.beam)
    return record_repeat_ngram(folder, valid, args.ngrams, args.beam) or moved


def retune_beam(folder: Path, valid, split, args) -> None:
    """Choose α, β and n afresh for a folder tuned before (what was tried for them is replaced; the
    checkpoint choice and the greedy figures stay), then redo the beam figures."""
    alpha, tried = choose_length_penalty(folder, valid, args.alphas, args.beam)
    _print_length_penalty(folder, alpha, tried, args.beam)
    _store_choice(folder, "length_penalty", alpha, tried)
    record_beam_options(folder, valid, args)
    record_beam_figures(folder, long_test_pairs(folder, split), split, args.beam, alpha)


def widen_length_penalty(folder: Path, valid, split, args) -> None:
    """Try more α for a folder tuned before; the beam figures are redone only when the choice moves."""
    info = read_config(folder)
    decoding = info.get("decoding") or {}
    tried = dict((decoding.get("tried") or {}).get("length_penalty") or {})
    new = [a for a in args.alphas if str(a) not in tried]
    if new:
        _, more = choose_length_penalty(folder, valid, new, args.beam, widen=False)  # the α asked for
        tried.update(more)
    alpha = float(max(sorted(tried, key=float), key=lambda a: tried[a]))
    _print_length_penalty(folder, alpha, tried, args.beam)
    changed = alpha != decoding.get("length_penalty")
    decoding.setdefault("tried", {})["length_penalty"] = tried
    decoding["length_penalty"] = alpha
    info["decoding"] = decoding
    update_config(folder, info)
    if changed:
        record_beam_figures(folder, long_test_pairs(folder, split), split, args.beam, alpha)


def record_beam_figures(folder: Path, long_pairs, split, beam: int, alpha: float) -> None:
    """The beam length study on the long test set and the beam test BLEU, with the chosen α."""
    bundle = load_model_folder(folder)
    study = run_length_study(bundle.translator, long_pairs, bundle.target_language, bundle.decode_config(beam))
    record_length_study(folder, study)
    print(f"{folder.name}: beam-{beam} length study {[(b.label, b.bleu) for b in study.buckets]}", flush=True)
    beam_test = evaluate(bundle.translator, split.test, bundle.target_language, bundle.decode_config(beam))
    info = read_config(folder)
    info.setdefault("metrics", {})[f"test_beam{beam}"] = {
        "bleu": round(beam_test.scores.bleu, 2), "chrf": round(beam_test.scores.chrf, 2), "n": beam_test.count,
        "length_penalty": alpha, "coverage_penalty": bundle.coverage_penalty,
        "no_repeat_ngram": bundle.no_repeat_ngram, "signature": beam_test.scores.signature}
    update_config(folder, info)
    print(f"{folder.name}: test BLEU beam {beam} {beam_test.scores.bleu:.2f}", flush=True)


if __name__ == "__main__":
    sys.exit(main())
