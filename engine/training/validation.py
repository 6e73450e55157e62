"""A training run's validation: the valid loss, BLEU / chrF / exact match of greedy translations
(and the BLEU of the long valid set, when the run is judged on both), sample translations, a
weight snapshot, and the best model saved to the run folder as a model folder
(engine.training.best_model). A function of what it reads (:class:`ValidationParts`, fixed for the
run), the run's progress record, which it updates, the learning rate and the run's clock."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import torch

from engine.decoding.translator import Translator
from engine.evaluation.evaluate import Evaluation, evaluate
from engine.networks.model import EncoderDecoder
from engine.text.tokenizer import PAD_ID, Tokenizer
from engine.training.batches import collate
from engine.training.best_model import BestModelFolder
from engine.training.distributed import Distributed, broadcast
from engine.training.events import SampleTranslation, ValidationEvent
from engine.training.snapshots import save_snapshot
from engine.training.train_step import TrainingClock, compute_loss

VALID_BATCH = 128  # valid pairs per forward pass of the valid loss


@dataclass(frozen=True)
class ValidationParts:
    """What every validation of a run reads; fixed for the run (engine.training.train_run builds it)."""

    model: EncoderDecoder
    device: torch.device
    dist: Distributed
    source_tokenizer: Tokenizer
    target_tokenizer: Tokenizer
    source_language: str
    target_language: str
    valid_pairs: Sequence  # the valid split as text (translated and scored)
    valid_data: Sequence[tuple[list[int], list[int]]]  # the same as ids (the valid loss)
    long_valid: Sequence  # the valid pairs joined 1–8 at a time, when the run is judged on both; else empty
    samples: tuple[tuple[str, str], ...]  # (source, reference) shown after each validation
    keep_snapshots: int  # weight snapshots kept (0: none)
    best_model: BestModelFolder


def validate(parts: ValidationParts, progress: dict[str, Any], learning_rate: float,
             clock: TrainingClock) -> tuple[ValidationEvent, dict[str, Any]]:
    """The validation's event and the progress record after it. Rank 0 validates; under torchrun the
    others wait for its event and progress record, so that every rank takes the same decisions
    (learning rate, early stopping) afterwards."""
    event = _validate_here(parts, progress, learning_rate, clock) if parts.dist.is_main else None
    if parts.dist.active:
        event, progress = broadcast(parts.dist, (event, progress) if parts.dist.is_main else None)
    return event, progress  # type: ignore[return-value]


@torch.no_grad()
def valid_loss(parts: ValidationParts) -> float:
    """The teacher-forced loss per target token over the valid pairs (no label smoothing)."""
    parts.model.eval()
    data = parts.valid_data
    total, tokens = 0.0, 0
    for start in range(0, len(data), VALID_BATCH):
        indices = range(start, min(start + VALID_BATCH, len(data)))
        source, lengths, target_in, target_out = collate(data, indices)
        source, target_in, target_out = (t.to(parts.device) for t in (source, target_in, target_out))
        total += float(compute_loss(parts.model(source, lengths, target_in).float(), target_out, 0.0))
        tokens += int((target_out != PAD_ID).sum())
    return total / max(tokens, 1)


def _validate_here(parts: ValidationParts, progress: dict[str, Any], learning_rate: float,
                   clock: TrainingClock) -> ValidationEvent:
    # Judge (and save) the model with the formula it will be used with; the next step re-warms it.
    parts.model.set_training_temperature(1.0)
    loss = valid_loss(parts) if parts.valid_data else math.nan
    translator = Translator(parts.model, parts.source_tokenizer, parts.target_tokenizer, parts.source_language)
    evaluation = evaluate(translator, parts.valid_pairs, parts.target_language)
    samples = _sample_translations(parts, translator)
    long_bleu = evaluate(translator, parts.long_valid, parts.target_language).scores.bleu if parts.long_valid else None
    parts.model.train()
    bleu = evaluation.scores.bleu
    # The selection score (ValidationEvent.score): the valid BLEU, or its mean with the long set's BLEU.
    score = bleu if long_bleu is None else (bleu + long_bleu) / 2
    improved = (score, -loss) > (progress["best_bleu"], -progress["best_valid_loss"])
    epoch = progress["epoch"] + 1
    metrics = _history_record(progress, epoch, loss, evaluation, long_bleu, score, learning_rate)
    progress["history"].append(metrics)
    if parts.keep_snapshots:
        save_snapshot(parts.best_model.run_folder, progress["step"], parts.model.state_dict(), parts.keep_snapshots)
    if improved:
        progress.update(best_bleu=score, best_valid_loss=loss, best_epoch=epoch, epochs_without_improvement=0)
        parts.best_model.save(parts.model, progress, metrics, evaluation.scores.signature)
    return ValidationEvent(
        step=progress["step"], epoch=epoch, valid_loss=loss, bleu=bleu, chrf=evaluation.scores.chrf,
        exact_match=evaluation.exact_match, samples=samples, is_best=improved,
        best_bleu=progress["best_bleu"], learning_rate=learning_rate, elapsed_seconds=clock.elapsed(),
        long_bleu=long_bleu,
    )


def _sample_translations(parts: ValidationParts, translator: Translator) -> tuple[SampleTranslation, ...]:
    """The run's sample sentences as the model translates them now, with their attention."""
    samples = []
    for source, reference in parts.samples:
        translation = translator.translate(source)
        samples.append(SampleTranslation(
            source=source, reference=reference, hypothesis=translation.text,
            source_tokens=translation.source_tokens, tokens=translation.tokens, attention=translation.attention,
        ))
    return tuple(samples)


def _history_record(progress: dict[str, Any], epoch: int, loss: float, evaluation: Evaluation,
                    long_bleu: float | None, score: float, learning_rate: float) -> dict[str, Any]:
    """The validation as the run's history keeps it (the checkpoint, the model's config.json)."""
    metrics = {"epoch": epoch, "step": progress["step"], "valid_loss": round(loss, 4),
               "bleu": round(evaluation.scores.bleu, 2), "chrf": round(evaluation.scores.chrf, 2),
               "exact_match": round(evaluation.exact_match, 4), "learning_rate": learning_rate,
               "target_tokens": progress["train_tokens"]}
    if long_bleu is not None:
        metrics.update(long_bleu=round(long_bleu, 2), score=round(score, 2))
    return metrics
