"""Write the length-study report from the studies stored in the model folders (no decoding).

    python scripts/length_report.py [--models resources/models] [--out docs/length-study.md]

Each model folder holds its length study (``metrics.length_study`` in config.json: BLEU and chrF
per source-length bucket on the long test set, greedy and — after ``scripts/tune_decoding.py`` —
beam 5). This script tabulates them per direction, sets every attention scorer against the fixed
context C bucket by bucket, checks the targets of the long-sentence work (the best scorer keeps
≥ 0.8× its 1–10-token BLEU on 41+ tokens; its lead over C there is ≥ +10 BLEU and ≥ 1.5× its lead on
1–10; every model's outputs loop no more often than twice the references', and at most 3 % when they do
not) and draws Bahdanau et al.'s Figure 2 for the shipped models (needs matplotlib).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from engine.decoding.repetition import loop_bound  # noqa: E402
from engine.models.config_file import read_config  # noqa: E402
from engine.models.model_record import ModelRecord  # noqa: E402
from engine.settings import SCORER_NAMES  # noqa: E402
from engine.settings.errors import EngineError  # noqa: E402
from engine.studies.length_reading import length_lesson  # noqa: E402
from engine.studies.length_study import (  # noqa: E402
    STUDY_BUCKETS,
    LengthStudy,
    stored_length_study,
    study_bucket_label,
    study_key,
    study_problem,
)
from engine.studies.training_budget import budget_note, compared_with, direction_records  # noqa: E402

SHORT, LONG = "1–10", "41+"
LABELS = [study_bucket_label(*bucket) for bucket in STUDY_BUCKETS]


def gather(models: Path, warn=lambda line: print(line, file=sys.stderr)) -> dict[str, dict[str, dict[int, LengthStudy]]]:
    """direction → scorer → beam → study, for every model folder in ``models`` that stores one. A folder
    or a stored study that is refused (as the app refuses it) is left out with one line through ``warn``."""
    found: dict[str, dict[str, dict[int, LengthStudy]]] = {}
    for folder in sorted(p for p in models.glob("*") if (p / "config.json").exists()):
        try:
            info = read_config(folder)
        except EngineError as error:
            warn(f"length_report: {folder.name} is left out: {error}")
            continue
        direction = f"{info['source_language']}-{info['target_language']}"
        stored = (info.get("metrics") or {}).get("length_study")
        for beam in (1, 5):
            study = stored_length_study(info, beam)
            if study is not None:
                found.setdefault(direction, {}).setdefault(info["model"]["scorer"], {})[beam] = study
            elif isinstance(stored, dict) and study_key(beam) in stored:
                problem = study_problem(stored[study_key(beam)])
                warn(f"length_report: {folder.name}: its beam-{beam} length study is refused ({problem}); left out")
    return found


def like_fixed_context(by_scorer: dict, configs: dict[str, ModelRecord] | None) -> dict:
    """``by_scorer`` restricted to the models trained like the fixed context C (all of it when they were
    all trained alike, or without their configs): the lines the lesson and its targets set against C."""
    alike = set(compared_with({s: (configs or {}).get(s) for s in by_scorer}, "none"))
    return {s: v for s, v in by_scorer.items() if s in alike}


def _bleu(study: LengthStudy, label: str) -> float | None:
    score = study.bucket(label)
    return None if score is None else score.bleu


def _cell(value: float | None) -> str:
    return "—" if value is None else f"{value:.1f}"


def _signed(value: float | None) -> str:
    return "—" if value is None else f"{value:+.1f}"


def _lead(study: LengthStudy, none: LengthStudy, label: str) -> float | None:
    """``study``'s BLEU minus C's in one bucket; None when either lacks it."""
    mine, fixed = _bleu(study, label), _bleu(none, label)
    return None if mine is None or fixed is None else mine - fixed


def targets(by_scorer: dict[str, dict[int, LengthStudy]], beam: int, configs: dict[str, ModelRecord] | None = None) -> list[str]:
    """The long-sentence targets, checked on the stored studies at ``beam`` — the best scorer's among the
    models trained like C (``configs``: scorer → model record)."""
    return _lead_targets(by_scorer, beam, like_fixed_context(by_scorer, configs)) + _loop_target(by_scorer, beam)


def _lead_targets(by_scorer: dict[str, dict[int, LengthStudy]], beam: int, alike: dict | None = None) -> list[str]:
    """The best attention scorer's share of its short-input BLEU kept on 41+ tokens (among ``alike``, the
    models trained like C) and the leads over C."""
    none = by_scorer.get("none", {}).get(beam)
    attending = {s: b[beam] for s, b in by_scorer.items() if s != "none" and beam in b}
    lesson = length_lesson({s: b[beam] for s, b in (alike or by_scorer).items() if beam in b})
    if none is None or lesson is None:
        return []
    best, short, long = lesson.best, lesson.best_short, lesson.best_long
    lead_short = short - (_bleu(none, SHORT) or 0.0)
    lead_long = long - (_bleu(none, LONG) or 0.0)
    lines = [f"- Best attention scorer on 41+ tokens: `{best}`, {long:.1f} BLEU against {short:.1f} on 1–10 tokens: "
             f"**{long / short:.2f}×** its short-input BLEU (target ≥ 0.8×)." if short else "",
             f"- Its lead over C: {lead_long:+.1f} BLEU on 41+ tokens against {lead_short:+.1f} on 1–10 "
             f"(**{lead_long / lead_short:.1f}×**; target ≥ +10 and ≥ 1.5×)." if lead_short > 0 else
             f"- Its lead over C: {lead_long:+.1f} BLEU on 41+ tokens against {lead_short:+.1f} on 1–10 (C is not "
             "behind on short inputs, so there is no ratio: the whole lead comes with length; target ≥ +10).",
             "- Every attention scorer's lead over C on 41+ tokens (target ≥ +5): " + ", ".join(
                 f"`{s}` {(_bleu(st, LONG) or 0.0) - (_bleu(none, LONG) or 0.0):+.1f}" for s, st in attending.items())
             + "."]
    return [line for line in lines if line]


def _loop_target(by_scorer: dict[str, dict[int, LengthStudy]], beam: int) -> list[str]:
    """Each model's share of looping outputs on the long test set against the bound its references allow."""
    measured = {s: b[beam] for s, b in by_scorer.items() if beam in b and b[beam].looping_share is not None}
    if not measured:
        return []
    references = next(iter(measured.values())).references_looping_share or 0.0
    bound = loop_bound(references)
    over = [s for s, st in measured.items() if st.looping_share > bound]
    verdict = "every model within it" if not over else "over it: " + ", ".join(f"`{s}`" for s in over)
    return [f"- Outputs that loop (a word 3-gram three times or more; target ≤ {bound:.0%}: twice the references' "
            f"{references:.1%}, at least 3 %): " + ", ".join(f"`{s}` {st.looping_share:.1%}"
                                                           for s, st in measured.items()) + f" — {verdict}."]


