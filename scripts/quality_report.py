"""Measure the shipped models on the held-out test split and write the quality report.

    python scripts/quality_report.py [--models resources/models] [--corpus …/cmn-eng.tsv]
        [--out docs/quality-report.md] [--beam-limit 0] [--render-only]

For every model folder: sacrebleu BLEU and chrF (greedy and beam 5), the same on the test pairs
whose source sentence the model's training data does not hold, BLEU by source-length bucket,
attention statistics (mean row entropy; how diagonal and how monotonic the alignments are), decode
speed, each zh→en attention scorer's gain over the fixed context C with its paired-bootstrap
p-value (overall, on unseen sources and per length bucket), and — for the default model — ten test
translations spread evenly over the sentence-level chrF ranking (so good and bad ones appear in
their true proportion). Figures also go to a JSON file beside the report; the BLEU-by-length plot
needs matplotlib (``pip install matplotlib``). Each model's attention against the word aligner is
read from the study stored in its folder (``scripts/alignment_report.py`` measures it);
``--render-only`` rewrites the report from its JSON and those stored studies without measuring.
"""

from __future__ import annotations

import argparse
import functools
import json
import math
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from sacrebleu.metrics import CHRF  # noqa: E402

from engine.corpus import read_tsv  # noqa: E402
from engine.corpus.corpus_read import Pair  # noqa: E402
from engine.corpus.data import SPLIT_RULE_TEXT, split_pairs  # noqa: E402
from engine.decoding.attention_statistics import attention_stats, row_entropy  # noqa: E402
from engine.evaluation.content_kept import content_kept  # noqa: E402
from engine.evaluation.evaluate import LENGTH_BUCKETS, bucket_label, corpus_scores, evaluate  # noqa: E402
from engine.evaluation.significance import BOOTSTRAP_SAMPLES, paired_bleu_gains  # noqa: E402
from engine.files.paths import TATOEBA_CORPUS  # noqa: E402
from engine.models.bundle import load_model_folder  # noqa: E402
from engine.models.config_file import read_config  # noqa: E402
from engine.settings import SCORER_NAMES  # noqa: E402
from engine.settings.config import DecodeConfig  # noqa: E402
from engine.studies.training_budget import budget_note, direction_records  # noqa: E402
from scripts.alignment_report import add_alignment_studies  # noqa: E402
from scripts.decode_speed import decode_speeds  # noqa: E402
from scripts.quality_render import JOEY, MIN_TESTED_SENTENCES, add_same_budget_peers, render  # noqa: E402

__all__ = ["JOEY", "MIN_TESTED_SENTENCES", "add_gain_significance", "attention_statistics", "examples", "measure",
           "render"]

def attention_statistics(matrices: list[np.ndarray | None]) -> dict[str, float] | None:
    """Mean row entropy (nats), diagonality (Pearson r of target position vs. attended source
    position), monotonicity (share of steps whose most-attended source position does not move
    backwards) and the stuck share (per sentence, the share of steps whose most-attended position is
    that sentence's most frequent one: 1/rows for a clean diagonal, 1 when attention never moves — a
    model stuck on the first or last source token, where the backward or forward encoder's summary of
    the whole sentence sits, has learned to read a fixed summary like C instead of aligning), over
    sentences with at least 3 source and 3 output tokens; EOS rows excluded."""
    entropies, correlations, forward, stuck, peaks_weight, coverage = [], [], [], [], [], []
    for matrix in matrices:
        if matrix is None:
            return None
        rows = matrix[:-1] if matrix.shape[0] > 1 else matrix
        if rows.shape[0] < 3 or rows.shape[1] < 3:
            continue
        stats = attention_stats(rows)  # the Compare view's per-sentence numbers, averaged here
        peaks_weight.append(stats.mean_max_weight)
        coverage.append(stats.coverage_deviation)
        entropies.extend(row_entropy(rows).tolist())
        expected = rows @ np.arange(rows.shape[1])
        if np.std(expected) > 0:
            correlations.append(float(np.corrcoef(np.arange(rows.shape[0]), expected)[0, 1]))
        peaks = rows.argmax(axis=1)
        forward.extend((np.diff(peaks) >= 0).tolist())
        stuck.append(float(np.bincount(peaks).max()) / len(peaks))
    def mean(values: list) -> float:
        return round(float(np.mean(values)), 3) if values else math.nan

    return {"mean_row_entropy": mean(entropies), "mean_max_weight": mean(peaks_weight),
            "diagonality": mean(correlations), "monotonicity": mean(forward), "stuck_share": mean(stuck),
            "coverage_deviation": mean(coverage)}


