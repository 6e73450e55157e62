"""The app and the command line resume each other's runs (engine.records.runs.RunFolder: one resume path).
Tiny dates-task runs, driven through the Train tab's controller with inline jobs (no thread)."""

from __future__ import annotations

import functools

import pytest

import engine.records.lifecycle
from engine.__main__ import main
from engine.corpus.tasks import dates
from engine.records.runs import RunFolder, RunPhase
from engine.settings.config import ModelShape, TrainConfig
from engine.training.checkpoint_state import checkpoint_progress
from engine.training.events import ValidationEvent
from gui.training.controller import TrainingController
from gui.training.settings import RunSettings
from tests.inline_jobs import InlineJobs

pytestmark = pytest.mark.slow
TINY = ["--task", "dates", "--scorer", "dot", "--epochs", "2", "--hidden-size", "16", "--embedding-size", "8",
        "--threads", "1"]


@pytest.fixture(autouse=True)
def small_dates(monkeypatch):
    monkeypatch.setattr(dates, "dates_split",
                        functools.partial(dates.dates_split, train_size=300, valid_size=20, test_size=20))


def test_a_command_line_run_is_offered_in_the_app_and_resumes_there(tmp_path, monkeypatch):
    controller = TrainingController(jobs=InlineJobs())
    folder = controller.models_folder() / "cli-run"
    real_train = engine.records.lifecycle.train

    def stopped_at_the_first_validation(job, control, **options):
        for event in real_train(job, control, **options):
            yield event
            if isinstance(event, ValidationEvent):
                control.request_stop()  # what Ctrl-C does (engine.training.interrupt)

    with monkeypatch.context() as patched:
        patched.setattr(engine.records.lifecycle, "train", stopped_at_the_first_validation)
        assert main(["train", *TINY, "--out", str(folder)]) == 130
    [offer] = controller.resumable()
    assert offer.folder == folder and offer.progress.epoch == 1 and "1/2 epochs" in offer.label
    controller.resume_run(offer)
    record = controller.records[-1]
    assert record.settings.model.scorer == "dot" and record.settings.model.decoder_hidden_size == 16
    controller.jobs.run_all()
    assert record.phase is RunPhase.FINISHED and record.status == "completed"
    assert checkpoint_progress(folder)["epoch"] == 2 and controller.resumable() == []


def test_a_run_started_in_the_app_resumes_from_the_command_line(tmp_path):
    controller = TrainingController(jobs=InlineJobs())
    controller.validated.connect(lambda record: controller.stop())  # Stop after the first validation
    settings = RunSettings(model=ModelShape(scorer="dot", embedding_size=8).with_hidden_size(16),
                           train=TrainConfig(epochs=2), name="app-run")
    controller.start([settings])
    controller.jobs.run_all()
    record = controller.records[-1]
    assert record.phase is RunPhase.STOPPED and record.status == "stopped"
    run = RunFolder(record.folder)
    assert run.command_arguments() is None and run.resumable() is not None  # the app records no command line
    assert main(["train", "--resume", "--threads", "1", "--out", str(record.folder)]) == 0
    assert checkpoint_progress(record.folder)["epoch"] == 2 and run.phase() is RunPhase.FINISHED
    assert run.request().model == settings.model
