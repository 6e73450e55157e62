"""Training as a generator of events: one :class:`StepEvent` per batch, one
:class:`ValidationEvent` per validation, a final :class:`FinishedEvent`.

Step order (as nanoGPT): forward, backward, clip, step, zero_grad. A non-finite loss or gradient
skips the step and is counted; ``max_consecutive_bad_steps`` in a row raise
:class:`DivergedError`, with the best model already on disk untouched. The best model by
validation BLEU is saved to the run folder as a model folder; a resumable checkpoint is written
after each validation and when training stops for any reason. Same seed, same run: the batch
order of each epoch derives from (seed, epoch) and the RNG state travels in the checkpoint.
"""

from __future__ import annotations

import math
import time
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F
from torch import Tensor

from engine.bundle import save_model_folder
from engine.checkpoint import (
    Checkpoint,
    checkpoint_step,
    has_checkpoint,
    load_checkpoint,
    restore_training_state,
    save_checkpoint,
)
from engine.concat import joined_training_pairs, long_test_set
from engine.config import MAX_SOURCE_TOKENS, TrainConfig
from engine.data import Split
from engine.device import check_precision, resolve_device
from engine.distributed import SINGLE, Distributed, agree_max, agree_sum, broadcast
from engine.errors import DivergedError
from engine.evaluate import evaluate
from engine.events import (
    FinishedEvent,
    FinishReason,
    SampleTranslation,
    StepEvent,
    TrainControl,
    TrainEvent,
    ValidationEvent,
)
from engine.metrics_log import MetricsLog
from engine.model import Seq2Seq
from engine.snapshots import save_snapshot
from engine.tokenizer import BOS_ID, EOS_ID, PAD_ID, Tokenizer, seed_segmentation_sampling
from engine.translator import Translator

MAX_TRAIN_TOKENS = MAX_SOURCE_TOKENS  # longer training pairs (either side, in sub-words) are left out


@dataclass(frozen=True)
class TrainingJob:
    """Everything one run needs, prepared by engine.jobs (data read, tokenizers trained)."""

    model: Seq2Seq
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
    request: dict[str, Any] | None = None  # what the run was asked for (engine.jobs.run_request), kept for resumes
    distributed: Distributed = SINGLE  # this process's rank under torchrun (engine.distributed)
    corpus_path: Path | None = None  # the corpus file, in the metrics log only (so the app can resume the run)
    train_pairs: Sequence | None = None  # training pairs already as ids (engine.token_cache); else split.train is encoded


def compute_loss(logits: Tensor, target: Tensor, label_smoothing: float) -> Tensor:
    """Summed token cross-entropy. logits: B×T×V, target: B×T (PAD ignored) → scalar."""
    return F.cross_entropy(
        logits.reshape(-1, logits.size(-1)), target.reshape(-1),
        ignore_index=PAD_ID, label_smoothing=label_smoothing, reduction="sum",
    )


def encode_pairs(job: TrainingJob, pairs: Sequence, sample_alpha: float = 0.0) -> list[tuple[list[int], list[int]]]:
    """Sub-word ids of each pair, leaving out pairs longer than MAX_TRAIN_TOKENS; with ``sample_alpha``
    > 0 both sides get a sampled segmentation (subword regularization, see Tokenizer.encode)."""
    encoded = []
    for pair in pairs:
        source = job.source_tokenizer.encode(pair.source, sample_alpha)
        target = job.target_tokenizer.encode(pair.target, sample_alpha)
        if 0 < len(source) <= MAX_TRAIN_TOKENS and 0 < len(target) <= MAX_TRAIN_TOKENS:
            encoded.append((source, target))
    return encoded


