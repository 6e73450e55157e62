"""A run's state, one owner (engine.records.runs.RunFolder): its request read back from the log's start line and
written as train flags, its progress, its phase, whether it can continue (and why not), the log
followed, the folder discarded; and a run started as the app starts one resumed from the command line."""

from __future__ import annotations

import functools
import os
import time
from dataclasses import fields, replace
from pathlib import Path

import pytest

import engine.training.jobs
from engine.__main__ import build_parser, main
from engine.cli.cli_train import _corpus_choice, _settings_from
from engine.corpus.choice import CorpusChoice, VocabularySizes
from engine.corpus.data import SPLIT_RULE_TEXT
from engine.corpus.tasks import dates
from engine.records.run_spec import RunSpec
from engine.records.runs import RunFolder, RunPhase, resumable_runs
from engine.settings.config import ModelShape, TrainConfig
from engine.training.checkpoint import save_checkpoint
from engine.training.checkpoint_state import checkpoint_progress
from engine.training.events import FinishReason, StepEvent, TrainControl, ValidationEvent
from engine.training.jobs import prepare_job
from engine.training.metrics_log import METRICS_FILE, MetricsLog
from engine.training.run_lock import claim_run_folder
from engine.training.trainer import train
from tests.engine.test_checkpoint_commit import _parts

APP_COMMAND = "Attention Studio, Train tab"  # what the app's runner records as a run's command


def _description(request: RunSpec, command: str = APP_COMMAND) -> dict:
    """A run's start line as engine.training.trainer writes it."""
    corpus = request.corpus
    data = ({"task": corpus.task} if corpus.task else
            {"corpus": corpus.corpus.name, "split_rule": SPLIT_RULE_TEXT[corpus.split_rule],
             **({"token_cache": "cache-1", "tokenizer_sample": corpus.tokenizer_sample} if corpus.token_cache else {})})
    return {"source_language": corpus.source_language, "target_language": corpus.target_language,
            "model": request.model.with_vocabularies(400, 300).to_dict(), "train_config": request.train.to_dict(),
            "request": None, "data": data, "task": corpus.task,
            "corpus_path": str(corpus.corpus) if corpus.corpus else None, "command": command}


def _run_folder(tmp_path: Path, name: str, request: RunSpec, epoch: int | None = None,
                command: str = APP_COMMAND) -> RunFolder:
    """A run folder with its start line and, with ``epoch``, a checkpoint at that epoch."""
    folder = tmp_path / name
    folder.mkdir(parents=True)
    MetricsLog(folder).start(_description(request, command))
    if epoch is not None:
        checkpoint = _parts(40)[3]
        save_checkpoint(folder, replace(checkpoint, progress={**checkpoint.progress, "epoch": epoch}))
    return RunFolder(folder)


PEER_CORPUS = RunSpec(CorpusChoice(corpus=Path("/data/big corpus.tsv"), source_language="en", target_language="zh",
                                   split_rule="peer", token_cache=True, tokenizer_sample=5000),
                      ModelShape(scorer="bilinear", cell="lstm", tie_embeddings=True).with_hidden_size(48),
                      TrainConfig(epochs=3, learning_rate=0.002, validate_every_steps=50, lr_schedule="budget",
                                  max_minutes=25.0, concat_share=0.0, long_validation=True, torch_threads=1))


def test_the_phases_say_the_words_the_app_shows():
    assert [phase.label for phase in (RunPhase.PREPARING, RunPhase.NOT_STARTED, RunPhase.WATCHING)] == [
        "preparing", "not started", "watching"]
    assert RunPhase.of_finish(FinishReason.TIME_BUDGET) is RunPhase.FINISHED
    assert RunPhase.of_finish(FinishReason.STOPPED) is RunPhase.STOPPED
    assert {phase for phase in RunPhase if phase.live} == {RunPhase.PREPARING, RunPhase.TRAINING, RunPhase.PAUSED,
                                                           RunPhase.STOPPING}


@pytest.mark.parametrize("request_", [RunSpec(), PEER_CORPUS,
                                      RunSpec(model=ModelShape(scorer="dot", attention_dropout=0.1).with_hidden_size(16),
                                              train=TrainConfig(epochs=2, max_steps=7, keep_snapshots=2))])
def test_a_request_comes_back_from_its_description_and_as_train_flags(request_):
    assert RunSpec.from_description(_description(request_)) == replace(request_, vocabularies=VocabularySizes())
    args = build_parser().parse_args(["train", *request_.train_arguments(), "--out", "x"])
    assert _corpus_choice(args) == request_.corpus
    assert _settings_from(ModelShape, args).with_hidden_size(args.hidden_size) == request_.model
    train_config = _settings_from(TrainConfig, args)
    assert train_config == replace(request_.train, torch_threads=0)  # the app's thread count is its own
    assert [f.name for f in fields(RunSpec)] == ["corpus", "model", "train", "vocabularies"]


def test_train_arguments_are_the_stored_command_or_else_the_request(tmp_path):
    command_line = _run_folder(tmp_path, "cli", RunSpec(), command="python -m engine train --task dates "
                               "--scorer dot --resume --out somewhere")
    assert command_line.train_arguments() == ["--task", "dates", "--scorer", "dot", "--out", "somewhere"]
    app = _run_folder(tmp_path, "app", RunSpec(model=ModelShape(scorer="dot")))
    assert app.command_arguments() is None
    assert app.train_arguments() == ["--task", "dates", "--scorer", "dot", "--out", str(app.path)]
    empty = RunFolder(tmp_path / "empty")
    assert empty.train_arguments() is None and empty.request() is None