def _lead_table(studies: dict[str, LengthStudy]) -> list[str]:
    """Every attention scorer's lead over the fixed context C, bucket by bucket ([] without C)."""
    none = studies.get("none")
    if none is None or len(studies) < 2:
        return []
    lines = ["", "Lead over the fixed context C (BLEU points):", "",
             "| scorer | " + " | ".join(LABELS + [LONG]) + " |", "| --- |" + " --- |" * (len(LABELS) + 1)]
    for scorer, study in studies.items():
        if scorer == "none":
            continue
        lines.append(f"| {scorer} | " + " | ".join(_signed(_lead(study, none, label)) for label in LABELS + [LONG])
                     + " |")
    return lines


def _beam_section(direction: str, title: str, studies: dict[str, LengthStudy], alike: dict) -> list[str]:
    """One direction at one beam: BLEU per bucket, the lead over C and what the figures show."""
    first = next(iter(studies.values()))
    counts = [f"{label} (n={first.bucket(label).n})" if first.bucket(label) else label for label in LABELS + [LONG]]
    lines = [f"## {direction}, {title}", "", "| scorer | " + " | ".join(counts) + " |",
             "| --- |" + " --- |" * len(counts)]
    for scorer, study in studies.items():
        lines.append(f"| {scorer} | " + " | ".join(_cell(_bleu(study, label)) for label in LABELS + [LONG]) + " |")
    lines += _lead_table(studies)
    lesson = length_lesson({s: st for s, st in studies.items() if s in alike})
    if lesson is not None:
        lines += ["", f"**What the figures show:** {lesson.sentence()}"]
    return lines