def split_rule_of(info: dict) -> str:
    """The split rule a model folder records (by its description); folders without one used the default."""
    text = (info.get("data") or {}).get("split_rule")
    return next((rule for rule, description in SPLIT_RULE_TEXT.items() if description == text), "strict")


def _unseen_scores(pairs: list[Pair], translations, unseen: list[int], target_language: str) -> dict:
    """BLEU / chrF on the pairs at the ``unseen`` indices that were translated."""
    kept = [i for i in unseen if i < len(translations)]
    scores = corpus_scores([translations[i].text for i in kept], [pairs[i].target for i in kept], target_language)
    return {"bleu": round(scores.bleu, 2), "chrf": round(scores.chrf, 2), "n": len(kept)}


def _bucket_content(pairs: list[Pair], translations, label: str, target_language: str) -> float:
    """Content kept (engine.evaluation.content_kept) over the pairs whose source length falls in bucket ``label``."""
    bounds = next((low, high) for low, high in LENGTH_BUCKETS if bucket_label(low, high) == label)
    members = [i for i, t in enumerate(translations) if bounds[0] <= len(t.source_tokens) <= bounds[1]]
    kept = content_kept([translations[i].text for i in members], [pairs[i].target for i in members], target_language)
    return round(kept.share, 4)


def measure(folder: Path, test_pairs_for: Callable[[str, str], list[Pair]],
            train_sources_for: Callable[[str, str, str], set[str]], beam_limit: int) -> dict:
    """The quality figures of the model in ``folder`` on its direction's test pairs (greedy and beam)."""
    bundle = load_model_folder(folder)
    pairs = test_pairs_for(bundle.source_language, bundle.target_language)
    greedy = evaluate(bundle.translator, pairs, bundle.target_language, DecodeConfig(beam_size=1))
    beam_pairs = pairs[:beam_limit] if beam_limit else pairs
    # Beam 5 as the app and the command line decode it: with the model's own length penalty.
    beam = evaluate(bundle.translator, beam_pairs, bundle.target_language, bundle.decode_config(5))
    rule = split_rule_of(bundle.info)
    seen = train_sources_for(bundle.source_language, bundle.target_language, rule)
    unseen = [i for i, pair in enumerate(pairs) if pair.source not in seen]
    training = bundle.info.get("training") or {}
    finished = training.get("finished") or {}
    return {
        "name": folder.name, "scorer": bundle.scorer, "direction": f"{bundle.source_language}-{bundle.target_language}",
        "parameters": bundle.parameter_count, "n": greedy.count,
        "train_pairs": (bundle.info.get("data") or {}).get("split", {}).get("train"), "split_rule": rule,
        "unseen_source": {"greedy": _unseen_scores(pairs, greedy.translations, unseen, bundle.target_language),
                          "beam5": _unseen_scores(pairs, beam.translations, unseen, bundle.target_language)},
        "greedy": {"bleu": round(greedy.scores.bleu, 2), "chrf": round(greedy.scores.chrf, 2)},
        "beam5": {"bleu": round(beam.scores.bleu, 2), "chrf": round(beam.scores.chrf, 2), "n": beam.count,
                  "length_penalty": bundle.length_penalty},
        "signature": greedy.scores.signature,
        "buckets": [{"bucket": b, "n": n, "bleu": round(s, 2),
                     "content_kept": _bucket_content(pairs, greedy.translations, b, bundle.target_language)}
                    for b, n, s in greedy.buckets],
        "content_kept": {"greedy": round(content_kept([t.text for t in greedy.translations],
                                                      [p.target for p in pairs], bundle.target_language).share, 4),
                         "beam5": round(content_kept([t.text for t in beam.translations],
                                                     [p.target for p in beam_pairs], bundle.target_language).share, 4)},
        "attention": attention_statistics([t.attention for t in greedy.translations]),
        "training": {"minutes": round(finished.get("seconds", 0) / 60, 1), "epochs": finished.get("epochs_completed"),
                     "steps": finished.get("steps"), "tokens_per_second": finished.get("tokens_per_second"),
                     "best_epoch": finished.get("best_epoch"), "reason": finished.get("reason"),
                     "target_tokens": ((bundle.info.get("metrics") or {}).get("valid") or {}).get("target_tokens"),  # the best model's
                     "hardware": training.get("hardware"), "command": bundle.info.get("command"),
                     "threads": training.get("torch_threads")},
        "sizes": {key: (bundle.info.get("model") or {}).get(key)
                  for key in ("embedding_size", "dropout", "attention_dropout")},
        "examples": examples(pairs, greedy.translations),
        # Per-sentence material for the paired significance tests; not written to the JSON file.
        "_sentences": {"outputs": [t.text for t in greedy.translations], "references": [p.target for p in pairs],
                       "source_lengths": [len(t.source_tokens) for t in greedy.translations], "unseen": unseen},
    }


