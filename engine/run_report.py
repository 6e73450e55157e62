"""Adding what is only known after training (test metrics, how it ended) to a model's config.json."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path

from engine.atomic import write_json_atomic
from engine.bundle import CONFIG_FILE, load_model_folder, read_config
from engine.data import Pair
from engine.evaluate import Evaluation, evaluate
from engine.events import FinishedEvent


def record_test_metrics(
    folder: Path, evaluation: Evaluation, beam: int, finished: FinishedEvent | None = None
) -> None:
    """Store test BLEU/chrF (and the run's end) in config.json; the weights are not touched."""
    info = read_config(folder)
    metrics = info.setdefault("metrics", {})
    metrics["test"] = {
        "bleu": round(evaluation.scores.bleu, 2),
        "chrf": round(evaluation.scores.chrf, 2),
        "exact_match": round(evaluation.exact_match, 4),
        "n": evaluation.count,
        "beam": beam,
        "signature": evaluation.scores.signature,
        "bleu_by_source_length": [{"bucket": b, "n": n, "bleu": round(s, 2)} for b, n, s in evaluation.buckets],
    }
    if finished is not None:
        info.setdefault("training", {})["finished"] = {
            k: (round(v, 2) if isinstance(v, float) else v) for k, v in asdict(finished).items() if k != "model_folder"
        }
    write_json_atomic(Path(folder) / CONFIG_FILE, info)


def score_on_test(folder: Path, test_pairs: Sequence[Pair], finished: FinishedEvent | None = None) -> Evaluation:
    """Load the run's best model, score it (greedy) on the held-out pairs and record the result."""
    bundle = load_model_folder(folder)
    evaluation = evaluate(bundle.translator, test_pairs, bundle.target_language)
    record_test_metrics(folder, evaluation, beam=1, finished=finished)
    return evaluation
