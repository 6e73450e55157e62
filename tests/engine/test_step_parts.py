"""The training step and the validation as functions of explicit inputs (engine.training.train_step,
engine.training.validation): each is called here with parts built by hand — no TrainingRun — and what
it returns or counts is checked; and a run's control is any RunControl, not only TrainControl."""

from __future__ import annotations

import math
from pathlib import Path
from unittest.mock import MagicMock

import pytest
import torch

from engine.networks.model import build_model
from engine.settings.config import ModelConfig, TrainConfig
from engine.settings.errors import DivergedError
from engine.training.batches import encode_pairs
from engine.training.best_model import BestModelFolder
from engine.training.distributed import SINGLE
from engine.training.events import FinishedEvent, StepEvent, TrainControl
from engine.training.train_step import StepCounters, StepOutcome, StepParts, count_step, train_step
from engine.training.trainer import train
from engine.training.validation import ValidationParts, validate

# Three pairs of ids (ids from 4 on: 0-3 are PAD, UNK, BOS, EOS); targets of 2, 3 and 1 tokens.
_DATA = [([5, 6, 7], [8, 9]), ([10, 11], [12, 13, 14]), ([15], [16])]


class _Clock:
    """A run's clock that counts how often each reading was asked for."""

    def __init__(self, elapsed: float = 30.0, fraction: float = 0.25) -> None:
        self.readings: list[str] = []
        self._elapsed, self._fraction = elapsed, fraction

    def elapsed(self) -> float:
        self.readings.append("elapsed")
        return self._elapsed

    def training_fraction(self) -> float:
        self.readings.append("fraction")
        return self._fraction


def _parts(scorer: str = "additive", **train_options) -> StepParts:
    config = ModelConfig(src_vocab_size=20, tgt_vocab_size=20, scorer=scorer, embedding_size=8,
                         encoder_hidden_size=8, decoder_hidden_size=8, attention_size=8, dropout=0.0)
    model = build_model(config, seed=3)
    model.train()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    return StepParts(model, model, optimizer, None, torch.device("cpu"), None, SINGLE,
                     TrainConfig(label_smoothing=0.0, **train_options))


def test_a_step_is_a_function_of_its_parts_the_batch_and_the_step_it_is():
    parts = _parts()
    before = [p.detach().clone() for p in parts.model.parameters()]
    outcome = train_step(parts, _DATA, [0, 1, 2], 0, _Clock(), since=None)
    assert outcome.good and math.isfinite(outcome.value) and outcome.value > 0
    assert outcome.tokens == 2 + 3 + 1 + 3  # each target with its EOS
    assert outcome.seconds >= 0 and outcome.ended > 0
    assert any(not torch.equal(a, b) for a, b in zip(before, parts.model.parameters(), strict=True))
    assert all(p.grad is None for p in parts.model.parameters())  # zero_grad(set_to_none=True)


def test_a_schedule_reads_the_clock_only_when_it_follows_it():
    quiet = _Clock()
    train_step(_parts(), _DATA, [0, 1], 0, quiet, since=None)
    assert quiet.readings == []  # the plateau schedule, no warm-ups: the clock is not read
    warming = _parts(warmup_steps=10, learning_rate=1e-3)
    train_step(warming, _DATA, [0, 1], 4, _Clock(), since=None)
    assert warming.optimizer.param_groups[0]["lr"] == pytest.approx(1e-3 * 5 / 10)
    budget = _parts(lr_schedule="budget", max_minutes=1.0)
    clock = _Clock(elapsed=30.0)
    train_step(budget, _DATA, [0, 1], 0, clock, since=None)
    assert clock.readings == ["elapsed"]
    assert budget.optimizer.param_groups[0]["lr"] == budget.config.budget_learning_rate(30.0)
    tempered = _parts(scorer="dot", temperature_warmup=0.5)
    clock = _Clock(fraction=0.25)
    train_step(tempered, _DATA, [0, 1], 0, clock, since=None)
    assert clock.readings == ["fraction"]


