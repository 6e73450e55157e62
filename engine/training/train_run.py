"""A training run: what it needs (:class:`TrainingJob`, prepared by engine.training.jobs) and its state as it
goes (:class:`TrainingRun`: the model on its device, the optimizer, the progress that a checkpoint
keeps, the clock of the time budget, this epoch's examples). The loop that drives it is
engine.training.trainer. One optimizer step (engine.training.train_step) and a validation
(engine.training.validation) are functions of the parts they read, which the run builds once
(:class:`StepParts`, :class:`ValidationParts`); the run applies what they return to its progress."""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import torch

from engine.corpus.concat import joined_training_pairs, long_test_set
from engine.corpus.data import Split
from engine.networks.device import check_precision, resolve_device
from engine.networks.model import EncoderDecoder
from engine.settings.config import TrainConfig
from engine.text.tokenizer import Tokenizer
from engine.training.batches import encode_pairs
from engine.training.best_model import BestModelFolder
from engine.training.checkpoint import Checkpoint, load_checkpoint, restore_training_state, save_checkpoint
from engine.training.distributed import SINGLE, Distributed, agree_max, broadcast
from engine.training.events import FinishedEvent, FinishReason, RunControl, StepEvent, ValidationEvent
from engine.training.train_step import StepCounters, StepParts, count_step, train_step
from engine.training.validation import ValidationParts, validate


@dataclass(frozen=True)
class TrainingJob:
    """Everything one run needs, prepared by engine.training.jobs (data read, tokenizers trained)."""

    model: EncoderDecoder
    source_tokenizer: Tokenizer
    target_tokenizer: Tokenizer
    split: Split
    source_language: str
    target_language: str
    train_config: TrainConfig
    run_folder: Path
    metadata: dict[str, Any] = field(default_factory=dict)  # written into config.json
    samples: tuple[tuple[str, str], ...] = ()  # (source, reference) shown after each validation
    storage_dtype: str = "float32"
    request: dict[str, Any] | None = None  # what the run was asked for (engine.training.jobs.run_request), kept for resumes
    distributed: Distributed = SINGLE  # this process's rank under torchrun (engine.training.distributed)
    corpus_path: Path | None = None  # the corpus file, in the metrics log only (so the app can resume the run)
    train_pairs: Sequence | None = None  # training pairs already as ids (engine.corpus.token_cache); else split.train is encoded