def test_progress_phase_and_resumability_are_read_from_the_folder(tmp_path):
    nothing = RunFolder(tmp_path / "nothing")
    assert nothing.phase() is RunPhase.NOT_STARTED and nothing.progress().step == 0
    assert "no checkpoint" in nothing.why_not_resumable()
    run = _run_folder(tmp_path / "models", "run", RunSpec(train=TrainConfig(epochs=5)), epoch=2)
    progress = run.progress()
    assert (progress.epoch, progress.step) == (2, 40) and progress.saved_at > 0
    assert run.phase() is RunPhase.ENDED and run.why_not_resumable() == ""
    with claim_run_folder(run.path, resume=True):
        assert run.phase() is RunPhase.TRAINING and f"process {os.getpid()}" in run.why_not_resumable()
    assert run.holder() is None
    done = _run_folder(tmp_path / "models", "done", RunSpec(train=TrainConfig(epochs=2)), epoch=2)
    assert "has ended" in done.why_not_resumable()
    stranger = _run_folder(tmp_path / "models", "stranger", RunSpec(), epoch=1)
    (stranger.path / METRICS_FILE).write_text('{"kind": "start", "task": "dates", "train_config": {"epochs": 0}}\n')
    assert "cannot read" in stranger.why_not_resumable()
    newer = _run_folder(tmp_path / "models", "newer", RunSpec(train=TrainConfig(epochs=5)), epoch=1)
    stamp = time.time() + 60
    os.utime(newer.path / "checkpoint" / "state.json", (stamp, stamp))
    assert [offer.run.name for offer in resumable_runs(tmp_path / "models")] == ["newer", "run"]
    assert resumable_runs(tmp_path / "missing") == []
    MetricsLog(run.path).append(_finished(FinishReason.STOPPED))
    assert run.phase() is RunPhase.STOPPED


def _finished(reason: FinishReason):
    from engine.training.events import FinishedEvent

    return FinishedEvent(reason=reason, best_bleu=1.0, best_epoch=1, steps=3, epochs_completed=1, seconds=1.0,
                         tokens_per_second=1.0, skipped_steps=0, model_folder="")


def test_follow_reads_events_and_the_request_and_leaves_a_torn_line(tmp_path):
    run = _run_folder(tmp_path, "run", RunSpec(model=ModelShape(scorer="dot")))
    log = MetricsLog(run.path)
    for step in (1, 2):
        log.append(StepEvent(step=step, epoch=1, batch=step, batches_per_epoch=9, loss=1.0, tokens_per_second=1.0,
                             learning_rate=1e-3, skipped_steps=0, elapsed_seconds=1.0, eta_seconds=None))
    with (run.path / METRICS_FILE).open("a", encoding="utf-8") as handle:
        handle.write('{"kind": "step", "step": 3')  # a write in progress
    lines = run.follow()
    assert lines.described and lines.request.model.scorer == "dot" and lines.count == 3
    assert [event.step for event in lines.events] == [1, 2] and lines.damage.skipped == 0
    rest = run.follow(lines.offset)
    assert rest.count == 0 and not rest.described and rest.offset == lines.offset
    assert run.log_identity().size > lines.offset
    assert run.why_not_followable() == "" and "no metrics.jsonl" in RunFolder(tmp_path).why_not_followable()


def test_discard_removes_only_a_folder_that_holds_nothing_worth_keeping(tmp_path):
    empty = RunFolder(tmp_path / "failed-early")
    (empty.path / "checkpoint").mkdir(parents=True)
    assert empty.discard() and not empty.path.exists()
    kept = _run_folder(tmp_path, "kept", RunSpec(), epoch=1)
    assert not kept.discard() and kept.has_checkpoint()
    assert not RunFolder(tmp_path / "absent").discard()


# -- a run started as the app starts one, resumed by the command line ------------------------------

@pytest.fixture
def small_dates(monkeypatch):
    monkeypatch.setattr(engine.training.jobs.dates, "dates_split",
                        functools.partial(dates.dates_split, train_size=300, valid_size=20, test_size=20))


@pytest.mark.slow
def test_a_run_started_as_the_app_starts_one_resumes_from_the_command_line(tmp_path, small_dates):
    """The app records no command line, only what the run asked for: ``train --resume --out`` needs no more."""
    folder = tmp_path / "app-run"
    request = RunSpec(model=ModelShape(scorer="dot", embedding_size=8).with_hidden_size(16),
                      train=TrainConfig(epochs=2, torch_threads=1))
    job, _ = prepare_job(request.corpus, folder, request.model, request.train, command=APP_COMMAND)
    control = TrainControl()
    for event in train(job, control):
        if isinstance(event, ValidationEvent):
            control.request_stop()  # as the app's Stop does: a checkpoint at the next batch
    stopped = RunFolder(folder).resumable()
    assert stopped is not None and stopped.progress.epoch == 1 and stopped.request.model.scorer == "dot"
    assert main(["train", "--resume", "--threads", "1", "--out", str(folder)]) == 0
    assert checkpoint_progress(folder)["epoch"] == 2
    assert RunFolder(folder).phase() is RunPhase.FINISHED and RunFolder(folder).resumable() is None
    resumed = RunFolder(folder).request()
    assert resumed.model == request.model and resumed.train.epochs == 2
