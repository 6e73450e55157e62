"""How far a run has come, as the Train tab's progress bar and status line show it: plain
functions of the run's settings and its newest step (no Qt, unit-tested)."""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import QCoreApplication

from engine.records import RunPhase
from engine.settings import TrainConfig
from engine.text import format_duration, format_tokens
from engine.training import FinishedEvent, StepEvent


@dataclass(frozen=True)
class Progress:
    fraction: float  # 0..1 of the run
    text: str  # the progress bar's label


def run_progress(train: TrainConfig, step: StepEvent | None, finished: FinishedEvent | None,
                 phase: RunPhase, status: str = "") -> Progress:
    """The largest share done of the run's budgets — its epochs, steps, target tokens and time — and
    a label that names the one that ends it first; a run that ended on its own (every epoch, early
    stopping, a budget) is complete. Before its first step the bar shows ``status`` (the phase's
    label unless given)."""
    if step is None:
        return Progress(0.0, status or QCoreApplication.translate("RunStatus", phase.label))
    shares = budget_shares(train, step)
    binding = max(shares, key=shares.get)
    fraction = 1.0 if finished is not None and phase is RunPhase.FINISHED else shares[binding]
    return Progress(min(fraction, 1.0), _label(train, step, binding, finished is None))


def _words(text: str, *values: object) -> str:
    """A phrase of the bar (in the interface's language) with its %1, %2, … filled in."""
    for number, value in enumerate(values, start=1):
        text = text.replace(f"%{number}", str(value))
    return text


def _label(train: TrainConfig, step: StepEvent, binding: str, running: bool) -> str:
    """The bar's label: epoch, batch and step (out of the ``binding`` budget's total where it is that),
    the target tokens and time when budgeted, and the ETA while ``running``."""
    parts = _counters(train, step, binding)
    if train.max_target_tokens > 0 and step.target_tokens > 0:
        parts.append(_words(QCoreApplication.translate("RunProgress", "%1 / %2 target tokens"), format_tokens(step.target_tokens),
                            format_tokens(train.max_target_tokens)))
    if binding == "time":
        parts.append(f"{format_duration(step.elapsed_seconds)} / {format_duration(60 * train.max_minutes)}")
    if running:
        parts.append(_words(QCoreApplication.translate("RunProgress", "ETA %1"), format_duration(step.eta_seconds)))
    return " · ".join(parts)


def _counters(train: TrainConfig, step: StepEvent, binding: str) -> list[str]:
    """Epoch, batch and step; the epochs or steps out of their total when that budget ends the run."""
    tokens_unknown = train.max_target_tokens > 0 and step.target_tokens <= 0  # a log from before they were
    epoch = (_words(QCoreApplication.translate("RunProgress", "Epoch %1/%2"), step.epoch, train.epochs) if binding == "epochs" and not tokens_unknown
             else _words(QCoreApplication.translate("RunProgress", "Epoch %1"), step.epoch))
    return [epoch, _words(QCoreApplication.translate("RunProgress", "batch %1/%2"), step.batch, step.batches_per_epoch),
            _words(QCoreApplication.translate("RunProgress", "step %1/%2"), f"{step.step:,}", f"{train.max_steps:,}") if binding == "steps"
            else _words(QCoreApplication.translate("RunProgress", "step %1"), f"{step.step:,}")]


def budget_shares(train: TrainConfig, step: StepEvent) -> dict[str, float]:
    """The share done (0–1) of each budget the run has: its epochs always; its steps, target tokens
    (when the step logged them) and minutes when set."""
    total = max(train.epochs * step.batches_per_epoch, 1)
    shares = {"epochs": ((step.epoch - 1) * step.batches_per_epoch + step.batch) / total}
    if train.max_steps > 0:
        shares["steps"] = step.step / train.max_steps
    if train.max_target_tokens > 0 and step.target_tokens > 0:
        shares["tokens"] = step.target_tokens / train.max_target_tokens
    if train.max_minutes > 0:
        shares["time"] = step.elapsed_seconds / (60 * train.max_minutes)
    return shares