def make_batches(data: Sequence[tuple[list[int], list[int]]], batch_size: int, seed: int) -> list[list[int]]:
    """Shuffled batches of similar target, then source, length; deterministic in ``seed``.

    Within each pool of 32 batches the pairs are sorted by (target length, source length). The
    decoder runs every step of the longest target in the batch, so target padding is what costs
    (sorting by source length alone left 66 % of the decoder's steps on Tatoeba as padding, this
    7 %); the encoder reads packed sequences and skips source padding. The sort is numpy's stable
    lexsort (ties keep the shuffled order), so two million pairs batch in a fraction of a second."""
    generator = torch.Generator().manual_seed(seed)
    order = torch.randperm(len(data), generator=generator).numpy()
    if hasattr(data, "lengths"):  # memory-mapped ids (engine.token_cache): lengths without reading them
        source_lengths, target_lengths = (np.asarray(side) for side in data.lengths())
    else:
        source_lengths = np.fromiter((len(pair[0]) for pair in data), dtype=np.int64, count=len(data))
        target_lengths = np.fromiter((len(pair[1]) for pair in data), dtype=np.int64, count=len(data))
    pool = batch_size * 32
    batches = []
    for start in range(0, len(order), pool):
        chunk = order[start : start + pool]
        chunk = chunk[np.lexsort((source_lengths[chunk], target_lengths[chunk]))].tolist()
        batches += [chunk[i : i + batch_size] for i in range(0, len(chunk), batch_size)]
    return [batches[i] for i in torch.randperm(len(batches), generator=generator).tolist()]


def collate(data: Sequence[tuple[list[int], list[int]]], indices: Sequence[int]):
    """→ source B×S, lengths B, target_in B×T (BOS …), target_out B×T (… EOS), padded with PAD."""
    sources = [data[i][0] for i in indices]
    targets = [data[i][1] for i in indices]
    lengths = torch.tensor([len(s) for s in sources])
    source = torch.full((len(indices), int(lengths.max())), PAD_ID, dtype=torch.long)
    longest = max(len(t) for t in targets) + 1
    target_in = torch.full((len(indices), longest), PAD_ID, dtype=torch.long)
    target_out = torch.full((len(indices), longest), PAD_ID, dtype=torch.long)
    for row, (s, t) in enumerate(zip(sources, targets, strict=False)):
        source[row, : len(s)] = torch.tensor(s)
        target_in[row, : len(t) + 1] = torch.tensor([BOS_ID] + t)
        target_out[row, : len(t) + 1] = torch.tensor(t + [EOS_ID])
    return source, lengths, target_in, target_out


