"""Adding what is only known after training (test metrics, how it ended) to a model's config.json."""

from __future__ import annotations

from dataclasses import asdict
from pathlib import Path

from engine.atomic import write_json_atomic
from engine.bundle import CONFIG_FILE, read_config
from engine.evaluate import Evaluation
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
