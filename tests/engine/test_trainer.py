"""The trainer: learning, stop, resume, non-finite steps, time budget."""

import dataclasses
import math

import pytest
import torch

import engine.training.train_step as train_step_module
from engine.models.bundle import load_model_folder
from engine.networks.model import build_model
from engine.settings.config import TrainConfig
from engine.settings.errors import ConfigError, DivergedError
from engine.training.events import FinishedEvent, StepEvent, TrainControl, ValidationEvent
from engine.training.metrics_log import events_from_records, read_log
from engine.training.trainer import train
from tests.model_factory import tiny_job

pytestmark = pytest.mark.slow  # trains a model, opens the real window, runs a subprocess or fuzzes many cases


def test_the_dates_task_learns_loss_falls_and_exact_match_rises(tmp_path):
    events = list(train(tiny_job(tmp_path / "run", epochs=4)))
    losses = [e.loss for e in events if isinstance(e, StepEvent)]
    validations = [e for e in events if isinstance(e, ValidationEvent)]
    assert sum(losses[-10:]) / 10 < 0.5 * sum(losses[:10]) / 10
    assert validations[-1].exact_match > validations[0].exact_match
    assert validations[-1].exact_match >= 0.2
    assert validations[-1].samples and validations[-1].samples[0].attention is not None
    finished = events[-1]
    assert isinstance(finished, FinishedEvent) and finished.reason == "completed"
    assert load_model_folder(tmp_path / "run").info["metrics"]["valid"]["bleu"] == pytest.approx(
        finished.best_bleu, abs=0.01)


def test_a_stop_request_is_honoured_before_the_next_batch_and_keeps_a_model(tmp_path):
    control = TrainControl()
    steps = []
    for event in train(tiny_job(tmp_path / "run", epochs=3), control):
        if isinstance(event, StepEvent):
            steps.append(event.step)
            if event.step == 5:
                control.request_stop()
        if isinstance(event, FinishedEvent):
            finished = event
    assert steps == [1, 2, 3, 4, 5]
    assert finished.reason == "stopped" and finished.steps == 5
    assert load_model_folder(tmp_path / "run").translator.translate("1 May 2000").tokens


def _final_weights(job, control=None, resume=False, stop_at=None):
    control = control or TrainControl()
    for event in train(job, control, resume=resume):
        if isinstance(event, StepEvent) and event.step == stop_at:
            control.request_stop()
    return {k: v.clone() for k, v in job.model.state_dict().items()}


def test_resume_continues_the_same_run(tmp_path):
    straight = tiny_job(tmp_path / "straight", epochs=2, train_size=640)
    expected = _final_weights(straight)
    interrupted = tiny_job(tmp_path / "resumed", epochs=2, train_size=640)
    _final_weights(interrupted, stop_at=13)  # mid second epoch (10 batches per epoch)
    fresh_model = build_model(interrupted.model.config, seed=99)  # different weights until restored
    resumed = dataclasses.replace(interrupted, model=fresh_model)
    actual = _final_weights(resumed, resume=True)
    for name, tensor in expected.items():
        assert torch.allclose(actual[name], tensor, atol=1e-5), name


def test_a_non_finite_step_is_skipped_and_counted(tmp_path, monkeypatch):
    original = train_step_module.compute_loss
    calls = {"n": 0}

    def loss_with_one_nan(logits, target, smoothing):
        if torch.is_grad_enabled():
            calls["n"] += 1
            if calls["n"] == 3:
                return original(logits, target, smoothing) * math.nan
        return original(logits, target, smoothing)

    monkeypatch.setattr(train_step_module, "compute_loss", loss_with_one_nan)
    job = tiny_job(tmp_path / "run", epochs=1, train_size=640)
    events = [e for e in train(job) if isinstance(e, StepEvent)]
    assert math.isnan(events[2].loss) and events[2].skipped_steps == 1
    assert not math.isnan(events[3].loss) and events[-1].skipped_steps == 1
    assert all(torch.isfinite(p).all() for p in job.model.parameters())


def test_repeated_non_finite_steps_raise_diverged_and_keep_the_last_good_model(tmp_path, monkeypatch):
    original = train_step_module.compute_loss
    calls = {"n": 0}

    def diverging(logits, target, smoothing):
        if torch.is_grad_enabled():
            calls["n"] += 1
            if calls["n"] > 12:  # after the first epoch (10 batches) was validated and saved
                return original(logits, target, smoothing) * math.inf
        return original(logits, target, smoothing)

    monkeypatch.setattr(train_step_module, "compute_loss", diverging)
    job = tiny_job(tmp_path / "run", epochs=3, train_size=640)
    saved_before = None
    with pytest.raises(DivergedError, match="5 non-finite"):
        for event in train(job):
            if isinstance(event, ValidationEvent):
                saved_before = (tmp_path / "run" / "model.safetensors").read_bytes()
    assert saved_before == (tmp_path / "run" / "model.safetensors").read_bytes()
    assert load_model_folder(tmp_path / "run").translator.translate("1 May 2000").tokens