class _Run:
    """The mutable state of one training run (the generator in :func:`train` drives it)."""

    def __init__(self, job: TrainingJob, control: TrainControl) -> None:
        self.job, self.control, self.config = job, control, job.train_config
        self.dist = job.distributed
        self.device = self.dist.device(resolve_device(self.config.device))
        self.autocast = check_precision(self.config.precision, self.device)  # None: full fp32
        self.model = job.model.to(self.device)
        # Under torchrun the forward and backward passes go through DistributedDataParallel, which
        # starts every rank from rank 0's weights and all-reduces the gradients during backward.
        self.forward_model: torch.nn.Module = self.model
        if self.dist.active:
            from torch.nn.parallel import DistributedDataParallel

            self.forward_model = DistributedDataParallel(
                self.model, device_ids=[self.device.index] if self.device.type == "cuda" else None)
        self.scorer = job.model.decoder.scorer
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
        self.consecutive_bad = 0
        self.recent: deque[tuple[int, float]] = deque(maxlen=50)
        self.step_clock: float | None = None  # when the last step ended (None: after a validation or pause)
        self.started = time.monotonic()
        self.paused_seconds = 0.0
        self.elapsed_before = 0.0  # the clock of a resumed run's earlier calls
        self.shared_elapsed = 0.0  # under torchrun: the run's clock every rank agreed on at the last step
        self.first_step = 0  # the step this call started from (resumed runs start later)

    def prepare_epoch(self, epoch: int) -> None:
        """This epoch's examples: every single training pair, plus (with concatenation on, once
        ``concat_start`` of the training is done) joined pairs drawn afresh from (seed, epoch). The
        epoch joining starts at is kept in the progress, so a resumed run sees the same epochs again.
        With subword regularization on, every example is segmented afresh, sampled from (seed, epoch)."""
        config, job = self.config, self.job
        alpha = config.subword_alpha
        if alpha > 0:
            seed_segmentation_sampling(config.seed * 1000 + epoch)
            self.single_data = encode_pairs(job, job.split.train, alpha)
        start = self.progress.get("concat_from_epoch")
        if start is None and config.concat_share > 0 and self.training_fraction() >= config.concat_start:
            self.progress["concat_from_epoch"] = start = epoch
        joined = [] if start is None or epoch < start else joined_training_pairs(
            job.split.train, job.split.valid + job.split.test, config.concat_max_group, config.concat_share,
            config.seed * 1000 + epoch, job.source_language, job.target_language,
        )
        self.train_data = self.single_data + encode_pairs(job, joined, alpha) if joined else self.single_data

    # -- state -------------------------------------------------------------------------------
    def restore(self) -> None:
        # Rank 0 reads the checkpoint and hands it to the others: no shared file system is needed.
        checkpoint = broadcast(self.dist, load_checkpoint(self.job.run_folder) if self.dist.is_main else None)
        progress = restore_training_state(checkpoint, self.model, self.optimizer, self.scheduler, self.job.run_folder)
        # The clock goes on where it stopped, so the time budget, the budget schedule and the score
        # warm-up continue instead of starting over (older checkpoints lack it: they start over).
        self.elapsed_before = float(progress.pop("elapsed_seconds", 0.0))
        self.progress.update(progress)
        if self.job.request is not None:  # checked against the stored one (engine.jobs): it now replaces it
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

    def elapsed(self) -> float:
        """Training time so far (the time budget's clock); under torchrun, the one all ranks agreed on."""
        return self.shared_elapsed if self.dist.active else self.local_elapsed()

    def local_elapsed(self) -> float:
        return self.elapsed_before + time.monotonic() - self.started - self.paused_seconds

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

    # -- one batch ---------------------------------------------------------------------------
    def train_step(self, indices: Sequence[int]) -> float:
        """One optimizer step; returns the per-token loss (NaN when the step was skipped).

        Its time, counted in tokens/s, is wall-clock: from the end of the previous step (or this
        step's start, after a validation or a pause) to its own end — batching, the event the
        caller handles and the step itself."""
        began = time.perf_counter()
        since = self.step_clock if self.step_clock is not None else began
        local = self.dist.shard(indices) if self.dist.active else indices  # this rank's slice of the batch
        source, lengths, target_in, target_out = collate(self.train_data, local)
        # The loss is normalized by the whole batch's target tokens, so the all-reduced gradient is the
        # one a single process would compute on the whole batch.
        tokens = sum(len(self.train_data[i][1]) + 1 for i in indices) if self.dist.active else int(
            (target_out != PAD_ID).sum())
        if self.config.lr_schedule == "budget":
            for group in self.optimizer.param_groups:
                group["lr"] = self.config.budget_learning_rate(self.elapsed())
        if self.config.temperature_warmup > 0:
            self.scorer.set_training_temperature(
                self.config.score_temperature(self.training_fraction(), self.model.config.decoder_hidden_size))
        source, target_in, target_out = (t.to(self.device) for t in (source, target_in, target_out))
        with torch.autocast(self.device.type, dtype=self.autocast, enabled=self.autocast is not None):
            logits = self.forward_model(source, lengths, target_in)
            loss = compute_loss(logits.float(), target_out, self.config.label_smoothing) / tokens
        self.progress["step"] += 1
        value = float(loss.detach())
        if self.dist.active:
            # DDP averages gradients over the ranks; each rank's share of the batch loss is scaled
            # back up. The loss shown is the whole batch's, the same on every rank, so that a
            # non-finite loss anywhere skips the step everywhere (no rank left waiting in backward).
            value = agree_sum(self.dist, [value])[0]
            loss = loss * self.dist.world_size
        good = math.isfinite(value)
        if good:
            if self.scaler is not None:  # fp16: scaled gradients, unscaled before clipping
                self.scaler.scale(loss).backward()
                self.scaler.unscale_(self.optimizer)
            else:
                loss.backward()
            norm = torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.config.clip_norm or math.inf)
            good = bool(torch.isfinite(norm))
            if good and self.scaler is not None:
                self.scaler.step(self.optimizer)
            elif good:
                self.optimizer.step()
            if self.scaler is not None:
                self.scaler.update()
        self.optimizer.zero_grad(set_to_none=True)
        self.step_clock = time.perf_counter()
        seconds = self.step_clock - since
        self.progress["train_seconds"] += seconds
        self.progress["train_tokens"] += tokens
        self.recent.append((tokens, seconds))
        if good:
            self.consecutive_bad = 0
            return value
        self.progress["skipped"] += 1
        self.consecutive_bad += 1
        if self.consecutive_bad >= self.config.max_consecutive_bad_steps:
            raise DivergedError(
                f"training diverged: {self.consecutive_bad} non-finite losses or gradients in a row at step "
                f"{self.progress['step']}; the last good model is kept in {self.job.run_folder}"
            )
        return math.nan

    def step_event(self, batch: int, batches: int, loss: float) -> StepEvent:
        tokens = sum(t for t, _ in self.recent)
        seconds = sum(s for _, s in self.recent)
        elapsed = self.elapsed()
        steps_done_this_call = max(self.progress["step"] - self.first_step, 1)
        remaining_steps = (self.config.epochs - self.progress["epoch"] - 1) * batches + (batches - batch)
        eta = elapsed / steps_done_this_call * remaining_steps
        if self.config.max_minutes > 0:
            eta = min(eta, max(60 * self.config.max_minutes - elapsed, 0.0))
        return StepEvent(
            step=self.progress["step"], epoch=self.progress["epoch"] + 1, batch=batch, batches_per_epoch=batches,
            loss=loss, tokens_per_second=tokens / seconds if seconds > 0 else 0.0, learning_rate=self.learning_rate,
            skipped_steps=self.progress["skipped"], elapsed_seconds=elapsed, eta_seconds=eta,
        )

    # -- validation --------------------------------------------------------------------------
    @torch.no_grad()
    def valid_loss(self) -> float:
        self.model.eval()
        total, tokens = 0.0, 0
        for start in range(0, len(self.valid_data), 128):
            indices = range(start, min(start + 128, len(self.valid_data)))
            source, lengths, target_in, target_out = collate(self.valid_data, indices)
            source, target_in, target_out = (t.to(self.device) for t in (source, target_in, target_out))
            total += float(compute_loss(self.model(source, lengths, target_in).float(), target_out, 0.0))
            tokens += int((target_out != PAD_ID).sum())
        return total / max(tokens, 1)

    def validate(self) -> ValidationEvent:
        """Rank 0 validates; under torchrun the others wait for its event and progress record, so
        that every rank takes the same decisions (learning rate, early stopping) afterwards."""
        self.step_clock = None  # the validation's time is not training time
        event = self._validate_here() if self.dist.is_main else None
        if self.dist.active:
            event, progress = broadcast(self.dist, (event, self.progress) if self.dist.is_main else None)
            self.progress = progress
        return event  # type: ignore[return-value]

    def _validate_here(self) -> ValidationEvent:
        job = self.job
        # Judge (and save) the model with the formula it will be used with; the next step re-warms it.
        self.scorer.set_training_temperature(1.0)
        loss = self.valid_loss() if self.valid_data else math.nan
        translator = Translator(self.model, job.source_tokenizer, job.target_tokenizer, job.source_language)
        evaluation = evaluate(translator, job.split.valid, job.target_language)
        samples = []
        for source, reference in job.samples[: self.config.sample_count]:
            translation = translator.translate(source)
            samples.append(SampleTranslation(
                source=source, reference=reference, hypothesis=translation.text,
                source_tokens=translation.source_tokens, tokens=translation.tokens, attention=translation.attention,
            ))
        long_bleu = evaluate(translator, self.long_valid, job.target_language).scores.bleu if self.long_valid else None
        self.model.train()
        bleu = evaluation.scores.bleu
        # The selection score (ValidationEvent.score): the valid BLEU, or its mean with the long set's BLEU.
        score = bleu if long_bleu is None else (bleu + long_bleu) / 2
        improved = (score, -loss) > (self.progress["best_bleu"], -self.progress["best_valid_loss"])
        epoch = self.progress["epoch"] + 1
        metrics = {"epoch": epoch, "step": self.progress["step"], "valid_loss": round(loss, 4),
                   "bleu": round(bleu, 2), "chrf": round(evaluation.scores.chrf, 2),
                   "exact_match": round(evaluation.exact_match, 4), "learning_rate": self.learning_rate,
                   "target_tokens": self.progress["train_tokens"]}
        if long_bleu is not None:
            metrics.update(long_bleu=round(long_bleu, 2), score=round(score, 2))
        self.progress["history"].append(metrics)
        if self.config.keep_snapshots:
            save_snapshot(job.run_folder, self.progress["step"], self.model.state_dict(), self.config.keep_snapshots)
        if improved:
            self.progress.update(best_bleu=score, best_valid_loss=loss, best_epoch=epoch,
                                 epochs_without_improvement=0)
            self.save_best(metrics, evaluation.scores.signature)
        return ValidationEvent(
            step=self.progress["step"], epoch=epoch, valid_loss=loss, bleu=bleu, chrf=evaluation.scores.chrf,
            exact_match=evaluation.exact_match, samples=tuple(samples), is_best=improved,
            best_bleu=self.progress["best_bleu"], learning_rate=self.learning_rate, elapsed_seconds=self.elapsed(),
            long_bleu=long_bleu,
        )

    def save_best(self, metrics: dict[str, Any], signature: str) -> None:
        job = self.job
        metadata = dict(job.metadata)
        metadata.update(
            source_language=job.source_language,
            target_language=job.target_language,
            training=dict(metadata.get("training") or {}, train_config=job.train_config.to_dict(),
                          steps=self.progress["step"], train_seconds=round(self.progress["train_seconds"], 1),
                          history=self.progress["history"]),
            metrics=dict(metadata.get("metrics") or {}, valid=dict(metrics, signature=signature)),
        )
        save_model_folder(job.run_folder, self.model, job.source_tokenizer, job.target_tokenizer, metadata,
                          job.storage_dtype)

    def finished(self, reason: str) -> FinishedEvent:
        p = self.progress
        return FinishedEvent(
            reason=FinishReason(reason), best_bleu=max(p["best_bleu"], 0.0), best_epoch=p["best_epoch"],
            steps=p["step"], epochs_completed=p["epoch"], seconds=self.elapsed(),
            tokens_per_second=p["train_tokens"] / p["train_seconds"] if p["train_seconds"] else 0.0,
            skipped_steps=p["skipped"], model_folder=str(self.job.run_folder),
        )