def test_counting_a_step_adds_it_to_the_progress_and_too_many_skipped_in_a_row_raise(tmp_path):
    progress = {"step": 0, "skipped": 0, "train_seconds": 0.0, "train_tokens": 0}
    counters = StepCounters()
    good = StepOutcome(value=2.5, good=True, tokens=9, seconds=0.5, ended=123.0)
    assert count_step(good, progress, counters, 2, tmp_path) == 2.5
    assert progress == {"step": 1, "skipped": 0, "train_seconds": 0.5, "train_tokens": 9}
    assert counters.clock == 123.0 and list(counters.recent) == [(9, 0.5)]
    bad = StepOutcome(value=math.inf, good=False, tokens=9, seconds=0.5, ended=124.0)
    assert math.isnan(count_step(bad, progress, counters, 2, tmp_path))
    assert progress["skipped"] == 1 and counters.consecutive_bad == 1
    count_step(good, progress, counters, 2, tmp_path)
    assert counters.consecutive_bad == 0  # a good step ends the row
    count_step(bad, progress, counters, 2, tmp_path)
    with pytest.raises(DivergedError, match=r"2 non-finite losses or gradients in a row at step 5"):
        count_step(bad, progress, counters, 2, tmp_path)
    assert progress["step"] == 5 and progress["skipped"] == 3


def _validation_parts(folder: Path, best_model) -> ValidationParts:
    from tests.engine.test_training_golden import golden_job

    job = golden_job(folder, "dot")  # a tiny untrained model and the dates task's tokenizers
    job.model.train()
    valid = job.split.valid[:2]
    return ValidationParts(job.model, torch.device("cpu"), SINGLE, job.source_tokenizer, job.target_tokenizer,
                           job.source_language, job.target_language, valid, encode_pairs(job, valid), (),
                           job.samples[:1], 0, best_model)


def test_a_validation_is_a_function_of_its_parts_and_the_progress_record_it_updates(tmp_path):
    best_model = MagicMock(spec=BestModelFolder)
    progress = {"step": 7, "epoch": 0, "best_bleu": -1.0, "best_valid_loss": math.inf, "best_epoch": 0,
                "epochs_without_improvement": 3, "train_tokens": 40, "history": []}
    event, after = validate(_validation_parts(tmp_path / "a", best_model), progress, 0.002, _Clock(elapsed=12.0))
    assert after is progress  # one process: the same record, updated
    assert event.step == 7 and event.epoch == 1 and event.is_best and event.learning_rate == 0.002
    assert event.elapsed_seconds == 12.0 and math.isfinite(event.valid_loss) and len(event.samples) == 1
    assert progress["best_epoch"] == 1 and progress["epochs_without_improvement"] == 0
    assert progress["history"] == [dict(epoch=1, step=7, valid_loss=round(event.valid_loss, 4),
                                        bleu=round(event.bleu, 2), chrf=round(event.chrf, 2),
                                        exact_match=round(event.exact_match, 4), learning_rate=0.002,
                                        target_tokens=40)]
    best_model.save.assert_called_once()
    assert best_model.save.call_args.args[1] is progress
    again, _ = validate(_validation_parts(tmp_path / "b", best_model), progress, 0.002, _Clock())
    assert not again.is_best and best_model.save.call_count == 1  # the same model is no better


class _StopAfter:
    """A run control of its own (not TrainControl): never paused, it asks to stop at its n-th reading."""

    def __init__(self, readings: int) -> None:
        self.left = readings

    @property
    def stop_requested(self) -> bool:
        self.left -= 1
        return self.left < 0

    @property
    def paused(self) -> bool:
        return False

    def wait_while_paused(self) -> float:
        raise AssertionError("never paused")


def test_a_run_takes_any_run_control(tmp_path):
    from tests.engine.test_training_golden import golden_job

    events = list(train(golden_job(tmp_path / "run", "dot"), _StopAfter(3)))
    assert [e.step for e in events if isinstance(e, StepEvent)] == [1, 2, 3]
    assert isinstance(events[-1], FinishedEvent) and events[-1].reason == "stopped"
    assert (Path(tmp_path) / "run" / "config.json").is_file()  # a stopped run without a model validates once


def test_a_held_pause_is_told_to_each_listener_once_per_hold():
    control = TrainControl()
    heard = []
    control.listen_held(lambda: heard.append("held"))
    assert control.wait_while_paused() < 1.0 and heard == []  # not paused: nothing to tell
    control.pause()
    control.request_stop()  # wakes the waiter at once (and lets it go on)
    control.wait_while_paused()
    assert heard == [] and control.stop_requested  # a stop also ends the pause: no hold took place
    paused = TrainControl()
    paused.listen_held(lambda: heard.append("held"))
    paused.listen_held(paused.resume)  # the second listener lets it go again at once
    paused.pause()
    paused.wait_while_paused()
    assert heard == ["held"] and not paused.paused
