"""One optimizer step of a training run, in nanoGPT's order: forward, backward, clip, step,
zero_grad — a function of what it computes with (:class:`StepParts`, fixed for the run), the batch,
the step it is and the run's clock (:class:`TrainingClock`, read only by a schedule that needs it).
It returns a :class:`StepOutcome`, which :func:`count_step` adds to the run's counters: a non-finite
loss or gradient skips the step and is counted; ``max_consecutive_bad_steps`` in a row raise
:class:`DivergedError`, with the best model already on disk untouched."""

from __future__ import annotations

import math
import time
from collections import deque
from collections.abc import MutableMapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from engine.networks.model import EncoderDecoder
from engine.settings.config import TrainConfig
from engine.settings.errors import DivergedError
from engine.text.tokenizer import PAD_ID
from engine.training.batches import collate
from engine.training.distributed import Distributed, agree_sum

RECENT_STEPS = 50  # the steps whose (tokens, seconds) make the speed shown


def compute_loss(logits: Tensor, target: Tensor, label_smoothing: float) -> Tensor:
    """Summed token cross-entropy. logits: B×T×V, target: B×T (PAD ignored) → scalar."""
    return F.cross_entropy(
        logits.reshape(-1, logits.size(-1)), target.reshape(-1),
        ignore_index=PAD_ID, label_smoothing=label_smoothing, reduction="sum",
    )


@dataclass(frozen=True)
class StepParts:
    """What every step of a run computes with; fixed for the run (engine.training.train_run builds it)."""

    model: EncoderDecoder  # its parameters are clipped; its scorer's temperature follows the warm-up
    forward_model: nn.Module  # what the passes go through: the model, or under torchrun DDP around it
    optimizer: torch.optim.Optimizer
    scaler: torch.amp.GradScaler | None  # fp16 only: scaled gradients
    device: torch.device
    autocast: torch.dtype | None  # None: full fp32
    dist: Distributed
    config: TrainConfig  # the schedules, label smoothing, clipping, the bad steps allowed in a row


class TrainingClock(Protocol):
    """Where the training stands in time (engine.training.train_run.TrainingRun is one)."""

    def elapsed(self) -> float:
        """Training time so far, in seconds (pauses and earlier calls' gaps excluded)."""
        ...

    def training_fraction(self) -> float:
        """How much of the training is done (of the time budget, the token budget or the planned steps)."""
        ...


@dataclass(frozen=True)
class StepOutcome:
    """What one step did, for the run to count (:func:`count_step`)."""

    value: float  # the whole batch's per-token loss (not finite: the step was skipped)
    good: bool  # the loss and the gradient were finite: the optimizer stepped
    tokens: int  # the whole batch's target tokens (with EOS)
    seconds: float  # its wall-clock time (see :func:`train_step`)
    ended: float  # time.perf_counter() at its end: the next step's time starts there


@dataclass
class StepCounters:
    """What the steps count that no checkpoint keeps: the skipped steps in a row, the recent steps'
    (tokens, seconds) for the speed shown, and when the last step ended (None after a validation or a
    pause: the next step's time starts at its own start)."""

    consecutive_bad: int = 0
    recent: deque[tuple[int, float]] = field(default_factory=lambda: deque(maxlen=RECENT_STEPS))
    clock: float | None = None


def train_step(parts: StepParts, data: Sequence, indices: Sequence[int], step: int, clock: TrainingClock,
               since: float | None) -> StepOutcome:
    """One optimizer step on the batch of ``indices`` into ``data`` (the epoch's pairs as ids), the run
    having taken ``step`` steps before it.

    Its time, counted in tokens/s, is wall-clock: from ``since`` (the end of the previous step; None
    after a validation or a pause: this step's start) to its own end — batching, the event the caller
    handles and the step itself."""
    began = time.perf_counter()
    since = since if since is not None else began
    local = parts.dist.shard(indices) if parts.dist.active else indices  # this rank's slice of the batch
    source, lengths, target_in, target_out = collate(data, local)
    tokens = _batch_tokens(parts.dist, data, indices, target_out)
    follow_schedules(parts, step, clock)
    loss = _forward_loss(parts, source, lengths, target_in, target_out, tokens)
    value, loss = _whole_batch_loss(parts.dist, loss)
    good = math.isfinite(value) and _apply_gradients(parts, loss)
    parts.optimizer.zero_grad(set_to_none=True)
    ended = time.perf_counter()
    return StepOutcome(value, good, tokens, ended - since, ended)