class TrainingRun:
    """The mutable state of one training run (the generator in engine.training.trainer.train drives it)."""

    def __init__(self, job: TrainingJob, control: RunControl) -> None:
        self.job, self.control, self.config = job, control, job.train_config
        self.dist = job.distributed
        self.device = self.dist.device(resolve_device(self.config.device))
        self.autocast = check_precision(self.config.precision, self.device)  # None: full fp32
        self.model = job.model.to(self.device)
        forward_model = self._forward_model()
        self.scaler = torch.amp.GradScaler(self.device.type) if self.autocast == torch.float16 else None
        self.single_data = job.train_pairs if job.train_pairs is not None else encode_pairs(job, job.split.train)
        self.train_data = self.single_data  # this epoch's examples: the single pairs plus joined ones
        self.valid_data = encode_pairs(job, job.split.valid)
        # The valid pairs joined 1–8 at a time (the rule of the long test set), when the run is judged on both.
        self.long_valid = long_test_set(job.split.valid, job.source_language, job.target_language) if (
            self.config.long_validation) else []
        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=self.config.learning_rate)
        self.scheduler = torch.optim.lr_scheduler.ReduceLROnPlateau(
            self.optimizer, mode="max", factor=self.config.lr_decay_factor,
            patience=self.config.lr_patience, min_lr=self.config.min_learning_rate,
        )
        self.progress: dict[str, Any] = {
            "step": 0, "epoch": 0, "batch_in_epoch": 0, "skipped": 0, "best_bleu": -1.0,
            "best_valid_loss": math.inf, "best_epoch": 0, "epochs_without_improvement": 0,
            "train_seconds": 0.0, "train_tokens": 0, "history": [],
        }
        if job.request is not None:
            self.progress["request"] = job.request  # a resumed run is checked against it
        self.counters = StepCounters()  # the skipped steps in a row, the recent steps' speed, the last step's end
        self.step_parts = StepParts(self.model, forward_model, self.optimizer, self.scaler, self.device,
                                    self.autocast, self.dist, self.config)
        self.validation_parts = self._validation_parts()
        self.started = time.monotonic()
        self.paused_seconds = 0.0
        self.elapsed_before = 0.0  # the clock of a resumed run's earlier calls
        self.shared_elapsed = 0.0  # under torchrun: the run's clock every rank agreed on at the last step
        self.first_step = 0  # the step this call started from (resumed runs start later)

    def _forward_model(self) -> torch.nn.Module:
        """The model the forward and backward passes go through. Under torchrun that is
        DistributedDataParallel, which starts every rank from rank 0's weights and all-reduces the
        gradients during backward."""
        if not self.dist.active:
            return self.model
        from torch.nn.parallel import DistributedDataParallel

        return DistributedDataParallel(
            self.model, device_ids=[self.device.index] if self.device.type == "cuda" else None)

    def _validation_parts(self) -> ValidationParts:
        job = self.job
        best_model = BestModelFolder(
            job.run_folder, job.source_tokenizer, job.target_tokenizer, job.source_language, job.target_language,
            job.train_config, job.metadata, job.storage_dtype, job.split.train if job.train_pairs is None else None)
        return ValidationParts(
            self.model, self.device, self.dist, job.source_tokenizer, job.target_tokenizer, job.source_language,
            job.target_language, job.split.valid, self.valid_data, self.long_valid,
            job.samples[: self.config.sample_count], self.config.keep_snapshots, best_model)

    def train_step(self, indices: Sequence[int]) -> float:
        """One optimizer step on the batch of ``indices`` (engine.training.train_step), counted; the
        per-token loss (NaN for a skipped step)."""
        outcome = train_step(self.step_parts, self.train_data, indices, self.progress["step"], self,
                             self.counters.clock)
        return count_step(outcome, self.progress, self.counters, self.config.max_consecutive_bad_steps,
                          self.job.run_folder)

    # -- epochs ------------------------------------------------------------------------------
    def prepare_epoch(self, epoch: int) -> None:
        """This epoch's examples: every single training pair, plus (with concatenation on, once
        ``concat_start`` of the training is done) joined pairs drawn afresh from (seed, epoch). The
        epoch joining starts at is kept in the progress, so a resumed run sees the same epochs again.
        With subword regularization on, every example is segmented afresh, sampled from (seed, epoch)."""
        config, job = self.config, self.job
        alpha = config.subword_alpha
        if alpha > 0:
            self.single_data = encode_pairs(job, job.split.train, alpha, seed=(config.seed, epoch, 0))
        start = self.progress.get("concat_from_epoch")
        if start is None and config.concat_share > 0 and self.training_fraction() >= config.concat_start:
            self.progress["concat_from_epoch"] = start = epoch
        joined = [] if start is None or epoch < start else joined_training_pairs(
            job.split.train, job.split.valid + job.split.test, config.concat_max_group, config.concat_share,
            config.seed * 1000 + epoch, job.source_language, job.target_language,
        )
        self.train_data = [*self.single_data, *encode_pairs(job, joined, alpha, seed=(config.seed, epoch, 1))] \
            if joined else self.single_data

    def next_epoch(self) -> None:
        self.progress["epoch"] += 1
        self.progress["batch_in_epoch"] = 0

    # -- state -------------------------------------------------------------------------------
    def restore(self) -> None:
        # Rank 0 reads the checkpoint and hands it to the others: no shared file system is needed.
        checkpoint = broadcast(self.dist, load_checkpoint(self.job.run_folder) if self.dist.is_main else None)
        progress = restore_training_state(checkpoint, self.model, self.optimizer, self.scheduler, self.job.run_folder)
        # The clock goes on where it stopped, so the time budget, the budget schedule and the score
        # warm-up continue instead of starting over (older checkpoints lack it: they start over).
        self.elapsed_before = float(progress.pop("elapsed_seconds", 0.0))
        self.progress.update(progress)
        if self.job.request is not None:  # checked against the stored one (engine.training.jobs): it now replaces it
            self.progress["request"] = self.job.request
        self.first_step = self.progress["step"]
        self.shared_elapsed = self.elapsed_before

    def checkpoint(self) -> None:
        if not self.dist.is_main:
            return
        progress = dict(self.progress, elapsed_seconds=self.elapsed(), scheduler=self.scheduler.state_dict())
        save_checkpoint(
            self.job.run_folder,
            Checkpoint(self.model.state_dict(), self.optimizer.state_dict(), torch.get_rng_state(), progress,
                       (self.job.source_tokenizer.sha256, self.job.target_tokenizer.sha256)),
        )

    @property
    def learning_rate(self) -> float:
        return float(self.optimizer.param_groups[0]["lr"])

    # -- the clock and the budgets -----------------------------------------------------------
    def elapsed(self) -> float:
        """Training time so far (the time budget's clock); under torchrun, the one all ranks agreed on."""
        return self.shared_elapsed if self.dist.active else self.local_elapsed()

    def local_elapsed(self) -> float:
        return self.elapsed_before + time.monotonic() - self.started - self.paused_seconds

    def wait_while_paused(self) -> None:
        """Between batches: hold while the run is paused; a pause is neither budget nor training time."""
        if self.control.paused:
            self.paused_seconds += self.control.wait_while_paused()
            self.counters.clock = None

    def agree_to_stop(self, stop_requested: bool) -> bool:
        """Under torchrun, before each step: a stop asked of any rank stops all, and every rank takes
        the latest clock, so the budget, the learning rate and the warm-up are the same everywhere."""
        if not self.dist.active:
            return stop_requested
        self.shared_elapsed, stop = agree_max(self.dist, [self.local_elapsed(), float(stop_requested)])
        return stop > 0

    def training_fraction(self) -> float:
        """How much of the training is done: of the time budget, of the token budget, or else of the
        planned steps."""
        if self.config.max_minutes > 0:
            return self.elapsed() / (60 * self.config.max_minutes)
        if self.config.max_target_tokens > 0:
            return self.progress["train_tokens"] / self.config.max_target_tokens
        planned = self.config.epochs * max(1, math.ceil(len(self.train_data) / self.config.batch_size))
        return self.progress["step"] / planned

    def over_budget(self) -> bool:
        return self.config.max_minutes > 0 and self.elapsed() >= 60 * self.config.max_minutes

    def at_step_limit(self) -> bool:
        return self.config.max_steps > 0 and self.progress["step"] >= self.config.max_steps

    def at_token_budget(self) -> bool:
        return self.config.max_target_tokens > 0 and self.progress["train_tokens"] >= self.config.max_target_tokens

    def budget_reached(self) -> FinishReason | None:
        """The first budget this run has used up (time, steps, target tokens), if any."""
        for reached, reason in ((self.over_budget, FinishReason.TIME_BUDGET),
                                (self.at_step_limit, FinishReason.STEP_LIMIT),
                                (self.at_token_budget, FinishReason.TOKEN_BUDGET)):
            if reached():
                return reason
        return None

    # -- events ------------------------------------------------------------------------------
    def step_event(self, batch: int, batches: int, loss: float) -> StepEvent:
        tokens = sum(t for t, _ in self.counters.recent)
        seconds = sum(s for _, s in self.counters.recent)
        elapsed = self.elapsed()
        eta = self.eta(batch, batches, elapsed)
        return StepEvent(
            step=self.progress["step"], epoch=self.progress["epoch"] + 1, batch=batch, batches_per_epoch=batches,
            loss=loss, tokens_per_second=tokens / seconds if seconds > 0 else 0.0, learning_rate=self.learning_rate,
            skipped_steps=self.progress["skipped"], elapsed_seconds=elapsed, eta_seconds=eta,
            target_tokens=self.progress["train_tokens"],
        )

    def eta(self, batch: int, batches: int, elapsed: float) -> float:
        """Seconds until the first budget ends — the last epoch, the step limit, the target-token budget
        or the time budget — at this call's pace (a resumed run's earlier calls do not count: their
        time over this call's steps made the estimate absurd)."""
        steps_done = max(self.progress["step"] - self.first_step, 1)
        per_step = max(elapsed - self.elapsed_before, 0.0) / steps_done
        remaining = [(self.config.epochs - self.progress["epoch"] - 1) * batches + (batches - batch)]
        if self.config.max_steps > 0:
            remaining.append(max(self.config.max_steps - self.progress["step"], 0))
        recent = self.counters.recent
        tokens_per_step = sum(t for t, _ in recent) / len(recent) if recent else 0.0
        if self.config.max_target_tokens > 0 and tokens_per_step > 0:
            remaining.append(max(self.config.max_target_tokens - self.progress["train_tokens"], 0) / tokens_per_step)
        eta = per_step * min(remaining)
        if self.config.max_minutes > 0:
            eta = min(eta, max(60 * self.config.max_minutes - elapsed, 0.0))
        return eta

    def validate(self) -> ValidationEvent:
        """Validate the model now (engine.training.validation); its time is not training time."""
        self.counters.clock = None
        event, self.progress = validate(self.validation_parts, self.progress, self.learning_rate, self)
        return event

    def finished(self, reason: str) -> FinishedEvent:
        p = self.progress
        return FinishedEvent(
            reason=FinishReason(reason), best_bleu=max(p["best_bleu"], 0.0), best_epoch=p["best_epoch"],
            steps=p["step"], epochs_completed=p["epoch"], seconds=self.elapsed(),
            tokens_per_second=p["train_tokens"] / p["train_seconds"] if p["train_seconds"] else 0.0,
            skipped_steps=p["skipped"], model_folder=str(self.job.run_folder),
        )
