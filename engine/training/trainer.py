"""Training as a generator of events: one :class:`StepEvent` per batch, one
:class:`ValidationEvent` per validation, a final :class:`FinishedEvent`.

The run's state is engine.training.train_run, one optimizer step engine.training.train_step (a non-finite loss or
gradient skips the step; too many in a row raise :class:`DivergedError`, with the best model already
on disk untouched), a validation engine.training.validation. The best model by validation BLEU is saved to
the run folder as a model folder; a resumable checkpoint is written after each validation and when
training stops for any reason. Same seed, same run: the batch order of each epoch derives from
(seed, epoch) and the RNG state travels in the checkpoint.
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Iterator
from pathlib import Path
from typing import Any

import torch

from engine.training.batches import make_batches
from engine.training.checkpoint_state import checkpoint_step, has_checkpoint
from engine.training.distributed import broadcast
from engine.training.events import FinishReason, RunControl, TrainControl, TrainEvent
from engine.training.metrics_log import MetricsLog
from engine.training.train_run import TrainingJob, TrainingRun

# Reasons to stop after which the run is validated once more: what it learned since its last
# validation is not lost.
_BUDGET_REASONS = (FinishReason.TIME_BUDGET, FinishReason.STEP_LIMIT, FinishReason.TOKEN_BUDGET)

# An epoch's events, then the reason the training goes on (COMPLETED) or stops.
_EpochEvents = Generator[TrainEvent, None, FinishReason]


def train(job: TrainingJob, control: RunControl | None = None, resume: bool = False,
          tensorboard: bool = False, on_status: Callable[[str], None] | None = None) -> Iterator[TrainEvent]:
    """Run training, yielding events; the last one is always a :class:`FinishedEvent`. Every event
    is also appended to the run folder's metrics log (engine.training.metrics_log), so that any process can
    follow the run from its folder; a new run starts a new log, a resumed one goes on with it (its
    description replaced by the resume's own options, damaged lines dropped and told to
    ``on_status``). With ``tensorboard``, the events also go to TensorBoard event files
    (engine.training.tensorboard_log). ``control`` (engine.training.events.RunControl) is asked before
    each step whether to hold or to stop; without one the run goes to its end."""
    if not job.distributed.is_main:  # under torchrun, rank 0 alone writes the run folder
        yield from _train_events(job, control, resume)
        return
    Path(job.run_folder).mkdir(parents=True, exist_ok=True)
    log = MetricsLog(job.run_folder)
    resumed_at = checkpoint_step(job.run_folder) if resume else None
    _begin_log(log, job, resumed_at, on_status)
    board = _tensorboard_log(job, resumed_at) if tensorboard else None
    try:
        for event in _train_events(job, control, resume):
            log.append(event)
            if board is not None:
                board.append(event)
            yield event
    finally:
        if board is not None:
            board.close()


def _run_description(job: TrainingJob) -> dict[str, Any]:
    """What the run was asked for: the metrics log's start line (engine.training.metrics_log)."""
    return {"source_language": job.source_language, "target_language": job.target_language,
            "model": job.model.config.to_dict(), "train_config": job.train_config.to_dict(),
            "request": job.request, "data": (job.metadata.get("data") or {}), "task": job.metadata.get("task"),
            "corpus_path": str(job.corpus_path) if job.corpus_path else None,
            "command": job.metadata.get("command", "")}


def _begin_log(log: MetricsLog, job: TrainingJob, resumed_at: int | None,
               on_status: Callable[[str], None] | None) -> None:
    """A new run starts a new log; a resumed one keeps the lines up to its checkpoint's step."""
    description = _run_description(job)
    if resumed_at is None:
        log.clear()
        log.start(description)
        return
    repaired = log.truncate_after(resumed_at, description)
    if repaired.skipped and on_status is not None:
        on_status(repaired.skipped_note(job.run_folder))