def count_step(outcome: StepOutcome, progress: MutableMapping[str, Any], counters: StepCounters,
               max_bad: int, run_folder: Path) -> float:
    """Count the step in the run's ``progress`` (steps, training time and tokens, skipped steps) and
    ``counters``; its loss, or NaN for a skipped step. ``max_bad`` skipped in a row raise."""
    progress["step"] += 1
    counters.clock = outcome.ended
    progress["train_seconds"] += outcome.seconds
    progress["train_tokens"] += outcome.tokens
    counters.recent.append((outcome.tokens, outcome.seconds))
    if outcome.good:
        counters.consecutive_bad = 0
        return outcome.value
    progress["skipped"] += 1
    counters.consecutive_bad += 1
    if counters.consecutive_bad >= max_bad:
        raise DivergedError(
            f"training diverged: {counters.consecutive_bad} non-finite losses or gradients in a row at step "
            f"{progress['step']}; the last good model is kept in {run_folder}"
        )
    return math.nan


def _batch_tokens(dist: Distributed, data: Sequence, indices: Sequence[int], target_out: Tensor) -> int:
    """The whole batch's target tokens (with EOS). The loss is normalized by them, so that under
    torchrun the all-reduced gradient is the one a single process would compute on the whole batch.
    target_out: B×T of this rank's share."""
    if dist.active:
        return sum(len(data[i][1]) + 1 for i in indices)
    return int((target_out != PAD_ID).sum())


def follow_schedules(parts: StepParts, step: int, clock: TrainingClock) -> None:
    """The learning rate of a warm-up or a budget schedule and the score temperature of a warm-up, as
    they stand after ``step`` steps (the clock is read only by the schedules that follow it)."""
    config = parts.config
    warming = config.warmup_learning_rate(step)
    if warming is not None:
        for group in parts.optimizer.param_groups:
            group["lr"] = warming
    elif config.lr_schedule == "budget":
        for group in parts.optimizer.param_groups:
            group["lr"] = config.budget_learning_rate(clock.elapsed())
    if config.temperature_warmup > 0:
        parts.model.set_training_temperature(
            config.score_temperature(clock.training_fraction(), parts.model.config.decoder_hidden_size))


def _forward_loss(parts: StepParts, source: Tensor, lengths: Tensor, target_in: Tensor, target_out: Tensor,
                  tokens: int) -> Tensor:
    """The per-token loss of this rank's share of the batch (a scalar with its graph).
    source: B×S, lengths: B, target_in / target_out: B×T."""
    source, target_in, target_out = (t.to(parts.device) for t in (source, target_in, target_out))
    with torch.autocast(parts.device.type, dtype=parts.autocast, enabled=parts.autocast is not None):
        logits = parts.forward_model(source, lengths, target_in)
        return compute_loss(logits.float(), target_out, parts.config.label_smoothing) / tokens


def _whole_batch_loss(dist: Distributed, loss: Tensor) -> tuple[float, Tensor]:
    """(the loss shown, the loss to differentiate). Under torchrun DDP averages gradients over the
    ranks, so each rank's share of the batch loss is scaled back up; the loss shown is the whole
    batch's, the same on every rank, so that a non-finite loss anywhere skips the step everywhere
    (no rank left waiting in backward)."""
    value = float(loss.detach())
    if not dist.active:
        return value, loss
    return agree_sum(dist, [value])[0], loss * dist.world_size


def _apply_gradients(parts: StepParts, loss: Tensor) -> bool:
    """Backward, clip and step; False (and no step) when the gradient is not finite."""
    scaler = parts.scaler
    if scaler is not None:  # fp16: scaled gradients, unscaled before clipping
        scaler.scale(loss).backward()
        scaler.unscale_(parts.optimizer)
    else:
        loss.backward()
    norm = torch.nn.utils.clip_grad_norm_(parts.model.parameters(), parts.config.clip_norm or math.inf)
    good = bool(torch.isfinite(norm))
    if good and scaler is not None:
        scaler.step(parts.optimizer)
    elif good:
        parts.optimizer.step()
    if scaler is not None:
        scaler.update()
    return good
