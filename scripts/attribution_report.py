"""Is attention the explanation? Measure each shipped model's attention against attribution, store it, report it.

    python scripts/attribution_report.py [--models resources/models] [--corpus …/cmn-eng.tsv]
        [--sentences 12] [--seed 0] [--only NAME …] [--report-only] [--out docs/attribution-study.md]

1. For each model, a deterministic sample of ``--sentences`` pairs of its test split (a permutation seeded with
   ``--seed``) is translated greedily and every step measured (engine.studies.attribution_study): argmax α =
   argmax occlusion, Spearman ρ(α, |IG|), α permuted within the row (Jain & Wallace 2019: does the token change,
   how far does the output distribution move), IG's share on the source. Stored in the model's config.json
   (``metrics.attribution``).
2. The report tabulates the stored studies per direction with the reading in words derived from the figures
   (engine.studies.attribution_lesson), and writes the same figures as JSON beside it.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")  # as the app runs PyTorch: spinning threads stall on shared cores
import torch  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from engine.corpus import read_tsv  # noqa: E402
from engine.corpus.data import split_pairs  # noqa: E402
from engine.files.paths import TATOEBA_CORPUS  # noqa: E402
from engine.models.bundle import load_model_folder  # noqa: E402
from engine.models.config_file import read_config  # noqa: E402
from engine.settings import SCORER_NAMES  # noqa: E402
from engine.settings.errors import EngineError  # noqa: E402
from engine.studies.attribution_lesson import AttributionFigures, attribution_reading  # noqa: E402
from engine.studies.attribution_scores import AttributionStudy, stored_attribution_study  # noqa: E402
from engine.studies.attribution_study import record_attribution_study, run_attribution_study  # noqa: E402

DEFAULT_SENTENCES = 200  # per model: the eleven shipped models took 27 minutes of study time on two shared cores


def _folders(models: Path) -> list[Path]:
    def rank(folder: Path) -> tuple[bool, int]:
        scorer = folder.name.split("-", 2)[-1]
        return (not folder.name.startswith("zh-en"), SCORER_NAMES.index(scorer) if scorer in SCORER_NAMES else 99)

    return sorted((p for p in models.glob("*") if (p / "config.json").is_file()), key=rank)


def measure(folders: list[Path], corpus: Path, sentences: int, seed: int, only: list[str] | None) -> None:
    """Run and store the study of every model (those in ``only`` when given)."""
    tests: dict[tuple[str, str], list] = {}
    for folder in folders:
        if only and folder.name not in only:
            continue
        bundle = load_model_folder(folder)
        languages = (bundle.source_language, bundle.target_language)
        if languages not in tests:
            tests[languages] = list(split_pairs(read_tsv(corpus, *languages)[0]).test)
        study = run_attribution_study(bundle.translator, tests[languages], sentences, seed)
        record_attribution_study(folder, study)
        print(f"{folder.name}: {study.sentences} sentences, {study.steps} steps, {study.seconds:.0f} s", flush=True)


def gather(folders: list[Path]) -> dict[str, list[tuple[str, AttributionStudy | None]]]:
    """direction → [(scorer, stored study or None)]."""
    found: dict[str, list] = {}
    for folder in folders:
        info = read_config(folder)
        direction = f"{info['source_language']}-{info['target_language']}"
        found.setdefault(direction, []).append((info["model"]["scorer"], stored_attribution_study(info)))
    return found


def figures_of(scorer: str, study: AttributionStudy) -> AttributionFigures:
    """The summary figures of one stored study, as the reading takes them."""
    return AttributionFigures(scorer, f"`{scorer}`", study.figure("agree"), study.chance_agreement,
                              study.figure("rho"), study.figure("changed"), study.figure("tvd"), study.figure("share"))


def _cell(value: float | None, form: str) -> str:
    return "—" if value is None else format(value, form)


def render(found: dict, threads: int) -> str:
    """The Markdown report of the stored studies (``gather``'s), each direction with its reading."""
    lines = ["# Attention against attribution", "",
             "Does a model's output depend on the source pieces its attention falls on? For each shipped model, a "
             "fixed sample of its held-out test split is translated greedily and every output step measured "
             "(`scripts/attribution_report.py`, `engine/studies/attribution_study.py`; the method: "
             "[Why attention](why-attention.md#is-attention-the-explanation)):", "",
             "- *argmax agrees*: the share of steps whose most-attended source piece is the one whose replacement by "
             "`<unk>` lowers log p(y_i) most (occlusion); *chance*: the mean 1/S, what two random picks would give;",
             "- *ρ(α, |IG|)*: the mean Spearman rank correlation per step between α and the magnitude of Integrated "
             "Gradients (32 points, zero-embedding baseline) over the source pieces;",
             "- *token changes* and *TV*: α shuffled at random within the row (five permutations per step; Jain & "
             "Wallace 2019) with the decoder otherwise unchanged — the share of permutations after which the most "
             "probable token is another, and the mean total variation distance between the two output distributions;",
             "- *source share*: the share of IG's attribution (in absolute value) on the source rather than on the "
             "words already written.", ""]
    for direction, rows in sorted(found.items(), key=lambda item: item[0] != "zh-en"):
        lines += [f"## {direction}", "",
                  "| scorer | sentences | steps | argmax agrees | chance | ρ(α, \\|IG\\|) | token changes | TV | "
                  "source share | study time |", "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
        figures = []
        for scorer, study in rows:
            if study is None:
                lines.append(f"| {scorer} | — | no study stored | | | | | | | |")
                continue
            f = figures_of(scorer, study)
            figures.append(f)
            lines.append(f"| {scorer} | {study.sentences} | {study.steps} | {_cell(f.agree, '.0%')} | "
                         f"{_cell(None if f.agree is None else f.chance, '.0%')} | {_cell(f.rho, '.2f')} | {_cell(f.changed, '.0%')} | {_cell(f.tvd, '.2f')} | "
                         f"{f.share:.0%} | {study.seconds:.0f} s |")
        reading = attribution_reading(figures)
        if reading:
            lines += ["", reading]
        lines.append("")
    samples = sorted({(study.sentences, study.test_pairs, study.seed) for rows in found.values()
                      for _, study in rows if study is not None})
    sample = "; ".join(f"{n:,} of {total:,} test pairs (seed {seed})" for n, total, seed in samples)
    lines += [f"Samples: {sample or 'none stored'}. Times on this machine's two shared cores ({threads} torch threads) "
              "as they were measured beside other jobs: a study's time says more about the load than about the model.",
              ""]
    return "\n".join(lines)


def main() -> int:
    """Measure (unless --report-only), then write the report and its JSON."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", type=Path, default=ROOT / "resources" / "models")
    parser.add_argument("--corpus", type=Path, default=TATOEBA_CORPUS)
    parser.add_argument("--sentences", type=int, default=DEFAULT_SENTENCES, help="test pairs per model")
    parser.add_argument("--seed", type=int, default=0, help="the sample's seed")
    parser.add_argument("--only", nargs="+", metavar="NAME", help="measure only these model folders")
    parser.add_argument("--report-only", action="store_true", help="write the report from the stored studies")
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "attribution-study.md")
    args = parser.parse_args()
    if not args.corpus.is_file():
        print(f"corpus not found: {args.corpus}", file=sys.stderr)
        return 2
    folders = _folders(args.models)
    started = time.monotonic()
    try:
        if not args.report_only:
            measure(folders, args.corpus, args.sentences, args.seed, args.only)
        found = gather(folders)
    except EngineError as error:
        print(error, file=sys.stderr)
        return 2
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(render(found, torch.get_num_threads()), encoding="utf-8")
    summary = {direction: {scorer: None if study is None else
                           {"sentences": study.sentences, "steps": study.steps, "chance": round(study.chance_agreement, 4),
                            **study.to_json()["summary"], "seconds": round(study.seconds, 1)}
                           for scorer, study in rows} for direction, rows in found.items()}
    args.out.with_suffix(".json").write_text(json.dumps(summary, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {args.out} ({time.monotonic() - started:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
