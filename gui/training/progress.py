"""How far a run has come, as the Train tab's progress bar and status line show it: plain
functions of the run's settings and its newest step (no Qt, unit-tested)."""

from __future__ import annotations

from dataclasses import dataclass

from engine.config import TrainConfig
from engine.events import FinishedEvent, StepEvent, format_duration
from engine.runs import RunPhase


@dataclass(frozen=True)
class Progress:
    fraction: float  # 0..1 of the run
    text: str  # the progress bar's label


def run_progress(train: TrainConfig, step: StepEvent | None, finished: FinishedEvent | None,
                 phase: RunPhase, status: str = "") -> Progress:
    """The larger of the epochs' and the time budget's share done; a run that ended on its own
    (every epoch, early stopping, the budget, the step limit) is complete. Before its first step
    the bar shows ``status`` (the phase's label unless given)."""
    if step is None:
        return Progress(0.0, status or phase.label)
    total = max(train.epochs * step.batches_per_epoch, 1)
    fraction = ((step.epoch - 1) * step.batches_per_epoch + step.batch) / total
    if train.max_minutes > 0:
        fraction = max(fraction, step.elapsed_seconds / (60 * train.max_minutes))
    if finished is not None and phase is RunPhase.FINISHED:
        fraction = 1.0
    eta = "" if finished is not None else f" · ETA {format_duration(step.eta_seconds)}"
    text = f"Epoch {step.epoch}/{train.epochs} · batch {step.batch}/{step.batches_per_epoch} · step {step.step:,}{eta}"
    return Progress(min(fraction, 1.0), text)