def drop_stale_gain_tests(kept: dict[str, dict]) -> None:
    """A kept result's p-values were tested against the C of the run that measured it: when zh→en C is
    measured again (not among ``kept``), they are not this C's and go (the gain itself is recomputed)."""
    if not any(r["direction"] == "zh-en" and r["scorer"] == "none" for r in kept.values()):
        for r in kept.values():
            r.pop("gain_over_c", None)


def _tested_groups(base: dict, attending: list[dict]) -> dict[str, list[int]]:
    """Test-pair indices per group a gain is tested on: all, the sources no model saw, each length bucket;
    groups of fewer than MIN_TESTED_SENTENCES are left out."""
    unseen = set(base["unseen"]).intersection(*(r["_sentences"]["unseen"] for r in attending))
    groups = {"all": list(range(len(base["references"]))), "unseen": sorted(unseen)}
    for low, high in LENGTH_BUCKETS:
        groups[bucket_label(low, high)] = [i for i, n in enumerate(base["source_lengths"]) if low <= n <= high]
    return {group: members for group, members in groups.items() if len(members) >= MIN_TESTED_SENTENCES}


def add_gain_significance(results: list[dict]) -> None:
    """Set ``gain_over_c`` on every zh→en attention result: its greedy BLEU gain over the ``none``
    model with a paired-bootstrap p-value, on all test pairs, on the unseen sources and per bucket
    (groups of at least MIN_TESTED_SENTENCES)."""
    zh_en = [r for r in results if r["direction"] == "zh-en" and "_sentences" in r]
    none = next((r for r in zh_en if r["scorer"] == "none"), None)
    attending = [r for r in zh_en if r is not none]
    if none is None or not attending:
        return
    base = none["_sentences"]
    for r in attending:
        r["gain_over_c"] = {"samples": BOOTSTRAP_SAMPLES}
    for group, members in _tested_groups(base, attending).items():
        gains = paired_bleu_gains([base["outputs"][i] for i in members],
                                  {r["name"]: [r["_sentences"]["outputs"][i] for i in members] for r in attending},
                                  [base["references"][i] for i in members], "en")
        for r in attending:
            g = gains[r["name"]]
            r["gain_over_c"][group] = {"gain": round(g.gain, 2), "p": round(g.p_value, 4), "n": len(members)}


def examples(pairs, translations, count: int = 10) -> list[dict]:
    """``count`` test translations evenly spread over the sentence-level chrF ranking."""
    metric = CHRF()
    scored = sorted(
        ((metric.sentence_score(t.text, [p.target]).score, p, t) for p, t in zip(pairs, translations, strict=True)),
        key=lambda item: item[0], reverse=True,
    )
    picks = [scored[round(i * (len(scored) - 1) / (count - 1))] for i in range(count)]
    return [{"source": p.source, "reference": p.target, "output": t.text, "chrf": round(s, 1)} for s, p, t in picks]