def test_the_time_budget_ends_training_cleanly_with_a_model(tmp_path):
    job = tiny_job(tmp_path / "run", epochs=50, max_minutes=0.02)
    events = list(train(job))
    assert events[-1].reason == "time budget"
    assert isinstance(events[-2], ValidationEvent)
    load_model_folder(tmp_path / "run")


def test_pause_blocks_until_resumed(tmp_path):
    import threading

    control = TrainControl()
    generator = train(tiny_job(tmp_path / "run", epochs=1, train_size=640), control)
    next(generator)
    control.pause()
    threading.Timer(0.3, control.resume).start()
    event = next(generator)
    assert isinstance(event, StepEvent) and event.step == 2
    assert control.paused is False
    generator.close()


def test_same_seed_same_run(tmp_path):
    first = _final_weights(tiny_job(tmp_path / "a", epochs=1, train_size=640))
    second = _final_weights(tiny_job(tmp_path / "b", epochs=1, train_size=640))
    for name, tensor in first.items():
        assert torch.equal(second[name], tensor), name


def test_the_budget_schedule_holds_then_decays_linearly_to_the_minimum():
    config = TrainConfig(max_minutes=10, learning_rate=2e-3, min_learning_rate=1e-5, lr_schedule="budget",
                         lr_decay_start=0.5)
    assert config.budget_learning_rate(0) == config.budget_learning_rate(300) == 2e-3
    assert config.budget_learning_rate(450) == pytest.approx(1e-5 + (2e-3 - 1e-5) / 2)
    assert config.budget_learning_rate(600) == config.budget_learning_rate(900) == pytest.approx(1e-5)
    with pytest.raises(ConfigError, match="max_minutes"):
        TrainConfig(lr_schedule="budget")
    with pytest.raises(ConfigError, match="plateau, budget"):
        TrainConfig(lr_schedule="cosine", max_minutes=1)


def test_training_on_the_budget_schedule_lowers_the_rate_as_time_passes(tmp_path):
    job = tiny_job(tmp_path / "run", epochs=50, max_minutes=0.05, lr_schedule="budget", lr_decay_start=0.0)
    events = list(train(job))
    rates = [e.learning_rate for e in events if isinstance(e, StepEvent)]
    assert events[-1].reason == "time budget"
    assert rates == sorted(rates, reverse=True) and rates[-1] < 0.5 * job.train_config.learning_rate
    load_model_folder(tmp_path / "run")


def test_a_model_with_tied_embeddings_trains_and_reloads_still_tied(tmp_path):
    job = tiny_job(tmp_path / "run", epochs=1, train_size=640, tie_embeddings=True)
    decoder = job.model.decoder
    assert decoder.output.weight is decoder.embedding.weight
    events = list(train(job))
    assert isinstance(events[-1], FinishedEvent)
    loaded = load_model_folder(tmp_path / "run")
    reloaded = loaded.translator.model.decoder
    assert reloaded.output.weight is reloaded.embedding.weight
    assert torch.equal(reloaded.output.weight, decoder.output.weight)
    assert loaded.model_config.tie_embeddings


def test_the_score_temperature_starts_at_root_d_and_warms_up_to_one():
    config = TrainConfig(temperature_warmup=0.4)
    assert config.score_temperature(0.0, 256) == pytest.approx(16.0)
    assert config.score_temperature(0.2, 256) == pytest.approx(4.0)  # geometric: halfway in log
    assert config.score_temperature(0.4, 256) == config.score_temperature(0.9, 256) == 1.0
    assert TrainConfig().score_temperature(0.0, 256) == 1.0  # off by default
    with pytest.raises(ConfigError, match="temperature_warmup"):
        TrainConfig(temperature_warmup=1.5)