def _direction_section(direction: str, by_scorer: dict[str, dict[int, LengthStudy]], trained: dict[str, ModelRecord],
                       plotted: list[str]) -> list[str]:
    """A direction's greedy and beam-5 sections, how its models were trained when not alike, its targets
    and its plot; ``trained``: scorer → model record."""
    scorers = [s for s in SCORER_NAMES if s in by_scorer]
    note = budget_note({s: trained[s] for s in scorers if s in trained})
    alike = like_fixed_context(by_scorer, trained)
    lines: list[str] = []
    for beam, title in ((1, "greedy"), (5, "beam 5, each model's length penalty")):
        studies = {s: by_scorer[s][beam] for s in scorers if beam in by_scorer[s]}
        if not studies:
            continue
        lines += _beam_section(direction, title, studies, alike)
        if note:
            lines += ["", f"**{note}**"]
        checked = targets(by_scorer, beam, trained)
        if checked:
            lines += ["", *checked]
        lines.append("")
    if direction in plotted:
        lines += [f"![BLEU against source length, {direction}](img/length-study-{direction}.png)", ""]
    return lines


def render(found: dict[str, dict[str, dict[int, LengthStudy]]], plotted: list[str],
           configs: dict[str, dict[str, ModelRecord]] | None = None) -> str:
    """The length study's report (Markdown) from the studies ``found`` and the plots drawn."""
    lines = ["# The length study: why attention", "",
             "BLEU by source length on the long test set: the held-out test pairs (English sha256 digest starting "
             "with `0`) joined 1 to 8 at a time after one seeded shuffle, Chinese without a separator and English "
             "with a space, every test pair used once (`engine.corpus.concat.long_test_set`). Each input is translated as "
             "one sequence. Lengths are source sub-word tokens; *41+* scores the two longest buckets as one. "
             "Read from the studies stored in each model folder (`python -m engine evaluate --long-set --record`).",
             ""]
    for direction, by_scorer in sorted(found.items(), key=lambda item: item[0] != "zh-en"):
        lines += _direction_section(direction, by_scorer, (configs or {}).get(direction) or {}, plotted)
    return "\n".join(lines)


def plot(direction: str, by_scorer: dict[str, dict[int, LengthStudy]], path: Path,
         configs: dict[str, ModelRecord] | None = None) -> bool:
    """Draw a direction's BLEU-by-length curves to ``path``; False when matplotlib is missing."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    from engine.settings.scorer_table import SCORER_TABLE, attends  # the app's own palette

    figure, axes = plt.subplots(figsize=(7, 4))
    for scorer in SCORER_NAMES:
        study = by_scorer.get(scorer, {}).get(1)
        if study is None:
            continue
        labels = [b.label for b in study.buckets]
        fixed = not attends(scorer)
        axes.plot(labels, [b.bleu for b in study.buckets], marker="s" if fixed else "o",
                  label="none (fixed C)" if fixed else scorer, linestyle="--" if fixed else "-",
                  linewidth=3 if fixed else 1.8, color=SCORER_TABLE[scorer].colour,
                  zorder=3 if fixed else 2)
    axes.set_xlabel("source length (sub-word tokens), long test set")
    axes.set_ylabel("BLEU (greedy)")
    alike = like_fixed_context(by_scorer, configs)
    lesson = length_lesson({scorer: beams[1] for scorer, beams in alike.items() if 1 in beams})
    verdict = "no attention figures" if lesson is None else lesson.headline()
    axes.set_title(f"{direction}: {verdict}")
    axes.set_ylim(bottom=0)
    axes.legend()
    axes.grid(alpha=0.3)
    figure.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path, dpi=120)
    plt.close(figure)
    return True


def main() -> int:
    """Parse the command line and run (what it does: the module docstring); the exit status."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", type=Path, default=ROOT / "resources" / "models")
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "length-study.md")
    args = parser.parse_args()
    found = gather(args.models)
    if not found:
        print(f"no stored length study in {args.models}", file=sys.stderr)
        return 1
    configs = direction_records(args.models)
    plotted = [d for d, by_scorer in found.items() if plot(d, by_scorer, args.out.parent / "img" /
                                                            f"length-study-{d}.png", configs.get(d))]
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(render(found, plotted, configs), encoding="utf-8")
    summary = {d: {s: {f"beam{b}": st.to_json()["buckets"] + st.to_json()["aggregates"] for b, st in beams.items()}
                   for s, beams in by_scorer.items()} for d, by_scorer in found.items()}
    args.out.with_suffix(".json").write_text(json.dumps(summary, ensure_ascii=False, indent=1) + "\n",
                                             encoding="utf-8")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
