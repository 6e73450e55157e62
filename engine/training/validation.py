"""A training run's validation: the valid loss, BLEU / chrF / exact match of greedy translations
(and the BLEU of the long valid set, when the run is judged on both), sample translations, a
weight snapshot, and the best model saved to the run folder as a model folder (with the record of
its training sources' words, engine.text.training_words, made once at the first save)."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import torch

from engine.decoding.translator import Translator
from engine.evaluation.evaluate import Evaluation, evaluate
from engine.models.bundle import save_model_folder
from engine.text.tokenizer import PAD_ID
from engine.text.training_words import TrainingWords, collect_training_words
from engine.training.batches import collate
from engine.training.distributed import broadcast
from engine.training.events import SampleTranslation, ValidationEvent
from engine.training.snapshots import save_snapshot
from engine.training.train_step import compute_loss

if TYPE_CHECKING:
    from engine.training.train_run import TrainingRun

VALID_BATCH = 128  # valid pairs per forward pass of the valid loss


def validate(run: TrainingRun) -> ValidationEvent:
    """Rank 0 validates; under torchrun the others wait for its event and progress record, so
    that every rank takes the same decisions (learning rate, early stopping) afterwards."""
    run.step_clock = None  # the validation's time is not training time
    event = _validate_here(run) if run.dist.is_main else None
    if run.dist.active:
        event, progress = broadcast(run.dist, (event, run.progress) if run.dist.is_main else None)
        run.progress = progress
    return event  # type: ignore[return-value]


@torch.no_grad()
def valid_loss(run: TrainingRun) -> float:
    """The teacher-forced loss per target token over the valid pairs (no label smoothing)."""
    run.model.eval()
    total, tokens = 0.0, 0
    for start in range(0, len(run.valid_data), VALID_BATCH):
        indices = range(start, min(start + VALID_BATCH, len(run.valid_data)))
        source, lengths, target_in, target_out = collate(run.valid_data, indices)
        source, target_in, target_out = (t.to(run.device) for t in (source, target_in, target_out))
        total += float(compute_loss(run.model(source, lengths, target_in).float(), target_out, 0.0))
        tokens += int((target_out != PAD_ID).sum())
    return total / max(tokens, 1)


def _validate_here(run: TrainingRun) -> ValidationEvent:
    job, progress = run.job, run.progress
    # Judge (and save) the model with the formula it will be used with; the next step re-warms it.
    run.scorer.set_training_temperature(1.0)
    loss = valid_loss(run) if run.valid_data else math.nan
    translator = Translator(run.model, job.source_tokenizer, job.target_tokenizer, job.source_language)
    evaluation = evaluate(translator, job.split.valid, job.target_language)
    samples = _sample_translations(run, translator)
    long_bleu = evaluate(translator, run.long_valid, job.target_language).scores.bleu if run.long_valid else None
    run.model.train()
    bleu = evaluation.scores.bleu
    # The selection score (ValidationEvent.score): the valid BLEU, or its mean with the long set's BLEU.
    score = bleu if long_bleu is None else (bleu + long_bleu) / 2
    improved = (score, -loss) > (progress["best_bleu"], -progress["best_valid_loss"])
    epoch = progress["epoch"] + 1
    metrics = _history_record(run, epoch, loss, evaluation, long_bleu, score)
    progress["history"].append(metrics)
    if run.config.keep_snapshots:
        save_snapshot(job.run_folder, progress["step"], run.model.state_dict(), run.config.keep_snapshots)
    if improved:
        progress.update(best_bleu=score, best_valid_loss=loss, best_epoch=epoch, epochs_without_improvement=0)
        save_best(run, metrics, evaluation.scores.signature)
    return ValidationEvent(
        step=progress["step"], epoch=epoch, valid_loss=loss, bleu=bleu, chrf=evaluation.scores.chrf,
        exact_match=evaluation.exact_match, samples=samples, is_best=improved,
        best_bleu=progress["best_bleu"], learning_rate=run.learning_rate, elapsed_seconds=run.elapsed(),
        long_bleu=long_bleu,
    )


def _sample_translations(run: TrainingRun, translator: Translator) -> tuple[SampleTranslation, ...]:
    """The job's sample sentences as the model translates them now, with their attention."""
    samples = []
    for source, reference in run.job.samples[: run.config.sample_count]:
        translation = translator.translate(source)
        samples.append(SampleTranslation(
            source=source, reference=reference, hypothesis=translation.text,
            source_tokens=translation.source_tokens, tokens=translation.tokens, attention=translation.attention,
        ))
    return tuple(samples)


def _history_record(run: TrainingRun, epoch: int, loss: float, evaluation: Evaluation, long_bleu: float | None,
                    score: float) -> dict[str, Any]:
    """The validation as the run's history keeps it (the checkpoint, the model's config.json)."""
    metrics = {"epoch": epoch, "step": run.progress["step"], "valid_loss": round(loss, 4),
               "bleu": round(evaluation.scores.bleu, 2), "chrf": round(evaluation.scores.chrf, 2),
               "exact_match": round(evaluation.exact_match, 4), "learning_rate": run.learning_rate,
               "target_tokens": run.progress["train_tokens"]}
    if long_bleu is not None:
        metrics.update(long_bleu=round(long_bleu, 2), score=round(score, 2))
    return metrics


def save_best(run: TrainingRun, metrics: dict[str, Any], signature: str) -> None:
    """The model as it is now, saved as the run's model folder, its training and scores in config.json."""
    job = run.job
    metadata = dict(job.metadata)
    metadata.update(
        source_language=job.source_language,
        target_language=job.target_language,
        training=dict(metadata.get("training") or {}, train_config=job.train_config.to_dict(),
                      steps=run.progress["step"], train_seconds=round(run.progress["train_seconds"], 1),
                      history=run.progress["history"]),
        metrics=dict(metadata.get("metrics") or {}, valid=dict(metrics, signature=signature)),
    )
    save_model_folder(job.run_folder, run.model, job.source_tokenizer, job.target_tokenizer, metadata,
                      job.storage_dtype, training_words(run))


def training_words(run: TrainingRun) -> TrainingWords | None:
    """The record of the run's training sources' words, made at its first call; None for a run on the
    token cache (its training pairs are ids, the text is not at hand: the model then has no record)."""
    if run.training_words is None and run.job.train_pairs is None:
        run.training_words = collect_training_words((pair.source for pair in run.job.split.train),
                                                    run.job.source_language)
    return run.training_words