def plot_buckets(results: list[dict], path: Path) -> bool:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    figure, axes = plt.subplots(figsize=(7, 4))
    for result in results:
        if result["direction"] != "zh-en":
            continue
        labels = [b["bucket"] for b in result["buckets"]]
        axes.plot(labels, [b["bleu"] for b in result["buckets"]], marker="o", label=result["scorer"],
                  linestyle="--" if result["scorer"] == "none" else "-")
    axes.set_xlabel("source length (sub-word tokens)")
    axes.set_ylabel("BLEU (greedy)")
    axes.set_title("zh→en BLEU by source length: attention scorers vs. fixed context C")
    axes.legend()
    axes.grid(alpha=0.3)
    figure.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path, dpi=120)
    return True


def _model_folders(parent: Path) -> list[Path]:
    """The model folders in ``parent`` (none when it is missing): zh→en first, in the design's scorer
    order, then the others."""
    def scorer_rank(folder: Path) -> int:
        scorer = folder.name.split("-", 2)[-1]
        return SCORER_NAMES.index(scorer) if scorer in SCORER_NAMES else len(SCORER_NAMES)

    folders = sorted(p for p in parent.glob("*") if (p / "config.json").is_file()) if parent.is_dir() else []
    return sorted(folders, key=lambda p: (not p.name.startswith("zh-en"), scorer_rank(p)))


def _kept_results(folders: list[Path], only: list[str] | None, stored: Path) -> dict[str, dict]:
    """The stored figures of every folder not named in ``only`` (none without ``only``); raises
    SystemExit when one is missing or its weights changed since it was measured."""
    if not only:
        return {}
    unknown = sorted(set(only) - {folder.name for folder in folders})
    if unknown:
        raise SystemExit(f"no model folder named {', '.join(unknown)}")
    return _stored_figures([folder for folder in folders if folder.name not in only], stored)


def _stored_figures(folders: list[Path], stored: Path) -> dict[str, dict]:
    """The figures ``stored`` holds for each of ``folders``; raises SystemExit when one is missing or its
    weights changed since it was measured."""
    previous = {r["name"]: r for r in json.loads(stored.read_text(encoding="utf-8"))} if stored.is_file() else {}
    kept = {}
    for folder in folders:
        result = previous.get(folder.name)
        if result is None:
            raise SystemExit(f"{folder.name} has no stored figures in {stored}: measure it too")
        digest = read_config(folder)["weights"]["sha256"]
        if result.setdefault("weights_sha256", digest) != digest:
            raise SystemExit(f"{folder.name} changed since its figures were stored: measure it too")
        kept[folder.name] = result
    return kept


def training_notes(models: Path) -> dict[str, str]:
    """direction → a note naming how its models were trained, when they were not trained alike."""
    return {direction: budget_note(records) for direction, records in direction_records(models).items()}


def same_budget_peers(out: Path) -> list[dict] | None:
    """The rows of the peer trained to our budget, ``quality-peer.json`` beside the report (written by
    ``bench/peer_joey.py``), or None when it has not been run."""
    path = out.with_name("quality-peer.json")
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else None


def render_stored(out: Path, models: Path) -> int:
    """Write the report from its JSON, with the studies now stored in the model folders."""
    stored = out.with_suffix(".json")
    if not stored.is_file():
        print(f"no stored figures at {stored}: measure first", file=sys.stderr)
        return 2
    results = json.loads(stored.read_text(encoding="utf-8"))
    add_alignment_studies(results, models)
    report = render(results, (out.parent / "img" / "bleu-by-length.png").is_file(), training_notes(models))
    out.write_text(add_same_budget_peers(report, same_budget_peers(out), results), encoding="utf-8")
    stored.write_text(json.dumps(results, ensure_ascii=False, indent=1, default=float), encoding="utf-8")
    print(f"wrote {out}")
    return 0