def _tensorboard_log(job: TrainingJob, resumed_at: int | None):
    """TensorBoard's event files of the run (an optional extra); a resume drops the steps after its checkpoint."""
    from engine.training.tensorboard_log import TensorBoardLog

    return TensorBoardLog(job.run_folder, purge_step=None if resumed_at is None else resumed_at + 1)


def _train_events(job: TrainingJob, control: RunControl | None, resume: bool) -> Iterator[TrainEvent]:
    run = _start_run(job, control or TrainControl(), resume)
    reason = FinishReason.COMPLETED
    while run.progress["epoch"] < run.config.epochs and reason == FinishReason.COMPLETED:
        reason = yield from _epoch(run)
    run.checkpoint()  # first, so that a stop which must be quick never loses the run
    if reason in _BUDGET_REASONS or run.progress["best_epoch"] == 0:
        # Learning since the last validation is not lost, and a run always ends with a model:
        # validate once more (keeps the better model).
        yield run.validate()
        run.checkpoint()
    yield run.finished(reason)


def _start_run(job: TrainingJob, control: RunControl, resume: bool) -> TrainingRun:
    """The run's state, seeded, and restored from the checkpoint when resuming one."""
    torch.manual_seed(job.train_config.seed)  # its thread count is the lifecycle's (engine.networks.threads)
    job.model.train()
    run = TrainingRun(job, control)
    if broadcast(run.dist, resume and has_checkpoint(job.run_folder)):
        run.restore()
    return run


def _epoch(run: TrainingRun) -> _EpochEvents:
    """The rest of the current epoch (a resumed run starts within one), then its validation."""
    run.prepare_epoch(run.progress["epoch"])
    batches = make_batches(run.train_data, run.config.batch_size, run.config.seed * 1000 + run.progress["epoch"])
    if run.dist.active:  # every rank needs at least one example of each batch
        batches = [batch for batch in batches if len(batch) >= run.dist.world_size]
    reason = yield from _steps(run, batches)
    if reason != FinishReason.COMPLETED:
        return reason
    return (yield from _end_of_epoch(run))


def _steps(run: TrainingRun, batches: list[list[int]]) -> _EpochEvents:
    """One step per batch left in the epoch, each checked first against a stop and the budgets;
    the extra validations of ``validate_every_steps`` (none on an epoch's last batch: the epoch's
    own validation follows)."""
    every = run.config.validate_every_steps
    while run.progress["batch_in_epoch"] < len(batches):
        run.wait_while_paused()
        if run.agree_to_stop(run.control.stop_requested):
            return FinishReason.STOPPED
        reason = run.budget_reached()
        if reason is not None:
            return reason
        loss = run.train_step(batches[run.progress["batch_in_epoch"]])
        run.progress["batch_in_epoch"] += 1
        yield run.step_event(run.progress["batch_in_epoch"], len(batches), loss)
        if every and run.progress["step"] % every == 0 and run.progress["batch_in_epoch"] < len(batches):
            yield run.validate()
            run.checkpoint()
    return FinishReason.COMPLETED


def _end_of_epoch(run: TrainingRun) -> _EpochEvents:
    """The epoch's validation (it steps the plateau schedule and counts towards early stopping),
    then the checkpoint; before ``validate_from`` of the training, the checkpoint alone."""
    config = run.config
    if run.training_fraction() < config.validate_from and run.progress["epoch"] + 1 < config.epochs:
        # Too early to validate (a budgeted run's best model is its last): the time goes to training.
        run.next_epoch()
        run.checkpoint()
        return FinishReason.COMPLETED
    event = run.validate()
    run.next_epoch()
    if config.lr_schedule == "plateau":
        run.scheduler.step(event.score)
    if not event.is_best:
        run.progress["epochs_without_improvement"] += 1
    run.checkpoint()
    yield event
    patience = config.early_stopping_patience
    if patience and run.progress["epochs_without_improvement"] >= patience:
        return FinishReason.EARLY_STOPPING
    return FinishReason.COMPLETED