def train(job: TrainingJob, control: TrainControl | None = None, resume: bool = False,
          tensorboard: bool = False, on_status: Callable[[str], None] | None = None) -> Iterator[TrainEvent]:
    """Run training, yielding events; the last one is always a :class:`FinishedEvent`. Every event
    is also appended to the run folder's metrics log (engine.metrics_log), so that any process can
    follow the run from its folder; a new run starts a new log, a resumed one goes on with it (its
    description replaced by the resume's own options, damaged lines dropped and told to
    ``on_status``). With ``tensorboard``, the events also go to TensorBoard event files
    (engine.tensorboard_log)."""
    if not job.distributed.is_main:  # under torchrun, rank 0 alone writes the run folder
        yield from _train_events(job, control, resume)
        return
    Path(job.run_folder).mkdir(parents=True, exist_ok=True)
    log = MetricsLog(job.run_folder)
    resumed_at = checkpoint_step(job.run_folder) if resume else None
    description = {"source_language": job.source_language, "target_language": job.target_language,
                   "model": job.model.config.to_dict(), "train_config": job.train_config.to_dict(),
                   "request": job.request, "data": (job.metadata.get("data") or {}), "task": job.metadata.get("task"),
                   "corpus_path": str(job.corpus_path) if job.corpus_path else None,
                   "command": job.metadata.get("command", "")}
    if resumed_at is None:
        log.clear()
        log.start(description)
    else:
        repaired = log.truncate_after(resumed_at, description)
        if repaired.skipped and on_status is not None:
            on_status(repaired.skipped_note(job.run_folder))
    board = None
    if tensorboard:
        from engine.tensorboard_log import TensorBoardLog

        board = TensorBoardLog(job.run_folder, purge_step=None if resumed_at is None else resumed_at + 1)
    try:
        for event in _train_events(job, control, resume):
            log.append(event)
            if board is not None:
                board.append(event)
            yield event
    finally:
        if board is not None:
            board.close()