def measure_speeds_again(out: Path, models: Path, corpus: Path) -> int:
    """Measure every model's decode speed again (nothing else), e.g. with nothing else running on the CPU,
    and write the report from its JSON; refused for a model whose weights changed since it was measured."""
    stored = out.with_suffix(".json")
    if not stored.is_file():
        print(f"no stored figures at {stored}: measure first", file=sys.stderr)
        return 2
    folders = _model_folders(models)
    results = list(_stored_figures(folders, stored).values())
    test_pairs = functools.cache(lambda source, target: list(split_pairs(read_tsv(corpus, source, target)[0]).test))
    speeds = decode_speeds(folders, test_pairs)
    for r in results:
        r["speed"] = speeds[r["name"]]
    stored.write_text(json.dumps(results, ensure_ascii=False, indent=1, default=float), encoding="utf-8")
    return render_stored(out, models)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", type=Path, default=ROOT / "resources" / "models")
    parser.add_argument("--corpus", type=Path, default=TATOEBA_CORPUS)
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "quality-report.md")
    parser.add_argument("--beam-limit", type=int, default=0, help="beam-5 on the first N test pairs only (0 = all)")
    parser.add_argument("--only", nargs="+", metavar="NAME",
                        help="measure only these model folders; the others keep their figures from the report's "
                        "JSON, refused when their weights changed since")
    parser.add_argument("--render-only", action="store_true",
                        help="measure nothing: write the report again from its JSON and the studies stored in the "
                        "model folders (e.g. after scripts/alignment_report.py)")
    parser.add_argument("--speed-only", action="store_true",
                        help="measure only the decode speeds again, of every model (the other figures are kept "
                        "from the report's JSON): run it with nothing else busy on the CPU")
    args = parser.parse_args()
    if args.render_only:
        return render_stored(args.out, args.models)
    if args.speed_only:
        return measure_speeds_again(args.out, args.models, args.corpus)
    if not args.corpus.is_file():
        print(f"corpus not found: {args.corpus}", file=sys.stderr)
        return 2
    @functools.cache
    def pairs_for(source: str, target: str) -> list[Pair]:
        return read_tsv(args.corpus, source, target)[0]  # each direction's pairs, read once

    @functools.cache
    def test_pairs_for(source: str, target: str) -> list[Pair]:
        return list(split_pairs(pairs_for(source, target)).test)  # the same under every split rule

    @functools.cache
    def train_sources_for(source: str, target: str, rule: str) -> set[str]:
        return {pair.source for pair in split_pairs(pairs_for(source, target), rule).train}

    results = []
    folders = _model_folders(args.models)
    kept = _kept_results(folders, args.only, args.out.with_suffix(".json"))
    measured = [folder for folder in folders if folder.name not in kept]
    # Speeds first: decode_speeds judges the CPU by the load average, which this script's own decoding would raise.
    started = time.monotonic()
    speeds = decode_speeds(measured, test_pairs_for) if measured else {}
    print(f"decode speed measured ({time.monotonic() - started:.0f} s)", flush=True)
    for folder in folders:
        if folder.name in kept:
            results.append(kept[folder.name])
            continue
        started = time.monotonic()
        r = measure(folder, test_pairs_for, train_sources_for, args.beam_limit)
        r["weights_sha256"] = read_config(folder)["weights"]["sha256"]
        results.append(r)
        print(f"{r['name']}: greedy {r['greedy']['bleu']} / beam5 {r['beam5']['bleu']} BLEU "
              f"({time.monotonic() - started:.0f} s)", flush=True)
    for r in results:
        if r["name"] not in kept:
            r["speed"] = speeds[r["name"]]
    drop_stale_gain_tests(kept)
    add_gain_significance(results)
    for r in results:
        r.pop("_sentences", None)
    add_alignment_studies(results, args.models)
    plotted = plot_buckets(results, args.out.parent / "img" / "bleu-by-length.png")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    report = render(results, plotted, training_notes(args.models))
    args.out.write_text(add_same_budget_peers(report, same_budget_peers(args.out), results), encoding="utf-8")
    args.out.with_suffix(".json").write_text(json.dumps(results, ensure_ascii=False, indent=1, default=float),
                                             encoding="utf-8")
    print(f"wrote {args.out}")
    return 0 if all(not math.isnan(r["greedy"]["bleu"]) for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
