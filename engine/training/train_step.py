"""One optimizer step of a training run, in nanoGPT's order: forward, backward, clip, step,
zero_grad. A non-finite loss or gradient skips the step and is counted; ``max_consecutive_bad_steps``
in a row raise :class:`DivergedError`, with the best model already on disk untouched."""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING

import torch
import torch.nn.functional as F
from torch import Tensor

from engine.settings.errors import DivergedError
from engine.text.tokenizer import PAD_ID
from engine.training.batches import collate
from engine.training.distributed import agree_sum

if TYPE_CHECKING:
    from engine.training.train_run import TrainingRun


def compute_loss(logits: Tensor, target: Tensor, label_smoothing: float) -> Tensor:
    """Summed token cross-entropy. logits: B×T×V, target: B×T (PAD ignored) → scalar."""
    return F.cross_entropy(
        logits.reshape(-1, logits.size(-1)), target.reshape(-1),
        ignore_index=PAD_ID, label_smoothing=label_smoothing, reduction="sum",
    )


def train_step(run: TrainingRun, indices: Sequence[int]) -> float:
    """One optimizer step on the batch of ``indices``; returns the per-token loss (NaN when the
    step was skipped).

    Its time, counted in tokens/s, is wall-clock: from the end of the previous step (or this
    step's start, after a validation or a pause) to its own end — batching, the event the
    caller handles and the step itself."""
    began = time.perf_counter()
    since = run.step_clock if run.step_clock is not None else began
    local = run.dist.shard(indices) if run.dist.active else indices  # this rank's slice of the batch
    source, lengths, target_in, target_out = collate(run.train_data, local)
    tokens = _batch_tokens(run, indices, target_out)
    _follow_schedules(run)
    loss = _forward_loss(run, source, lengths, target_in, target_out, tokens)
    run.progress["step"] += 1
    value, loss = _whole_batch_loss(run, loss)
    good = math.isfinite(value) and _apply_gradients(run, loss)
    run.optimizer.zero_grad(set_to_none=True)
    _count_time(run, since, tokens)
    return _judge(run, good, value)


def _batch_tokens(run: TrainingRun, indices: Sequence[int], target_out: Tensor) -> int:
    """The whole batch's target tokens (with EOS). The loss is normalized by them, so that under
    torchrun the all-reduced gradient is the one a single process would compute on the whole batch.
    target_out: B×T of this rank's share."""
    if run.dist.active:
        return sum(len(run.train_data[i][1]) + 1 for i in indices)
    return int((target_out != PAD_ID).sum())


def _follow_schedules(run: TrainingRun) -> None:
    """The learning rate of a warm-up or a budget schedule and the score temperature of a warm-up, as
    they stand at this point of the training."""
    config = run.config
    warming = config.warmup_learning_rate(run.progress["step"])
    if warming is not None:
        for group in run.optimizer.param_groups:
            group["lr"] = warming
    elif config.lr_schedule == "budget":
        for group in run.optimizer.param_groups:
            group["lr"] = config.budget_learning_rate(run.elapsed())
    if config.temperature_warmup > 0:
        run.scorer.set_training_temperature(
            config.score_temperature(run.training_fraction(), run.model.config.decoder_hidden_size))


def _forward_loss(run: TrainingRun, source: Tensor, lengths: Tensor, target_in: Tensor, target_out: Tensor,
                  tokens: int) -> Tensor:
    """The per-token loss of this rank's share of the batch (a scalar with its graph).
    source: B×S, lengths: B, target_in / target_out: B×T."""
    source, target_in, target_out = (t.to(run.device) for t in (source, target_in, target_out))
    with torch.autocast(run.device.type, dtype=run.autocast, enabled=run.autocast is not None):
        logits = run.forward_model(source, lengths, target_in)
        return compute_loss(logits.float(), target_out, run.config.label_smoothing) / tokens


def _whole_batch_loss(run: TrainingRun, loss: Tensor) -> tuple[float, Tensor]:
    """(the loss shown, the loss to differentiate). Under torchrun DDP averages gradients over the
    ranks, so each rank's share of the batch loss is scaled back up; the loss shown is the whole
    batch's, the same on every rank, so that a non-finite loss anywhere skips the step everywhere
    (no rank left waiting in backward)."""
    value = float(loss.detach())
    if not run.dist.active:
        return value, loss
    return agree_sum(run.dist, [value])[0], loss * run.dist.world_size


def _apply_gradients(run: TrainingRun, loss: Tensor) -> bool:
    """Backward, clip and step; False (and no step) when the gradient is not finite."""
    scaler = run.scaler
    if scaler is not None:  # fp16: scaled gradients, unscaled before clipping
        scaler.scale(loss).backward()
        scaler.unscale_(run.optimizer)
    else:
        loss.backward()
    norm = torch.nn.utils.clip_grad_norm_(run.model.parameters(), run.config.clip_norm or math.inf)
    good = bool(torch.isfinite(norm))
    if good and scaler is not None:
        scaler.step(run.optimizer)
    elif good:
        run.optimizer.step()
    if scaler is not None:
        scaler.update()
    return good


def _count_time(run: TrainingRun, since: float, tokens: int) -> None:
    run.step_clock = time.perf_counter()
    seconds = run.step_clock - since
    run.progress["train_seconds"] += seconds
    run.progress["train_tokens"] += tokens
    run.recent.append((tokens, seconds))


def _judge(run: TrainingRun, good: bool, value: float) -> float:
    """The step's loss, or NaN for a skipped step, counted; too many skipped in a row raise."""
    if good:
        run.consecutive_bad = 0
        return value
    run.progress["skipped"] += 1
    run.consecutive_bad += 1
    if run.consecutive_bad >= run.config.max_consecutive_bad_steps:
        raise DivergedError(
            f"training diverged: {run.consecutive_bad} non-finite losses or gradients in a row at step "
            f"{run.progress['step']}; the last good model is kept in {run.job.run_folder}"
        )
    return math.nan
