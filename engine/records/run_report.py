"""Adding what is only known after training (test metrics, how it ended) to a model's config.json."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path

from engine.corpus.concat import long_test_set
from engine.corpus.corpus_read import Pair
from engine.decoding.attention_statistics import corpus_attention_stats
from engine.evaluation.evaluate import Evaluation, evaluate
from engine.models.bundle import load_model_folder
from engine.models.config_file import read_config, update_config
from engine.studies.length_study import record_length_study, run_length_study
from engine.training.events import FinishedEvent


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
    attention = corpus_attention_stats([t.attention for t in evaluation.translations])
    if attention is not None:  # how the scorer attends over the test split (engine.decoding.attention_statistics)
        metrics["test"]["attention"] = attention.to_json()
    if finished is not None:
        info.setdefault("training", {})["finished"] = {
            k: (round(v, 2) if isinstance(v, float) else v) for k, v in asdict(finished).items() if k != "model_folder"
        }
    update_config(folder, info)


def score_on_test(
    folder: Path, test_pairs: Sequence[Pair], finished: FinishedEvent | None = None, length_study: bool = False
) -> Evaluation:
    """Load the run's best model, score it (greedy) on the held-out pairs and record the result;
    with ``length_study`` (corpus runs) also run the length study on the long test set made from
    the same held-out pairs and record it, so the app can draw the model's BLEU-by-length curve."""
    bundle = load_model_folder(folder)
    evaluation = evaluate(bundle.translator, test_pairs, bundle.target_language)
    record_test_metrics(folder, evaluation, beam=1, finished=finished)
    if length_study and test_pairs:
        long_pairs = long_test_set(test_pairs, bundle.source_language, bundle.target_language)
        record_length_study(folder, run_length_study(bundle.translator, long_pairs, bundle.target_language))
    return evaluation