def test_training_warms_up_a_dot_scorer_and_validates_and_saves_it_at_temperature_one(tmp_path):
    job = tiny_job(tmp_path / "run", scorer="dot", epochs=2, train_size=1280, temperature_warmup=0.5)
    scorer = job.model.decoder.scorer
    kinds = []
    for event in train(job):
        kinds.append((type(event).__name__, scorer.temperature))
    steps = [t for name, t in kinds if name == "StepEvent"]
    assert steps[0] == pytest.approx(8.0)  # √64, the hidden size of the tiny model
    assert steps == sorted(steps, reverse=True) and steps[-1] == 1.0
    assert all(t == 1.0 for name, t in kinds if name == "ValidationEvent")
    assert 1.0 < steps[len(steps) // 4] < 8.0
    reloaded = load_model_folder(tmp_path / "run")
    assert reloaded.translator.model.decoder.scorer.temperature == 1.0
    assert reloaded.info["training"]["train_config"]["temperature_warmup"] == 0.5


def test_a_resumed_run_keeps_its_clock_so_budget_and_warm_up_go_on(tmp_path):
    job = tiny_job(tmp_path / "run", scorer="dot", epochs=50, max_minutes=0.2, temperature_warmup=1.0,
                   lr_schedule="budget", lr_decay_start=0.0)
    scorer = job.model.decoder.scorer
    control = TrainControl()
    before = []
    for event in train(job, control):
        if isinstance(event, StepEvent):
            before.append((event.elapsed_seconds, scorer.temperature, event.learning_rate))
            if len(before) == 15:
                control.request_stop()
    resumed_job = dataclasses.replace(job, model=build_model(job.model.config, seed=99))
    resumed_scorer = resumed_job.model.decoder.scorer
    first = next(e for e in train(resumed_job, resume=True) if isinstance(e, StepEvent))
    elapsed, temperature, rate = before[-1]
    assert first.elapsed_seconds >= elapsed > 0
    assert resumed_scorer.temperature <= temperature < 8.0  # not back to √64
    assert first.learning_rate <= rate < job.train_config.learning_rate


def test_batches_group_similar_target_lengths_so_the_decoder_pads_little():
    import random

    from engine.training.batches import make_batches

    rng = random.Random(3)
    data = []
    for _ in range(4000):
        target = rng.randint(2, 60)
        source = max(1, target + rng.randint(-20, 20))  # source length only loosely tied to the target's
        data.append(([5] * source, [7] * target))
    batches = make_batches(data, 64, seed=1)
    assert sorted(i for batch in batches for i in batch) == list(range(len(data)))  # every pair once
    assert batches == make_batches(data, 64, seed=1)
    real = sum(len(data[i][1]) for batch in batches for i in batch)
    padded = sum(len(batch) * max(len(data[i][1]) for i in batch) for batch in batches)
    assert padded / real < 1.1


def test_validations_before_validate_from_are_skipped_and_the_run_still_ends_with_a_model(tmp_path):
    events = list(train(tiny_job(tmp_path / "late", epochs=4, train_size=600, validate_from=0.5)))
    assert [e.epoch for e in events if isinstance(e, ValidationEvent)] == [2, 3, 4]
    early = list(train(tiny_job(tmp_path / "never", epochs=2, train_size=600, validate_from=0.95)))
    assert [e.epoch for e in early if isinstance(e, ValidationEvent)] == [2]  # the last epoch always validates
    assert load_model_folder(tmp_path / "never").info["metrics"]["valid"]["bleu"] >= 0


def test_the_eta_counts_down_to_the_first_budget_at_this_calls_pace(tmp_path):
    """A token budget far shorter than the epochs: the estimate follows the budget (it used to count every
    epoch left), before and after a resume."""
    run = tmp_path / "run"
    steps = [e for e in train(tiny_job(run, epochs=1000, train_size=600, max_target_tokens=6_000))
             if isinstance(e, StepEvent)]
    by_epochs = steps[0].elapsed_seconds * 1000 * steps[0].batches_per_epoch
    assert 0 < steps[0].eta_seconds < by_epochs / 100
    assert steps[-1].eta_seconds <= steps[0].eta_seconds
    total = steps[-1].elapsed_seconds
    again = [e for e in train(tiny_job(run, epochs=1000, train_size=600, max_target_tokens=12_000), resume=True)
             if isinstance(e, StepEvent)]
    assert again[0].elapsed_seconds > total  # the clock goes on where it stopped
    assert again[0].eta_seconds < 20 * (total / len(steps)) * len(again)  # the budget left, not every epoch's
    tokens = [e.target_tokens for e in steps + again]  # trained on so far, across the resume
    assert tokens == sorted(tokens) and tokens[0] > 0 and steps[-1].target_tokens >= 6_000
    assert again[0].target_tokens > steps[-1].target_tokens
    logged = [e for e in events_from_records(read_log(run).records) if isinstance(e, StepEvent)]
    assert [e.target_tokens for e in logged] == tokens  # and so does the log, for a run watched in the app
