"""Translate the app's example inputs with every model and write what each one says.

    python scripts/examples_report.py [--models resources/models] [--out docs/examples.md]
                                      [--groups long paragraph]

The Examples menu (``resources/examples.json``, engine.corpus.examples) is what a new user tries first: short
sentences, long ones, and inputs of several sentences. This report puts each such input beside its
reference and every model's output for its source language — greedy, and beam 5 with the model's own
length penalty, coverage penalty and n-gram constraint (as ``translate`` and the app decode) — with the
share of the reference's content each output keeps (engine.evaluation.content_kept) and a mark on outputs that loop
(engine.decoding.repetition). docs/shipped-models.md quotes its translations from here, so that a quote is what the shipped
models really say.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from engine.corpus.examples import EXAMPLE_LENGTHS, Example, load_examples  # noqa: E402
from engine.decoding.repetition import loops  # noqa: E402
from engine.evaluation.content_kept import content_kept  # noqa: E402
from engine.models.bundle import load_model_folder  # noqa: E402
from engine.models.config_file import read_config  # noqa: E402
from engine.settings import SCORER_NAMES  # noqa: E402

DECODINGS = ((1, "greedy"), (5, "beam 5"))


@dataclass(frozen=True)
class Output:
    """One model's translation of one example with one decoding."""

    text: str
    kept: float | None  # share of the reference's content units it holds (None without a reference)
    loops: bool


@dataclass(frozen=True)
class ModelOutputs:
    """One model: its scorer and, per decoding label, its outputs in the order of the examples."""

    scorer: str
    outputs: dict[str, list[Output]]


def translate_examples(folder: Path, examples: list[Example]) -> ModelOutputs:
    """Every example through the model in ``folder``, greedy and with beam 5 (the model's own settings)."""
    bundle = load_model_folder(folder)
    language = bundle.target_language
    outputs = {}
    for beam, label in DECODINGS:
        translations = bundle.translator.translate_many([e.text for e in examples], bundle.decode_config(beam))
        outputs[label] = [
            Output(t.text, content_kept([t.text], [e.reference], language).share if e.reference else None,
                   loops(t.text, language))
            for t, e in zip(translations, examples, strict=True)]
    return ModelOutputs(bundle.info["model"]["scorer"], outputs)


def gather(models: Path, groups: tuple[str, ...]) -> dict[str, tuple[list[Example], list[ModelOutputs]]]:
    """direction → (its examples in ``groups``, each model's outputs), models in the registry's order."""
    examples = load_examples()
    by_direction: dict[tuple[str, str], list[Path]] = {}
    for folder in sorted(p for p in models.glob("*") if (p / "config.json").is_file()):
        info = read_config(folder)  # the weights are loaded once, by translate_examples
        by_direction.setdefault((info["source_language"], info["target_language"]), []).append(folder)
    found = {}
    order = {name: index for index, name in enumerate(SCORER_NAMES)}
    for (source, target), folders in sorted(by_direction.items(), key=lambda item: item[0] != ("zh", "en")):
        chosen = [e for e in examples.get(source, []) if e.length in groups]
        if chosen:
            results = [translate_examples(folder, chosen) for folder in folders]
            found[f"{source} → {target}"] = (chosen, sorted(results, key=lambda r: order.get(r.scorer, len(order))))
    return found


def _cell(output: Output) -> str:
    kept = "" if output.kept is None else f" *({output.kept:.0%} kept)*"
    looped = " **(loops)**" if output.loops else ""
    return output.text.replace("|", "\\|") + kept + looped


def render(found: dict[str, tuple[list[Example], list[ModelOutputs]]]) -> str:
    """The examples report (Markdown): every example input with each model's outputs."""
    lines = ["# The example inputs, translated", "",
             "The inputs of the app's Examples menu (`resources/examples.json`) with every model's output: greedy, "
             "and beam 5 with the model's own length penalty, coverage penalty and n-gram constraint — what "
             "`python -m engine translate` and the app give. *kept* is the share of the reference's content units "
             "(words without stop words; Han characters without function characters) that the output holds "
             "(`engine/evaluation/content_kept.py`); **(loops)** marks an output in which a word 3-gram occurs three times or "
             "more. Written by `scripts/examples_report.py`.", ""]
    for direction, (examples, results) in found.items():
        lines += [f"## {direction}", ""]
        for index, example in enumerate(examples):
            lines += [f"### {example.length}: {example.text}", ""]
            if example.reference:
                lines += [f"Reference: {example.reference}", ""]
            lines += ["| scorer | " + " | ".join(label for _, label in DECODINGS) + " |",
                      "| --- |" + " --- |" * len(DECODINGS)]
            lines += [f"| {r.scorer} | " + " | ".join(_cell(r.outputs[label][index]) for _, label in DECODINGS)
                      + " |" for r in results]
            lines.append("")
    return "\n".join(lines)


def main() -> int:
    """Parse the command line and run (what it does: the module docstring); the exit status."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", type=Path, default=ROOT / "resources" / "models")
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "examples.md")
    parser.add_argument("--groups", nargs="+", choices=EXAMPLE_LENGTHS, default=["long", "paragraph"],
                        help="which examples: short, long, paragraph (default: long paragraph)")
    args = parser.parse_args()
    found = gather(args.models, tuple(args.groups))
    if not found:
        print(f"no model in {args.models} has examples in its source language", file=sys.stderr)
        return 1
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(render(found), encoding="utf-8")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
