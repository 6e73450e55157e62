"""Score the shipped models' attention against a word aligner, store it in each model folder, report it.

    python scripts/alignment_report.py [--models resources/models] [--corpus …/cmn-eng.tsv]
        [--alignment resources/alignments/cmn-eng.zh-en.json.gz] [--realign] [--only NAME …]
        [--out docs/alignment-study.md]

1. The corpus's word alignment (eflomal over every pair, both directions; grow-diag-final-and) is
   read from ``--alignment``; made first when the file is missing or with ``--realign`` (about a
   minute; needs ``pip install eflomal``). An alignment of another corpus file is refused.
2. Each attention model is forced through its test split's references and its attention scored
   against the aligner's links (``engine.studies.alignment_study``: AER, precision and recall of the
   argmax links and of the links with α ≥ 0.3); the study is stored in the model's config.json
   (``metrics.alignment``), where the app's Length study reads it.
3. The report tabulates the stored studies per direction with the reading in words, beside each
   model's stored long-input BLEU (41+ source sub-words, greedy, from the length study).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from engine.corpus import read_tsv  # noqa: E402
from engine.corpus.data import split_pairs  # noqa: E402
from engine.files.paths import SHIPPED_ALIGNMENT, TATOEBA_CORPUS  # noqa: E402
from engine.models.bundle import load_model_folder  # noqa: E402
from engine.models.config_file import read_config  # noqa: E402
from engine.settings import SCORER_NAMES  # noqa: E402
from engine.settings.errors import EngineError  # noqa: E402
from engine.studies.aligner import align_corpus, aligner_problem, file_sha256  # noqa: E402
from engine.studies.alignment_lesson import AlignmentFigures, alignment_reading  # noqa: E402
from engine.studies.alignment_scores import THRESHOLD, AlignmentStudy, stored_alignment_study  # noqa: E402
from engine.studies.alignment_store import load_alignment, save_alignment  # noqa: E402
from engine.studies.alignment_study import record_alignment_study, run_alignment_study  # noqa: E402
from engine.studies.length_study import stored_length_study  # noqa: E402

LONG = "41+"


def corpus_alignment(corpus: Path, path: Path, realign: bool):
    """The stored alignment of ``corpus`` (made and stored first when asked or missing)."""
    if realign or not path.is_file():
        problem = aligner_problem()
        if problem:
            raise SystemExit(f"cannot align {corpus.name}: {problem}")
        pairs = read_tsv(corpus, "zh", "en")[0]
        started = time.monotonic()
        alignment = align_corpus(pairs, "zh", "en", corpus.name, file_sha256(corpus))
        save_alignment(path, alignment)
        print(f"aligned {len(alignment.pairs):,} pairs in {alignment.seconds:.1f} s (eflomal), "
              f"{time.monotonic() - started:.1f} s with reading and the priors; wrote {path}", flush=True)
    alignment = load_alignment(path)
    if alignment.corpus_sha256 != file_sha256(corpus):
        raise SystemExit(f"{path.name} was made from another {alignment.corpus_name}: run with --realign")
    return alignment


def _folders(models: Path) -> list[Path]:
    def rank(folder: Path) -> tuple[bool, int]:
        scorer = folder.name.split("-", 2)[-1]
        return (not folder.name.startswith("zh-en"), SCORER_NAMES.index(scorer) if scorer in SCORER_NAMES else 99)

    return sorted((p for p in models.glob("*") if (p / "config.json").is_file()), key=rank)


def measure(folders: list[Path], corpus: Path, alignment, only: list[str] | None) -> None:
    """Run and store the study of every attention model (those in ``only`` when given)."""
    tests: dict[tuple[str, str], list] = {}
    for folder in folders:
        if only and folder.name not in only:
            continue
        bundle = load_model_folder(folder)
        if not bundle.translator.uses_attention:
            print(f"{folder.name}: no attention (fixed context C), nothing to score", flush=True)
            continue
        languages = (bundle.source_language, bundle.target_language)
        if languages not in tests:
            tests[languages] = list(split_pairs(read_tsv(corpus, *languages)[0]).test)
        study = run_alignment_study(bundle.translator, tests[languages], alignment, *languages)
        record_alignment_study(folder, study)
        print(f"{folder.name}: argmax AER {study.argmax.aer:.3f}, α ≥ {THRESHOLD} AER {study.thresholded.aer:.3f} "
              f"({study.sentences} pairs, {study.seconds:.1f} s)", flush=True)


def gather(folders: list[Path]) -> dict[str, list[tuple[str, AlignmentStudy | None, float | None]]]:
    """direction → [(scorer, stored study or None, stored greedy 41+ BLEU or None)]."""
    found: dict[str, list] = {}
    for folder in folders:
        info = read_config(folder)
        direction = f"{info['source_language']}-{info['target_language']}"
        length = stored_length_study(info, 1)
        long = length.bucket(LONG) if length is not None else None
        found.setdefault(direction, []).append((info["model"]["scorer"], stored_alignment_study(info),
                                                long.bleu if long is not None else None))
    return found


def _rates(scores) -> str:
    return f"{scores.aer:.3f} | {scores.precision:.3f} | {scores.recall:.3f}"


def render(found: dict, alignment, threads: int) -> str:
    """The alignment study's report (Markdown) from the scores ``found``."""
    lines = ["# Attention against a word aligner", "",
             "Is attention alignment? Each model is fed the held-out test split's references (forced decoding) and its "
             "attention, mapped from sub-word pieces to words, is scored against the links of a statistical word "
             f"aligner: {alignment.description} (aligned in {alignment.seconds:.0f} s). Words: Chinese characters "
             "(each a word), English words and punctuation marks (`engine/studies/align_words.py`).", "",
             "*argmax*: each output word linked to its most-attended source word; *α ≥ "
             f"{THRESHOLD}*: every source word that gets at least {THRESHOLD} of an output word's attention. The "
             "aligner's links are taken as sure links: precision = |A∩S|/|A|, recall = |A∩S|/|S|, "
             "AER = 1 − 2|A∩S|/(|A|+|S|) (Och & Ney 2003; 0 = the aligner's links exactly, 1 = none of them). "
             "The aligner is a model too: a low AER means attention agrees with it, not that either is right.", ""]
    for direction, rows in sorted(found.items(), key=lambda item: item[0] != "zh-en"):
        lines += [f"## {direction}", "",
                  f"| scorer | pairs | argmax AER | precision | recall | α ≥ {THRESHOLD} AER | precision | recall | "
                  f"41+ BLEU (greedy) | study time |",
                  "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
        figures = []
        for scorer, study, long in rows:
            bleu = "—" if long is None else f"{long:.1f}"
            if study is None:
                reason = "no attention (fixed C)" if scorer == "none" else "no study stored"
                lines.append(f"| {scorer} | — | {reason} | | | | | | {bleu} | — |")
                continue
            lines.append(f"| {scorer} | {study.sentences:,} | {_rates(study.argmax)} | {_rates(study.thresholded)} | "
                         f"{bleu} | {study.seconds:.1f} s |")
            figures.append(AlignmentFigures(scorer, f"`{scorer}`", study.argmax.aer, study.argmax.precision,
                                            study.argmax.recall, long))
        reading = alignment_reading(figures)
        if reading:
            lines += ["", reading]
        lines.append("")
    lines += [f"Times on this machine's two shared cores ({threads} torch threads) as they were measured, while a "
              "model trained in the background and other jobs ran (load average about 12): each study took 13–18 s "
              "when the machine was less busy.", ""]
    return "\n".join(lines)


def add_alignment_studies(results: list[dict], models: Path) -> None:
    """Set ``alignment`` on every quality-report result: its model folder's stored study (as JSON),
    None when it has none, or ``{"refused": reason}`` when the stored study is damaged; and
    ``long_bleu``: its stored greedy BLEU on 41+ source sub-words (None without a length study)."""
    for r in results:
        try:
            info = read_config(models / r["name"])
            study = stored_alignment_study(info)
            r["alignment"] = None if study is None else study.to_json()
        except EngineError as error:
            info, r["alignment"] = None, {"refused": str(error)}
        length = stored_length_study(info, 1) if info is not None else None
        long = length.bucket(LONG) if length is not None else None
        r["long_bleu"] = None if long is None else long.bleu


def alignment_section(results: list[dict]) -> list[str]:
    """The quality report's lines on attention against the word aligner (from ``add_alignment_studies``)."""
    studied = [r for r in results if isinstance(r.get("alignment"), dict) and "refused" not in r["alignment"]]
    if not studied:
        return []
    lines = ["", "## Attention against a word aligner (test split references, forced)", "",
             f"{studied[0]['alignment']['aligner']}; words: Chinese characters, English words and punctuation. "
             "*argmax*: each output word linked to its most-attended source word; *α ≥ "
             f"{THRESHOLD}*: every source word given at least {THRESHOLD} of an output word's attention. AER = "
             "1 − 2|A∩S|/(|A|+|S|) with the aligner's links as sure links S (0 = exactly the aligner's links). "
             "From the studies stored in the model folders (`scripts/alignment_report.py`; docs/alignment-study.md).",
             "", f"| model | argmax AER / precision / recall | α ≥ {THRESHOLD} AER / precision / recall | "
             "41+ BLEU (greedy, long test set) |", "| --- | --- | --- | --- |"]
    for r in results:
        stored = r.get("alignment")
        bleu = "—" if r.get("long_bleu") is None else f"{r['long_bleu']:.1f}"
        if not isinstance(stored, dict):
            what = "— (no attention: fixed C)" if r["scorer"] == "none" else "— (no study stored)"
            lines.append(f"| {r['name']} | {what} | — | {bleu} |")
        elif "refused" in stored:
            lines.append(f"| {r['name']} | refused: {stored['refused']} | — | {bleu} |")
        else:
            a, t = stored["argmax"], stored["threshold"]
            lines.append(f"| {r['name']} | {a['aer']:.3f} / {a['precision']:.3f} / {a['recall']:.3f} | "
                         f"{t['aer']:.3f} / {t['precision']:.3f} / {t['recall']:.3f} | {bleu} |")
    for direction in sorted({r["direction"] for r in studied}, key=lambda d: d != "zh-en"):
        reading = alignment_reading([AlignmentFigures(r["scorer"], f"`{r['scorer']}`", r["alignment"]["argmax"]["aer"],
                                                      r["alignment"]["argmax"]["precision"],
                                                      r["alignment"]["argmax"]["recall"], r.get("long_bleu"))
                                     for r in studied if r["direction"] == direction])
        if reading:
            lines += ["", f"{direction}: {reading}"]
    return lines


def main() -> int:
    """Parse the command line and run (what it does: the module docstring); the exit status."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", type=Path, default=ROOT / "resources" / "models")
    parser.add_argument("--corpus", type=Path, default=TATOEBA_CORPUS)
    parser.add_argument("--alignment", type=Path, default=SHIPPED_ALIGNMENT)
    parser.add_argument("--realign", action="store_true", help="align the corpus again (about a minute)")
    parser.add_argument("--only", nargs="+", metavar="NAME", help="measure only these model folders")
    parser.add_argument("--report-only", action="store_true", help="write the report from the stored studies")
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "alignment-study.md")
    args = parser.parse_args()
    if not args.corpus.is_file():
        print(f"corpus not found: {args.corpus}", file=sys.stderr)
        return 2
    folders = _folders(args.models)
    try:
        alignment = corpus_alignment(args.corpus, args.alignment, args.realign)
        if not args.report_only:
            measure(folders, args.corpus, alignment, args.only)
        found = gather(folders)
    except EngineError as error:
        print(error, file=sys.stderr)
        return 2
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(render(found, alignment, torch.get_num_threads()), encoding="utf-8")
    summary = {direction: {scorer: None if study is None else study.to_json() for scorer, study, _ in rows}
               for direction, rows in found.items()}
    args.out.with_suffix(".json").write_text(json.dumps(summary, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