def _train_events(job: TrainingJob, control: TrainControl | None, resume: bool) -> Iterator[TrainEvent]:
    control = control or TrainControl()
    config = job.train_config
    if config.torch_threads:
        torch.set_num_threads(config.torch_threads)
    torch.manual_seed(config.seed)
    job.model.train()
    run = _Run(job, control)
    if broadcast(run.dist, resume and has_checkpoint(job.run_folder)):
        run.restore()
    reason = FinishReason.COMPLETED
    while run.progress["epoch"] < config.epochs and reason == FinishReason.COMPLETED:
        run.prepare_epoch(run.progress["epoch"])
        batches = make_batches(run.train_data, config.batch_size, config.seed * 1000 + run.progress["epoch"])
        if run.dist.active:  # every rank needs at least one example of each batch
            batches = [batch for batch in batches if len(batch) >= run.dist.world_size]
        while run.progress["batch_in_epoch"] < len(batches):
            if control.paused:
                run.paused_seconds += control.wait_while_paused()
                run.step_clock = None  # a pause is not training time
            if run.agree_to_stop(control.stop_requested):
                reason = FinishReason.STOPPED
                break
            if run.over_budget():
                reason = FinishReason.TIME_BUDGET
                break
            if run.at_step_limit():
                reason = FinishReason.STEP_LIMIT
                break
            if run.at_token_budget():
                reason = FinishReason.TOKEN_BUDGET
                break
            loss = run.train_step(batches[run.progress["batch_in_epoch"]])
            run.progress["batch_in_epoch"] += 1
            yield run.step_event(run.progress["batch_in_epoch"], len(batches), loss)
            every = config.validate_every_steps
            if every and run.progress["step"] % every == 0 and run.progress["batch_in_epoch"] < len(batches):
                yield run.validate()
                run.checkpoint()
        if reason != FinishReason.COMPLETED:
            break
        if run.training_fraction() < config.validate_from and run.progress["epoch"] + 1 < config.epochs:
            # Too early to validate (a budgeted run's best model is its last): the time goes to training.
            run.progress["epoch"] += 1
            run.progress["batch_in_epoch"] = 0
            run.checkpoint()
            continue
        event = run.validate()
        run.progress["epoch"] += 1
        run.progress["batch_in_epoch"] = 0
        if config.lr_schedule == "plateau":
            run.scheduler.step(event.score)
        if not event.is_best:
            run.progress["epochs_without_improvement"] += 1
        run.checkpoint()
        yield event
        patience = config.early_stopping_patience
        if patience and run.progress["epochs_without_improvement"] >= patience:
            reason = FinishReason.EARLY_STOPPING
    run.checkpoint()  # first, so that a stop which must be quick never loses the run
    if reason in (FinishReason.TIME_BUDGET, FinishReason.STEP_LIMIT, FinishReason.TOKEN_BUDGET) or (
            run.progress["best_epoch"] == 0):
        # Learning since the last validation is not lost, and a run always ends with a model:
        # validate once more (keeps the better model).
        yield run.validate()
        run.checkpoint()
    yield run.finished(reason)
