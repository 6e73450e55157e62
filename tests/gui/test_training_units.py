"""The Training view's plain parts: settings, run folders, smoothing, CSV, the run generator."""

from __future__ import annotations

import csv
import datetime
import json
import math
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from engine.corpus.choice import CorpusChoice
from engine.records.run_spec import RunSpec
from engine.records.runs import resumable_runs
from engine.settings.config import ModelShape, TrainConfig
from engine.settings.errors import ConfigError
from engine.training.checkpoint import save_checkpoint
from engine.training.events import StepEvent, TrainControl, ValidationEvent
from engine.training.metrics_log import MetricsLog
from gui.training.corpus import CorpusEntry, inspect_corpus
from gui.training.ranges import curves_x_bounds, nice_bounds, nice_ceil
from gui.training.records import RunRecord, smooth, write_metrics_csv
from gui.training.runner import RunFailed, RunRequest, StatusMessage, run_training, training_threads
from gui.training.settings import RunSettings
from tests.engine.test_checkpoint_commit import _parts


def _step(step: int, loss: float) -> StepEvent:
    return StepEvent(step=step, epoch=1, batch=step, batches_per_epoch=100, loss=loss, tokens_per_second=1000.0,
                     learning_rate=1e-3, skipped_steps=0, elapsed_seconds=step * 0.1, eta_seconds=10.0)


def test_training_threads_leave_a_core_for_the_window():
    assert training_threads(1) == 1
    assert training_threads(2) == 1
    assert training_threads(8) == 4


def test_run_names_are_made_from_corpus_scorer_and_time_and_never_reuse_a_folder(tmp_path):
    now = datetime.datetime(2026, 11, 29, 18, 30)
    settings = RunSettings(model=ModelShape(scorer="scaled_dot"))
    assert settings.default_name(now) == "dates-scaled-dot-20261129-1830"
    (tmp_path / "dates-scaled-dot-20261129-1830").mkdir()
    assert settings.with_unique_name(tmp_path, now).name == "dates-scaled-dot-20261129-1830-2"
    corpus = RunSettings(CorpusChoice(corpus=Path("x.tsv"), source_language="en", target_language="zh"), name="../my run")
    assert corpus.with_unique_name(tmp_path, now).name == "-my run"
    assert corpus.direction_label == "English → Chinese"


def _description(settings: RunSettings) -> dict:
    """What the engine's metrics log records of a run started with ``settings`` (engine.training.trainer)."""
    corpus = settings.corpus
    return {"source_language": corpus.source_language, "target_language": corpus.target_language,
            "model": settings.model.with_vocabularies(400, 300).to_dict(), "train_config": settings.train.to_dict(),
            "task": corpus.task, "data": {"corpus": corpus.corpus.name if corpus.corpus else None},
            "corpus_path": str(corpus.corpus) if corpus.corpus else None}


@pytest.mark.parametrize("settings", [
    RunSettings(model=ModelShape(scorer="dot", cell="lstm").with_hidden_size(48),
                train=TrainConfig(epochs=3, validate_every_steps=50), name="a"),
    RunSettings(CorpusChoice(corpus=Path("/data/my corpus.tsv"), source_language="en", target_language="zh"),
                model=ModelShape(scorer="bilinear", tie_embeddings=True, attention_dropout=0.1),
                train=TrainConfig(concat_max_group=8, concat_share=0.2, concat_start=0.5, max_minutes=25,
                                  lr_schedule="budget", early_stopping_patience=0, subword_alpha=0.2), name="b"),
])
def test_the_engines_record_of_a_run_gives_back_its_settings(settings):
    assert RunSettings.of_request(RunSpec.from_description(_description(settings)), settings.name) == settings


def test_a_description_no_run_wrote_is_refused_with_the_engines_reason():
    with pytest.raises(ConfigError, match="epochs"):
        RunSpec.from_description({"task": "dates", "train_config": {"epochs": 0}})
    odd = RunSettings.of_request(RunSpec.from_description({"task": "dates", "model": {"scorer": "dot",
                                                                                      "future_field": 1}}), "y")
    assert odd.model.scorer == "dot" and odd.train == TrainConfig() and odd.name == "y"


def test_smoothing_keeps_nan_as_gaps_and_continues_incrementally():
    values = np.array([4.0, 2.0, math.nan, 1.0])
    whole, _ = smooth(values, 0.5)
    first, state = smooth(values[:2], 0.5)
    rest, _ = smooth(values[2:], 0.5, state)
    assert math.isnan(whole[2])
    assert whole[0] == pytest.approx(4.0)  # debiased: the first value is itself
    np.testing.assert_allclose(np.concatenate([first, rest]), whole)


def test_record_grows_and_writes_csv(tmp_path):
    record = RunRecord("run-a", RunSettings(), tmp_path, "#1f77b4")
    for start in range(0, 3000, 500):
        record.add_steps([_step(s + 1, 1.0 / (s + 1)) for s in range(start, start + 500)])
    record.add_steps([_step(3001, math.nan)])
    assert record.step_count == 3001
    assert math.isnan(record.series("smoothed_loss")[-1])
    path = tmp_path / "metrics.csv"
    write_metrics_csv(path, [record])
    rows = list(csv.DictReader(path.read_text(encoding="utf-8").splitlines()))
    assert len(rows) == 3001
    assert rows[0]["run"] == "run-a" and rows[0]["kind"] == "train" and rows[-1]["train_loss"] == ""


def test_inspection_reports_bad_lines_swapped_columns_and_binary_files(tmp_path):
    good = "".join(f"Sentence number {i}.\t第{i}个句子。\tCC-BY 2.0\n" for i in range(80))
    mixed = tmp_path / "mixed.tsv"
    mixed.write_text("Hello.\t你好。\nno tab here\n\t空的\n" + good, encoding="utf-8")
    final = list(inspect_corpus(CorpusEntry.file(mixed)))[-1]
    assert final.done and final.usable
    assert any("line 2: no tab separator" in line for line in final.summary_lines())
    assert any("line 3: empty English side" in line for line in final.summary_lines())

    swapped = tmp_path / "swapped.tsv"
    swapped.write_text("".join(f"第{i}个句子。\tSentence number {i}.\n" for i in range(80)), encoding="utf-8")
    problem = list(inspect_corpus(CorpusEntry.file(swapped)))[-1].problem
    assert problem is not None and "swapped" in problem

    binary = tmp_path / "binary.tsv"
    binary.write_bytes(b"\x00\x01\x02" * 100)
    problem = list(inspect_corpus(CorpusEntry.file(binary)))[-1].problem
    assert problem is not None and "does not look like a text corpus" in problem

    tiny = tmp_path / "tiny.tsv"
    tiny.write_text("Hello.\t你好。\n", encoding="utf-8")
    problem = list(inspect_corpus(CorpusEntry.file(tiny)))[-1].problem
    assert problem is not None and "too little data" in problem


def test_a_bad_corpus_fails_before_training_and_leaves_no_folder(tmp_path):
    binary = tmp_path / "binary.tsv"
    binary.write_bytes(b"\x00" * 64)
    settings = RunSettings(CorpusChoice(corpus=binary, source_language="zh", target_language="en"))
    folder = tmp_path / "models" / "run"
    items = list(run_training(RunRequest(settings, folder), TrainControl()))
    assert isinstance(items[0], StatusMessage)
    assert isinstance(items[-1], RunFailed) and items[-1].kind == "data" and str(binary) in items[-1].message
    assert not folder.exists()


def test_only_interrupted_runs_are_offered_for_resuming(tmp_path):
    assert resumable_runs(tmp_path / "missing") == []
    run = tmp_path / "run"
    (run / "checkpoint").mkdir(parents=True)
    MetricsLog(run).start(_description(RunSettings(train=TrainConfig(epochs=5))))
    checkpoint = _parts(40)[3]
    save_checkpoint(run, replace(checkpoint, progress={**checkpoint.progress, "epoch": 2}))
    [found] = resumable_runs(tmp_path)
    assert (found.progress.epoch, found.progress.step) == (2, 40) and "2/5 epochs" in found.label
    digest = "0" * 64  # a model config as the engine writes it (only config.json is read here)
    config = {"format": "attention-studio-model", "format_version": 1, "source_language": "en",
              "target_language": "iso", "model": {"src_vocab_size": 400, "tgt_vocab_size": 300},
              "weights": {"sha256": digest}, "tokenizers": {"source": {"sha256": digest}, "target": {"sha256": digest}},
              "training": {"finished": {"reason": "early stopping"}}}
    (run / "config.json").write_text(json.dumps(config))
    assert resumable_runs(tmp_path) == []


def test_plot_ranges_round_to_nice_numbers_and_skip_nan():
    assert [nice_ceil(v) for v in (0.0, 7, 10, 11, 990, 1001)] == [1.0, 8.0, 10.0, 12.0, 1000.0, 1200.0]
    assert nice_bounds([np.array([math.nan, 0.93, 5.8])]) == (0.0, 6.0)
    assert nice_bounds([np.array([3.0, 7.5])], floor_zero=True) == (0.0, 8.0)
    assert nice_bounds([np.array([math.nan])]) is None


def test_the_step_axis_leaves_room_to_grow_only_while_a_run_goes_on(tmp_path):
    from engine.training.events import FinishedEvent, FinishReason

    record = RunRecord("run", RunSettings(), tmp_path, "#1f77b4")
    record.add_steps([_step(step, 2.0) for step in (1, 14_820, 29_640)])
    assert curves_x_bounds([record], "step") == (0.0, 40_000.0)  # 29,640 + 4 %: the next nice number
    record.finished = FinishedEvent(FinishReason.EARLY_STOPPING, 28.7, 49, 29_640, 57, 3600.0, 3000.0, 0, "")
    assert curves_x_bounds([record], "step") == (0.0, 30_000.0)  # ended: just past its last step
    record.steps_ahead = 5_000  # a watched log still being read: room for what it holds
    assert curves_x_bounds([record], "step") == (0.0, 40_000.0)
    assert curves_x_bounds([RunRecord("empty", RunSettings(), tmp_path, "#1f77b4")], "step") is None


@pytest.mark.slow  # a trained model, or the real window
def test_the_app_never_trains_into_a_folder_that_holds_a_model_or_that_another_run_holds(tmp_path, dates_models):
    import shutil

    from engine.training.run_lock import claim_run_folder

    settings = RunSettings(train=TrainConfig(epochs=1))
    holding = tmp_path / "models" / "holding"
    shutil.copytree(dates_models["additive"], holding)
    before = (holding / "model.safetensors").read_bytes()
    items = list(run_training(RunRequest(settings, holding), TrainControl()))
    assert isinstance(items[-1], RunFailed) and "already holds a trained model" in items[-1].message
    assert (holding / "model.safetensors").read_bytes() == before
    busy = tmp_path / "models" / "busy"
    with claim_run_folder(busy):
        items = list(run_training(RunRequest(settings, busy), TrainControl()))
    assert isinstance(items[-1], RunFailed) and "in use by another training run" in items[-1].message


def _command_line_run(tmp_path: Path, steps: int, validate_every: int = 0) -> Path:
    """A run folder as the command line leaves it: its start line, ``steps`` step lines and a
    validation every ``validate_every`` steps (none when 0)."""
    run = tmp_path / "run"
    run.mkdir()
    log = MetricsLog(run)
    log.start(_description(RunSettings(train=TrainConfig(epochs=5))))
    for step in range(1, steps + 1):
        log.append(StepEvent(step=step, epoch=1, batch=step, batches_per_epoch=100, loss=1.0, tokens_per_second=1.0,
                             learning_rate=1e-3, skipped_steps=0, elapsed_seconds=float(step), eta_seconds=None))
        if validate_every and step % validate_every == 0:
            log.append(ValidationEvent(step=step, epoch=1, valid_loss=1.0, bleu=float(step), chrf=1.0,
                                       exact_match=0.0, samples=(), is_best=True, best_bleu=float(step),
                                       learning_rate=1e-3, elapsed_seconds=float(step)))
    return run


def test_a_long_log_is_read_in_chunks_and_applied_together(tmp_path, monkeypatch, qtbot):
    import gui.training.watch as watch
    from gui.training.watch import RunWatcher, read_more
    from tests.inline_jobs import InlineJobs

    run = _command_line_run(tmp_path, steps=25)
    monkeypatch.setattr(watch, "READ_CHUNK", 10)
    monkeypatch.setattr(watch, "READER_WAIT_SECONDS", 0.0)
    chunks = list(read_more(run, 0, None))
    assert [len(chunk.steps) for chunk in chunks] == [9, 10, 6]  # the start line is no event
    assert chunks[0].described and chunks[0].request is not None and not any(c.described for c in chunks[1:])
    assert list(chunks[1].steps.columns[0]) == list(range(10, 20))  # the step numbers, as a column
    jobs = InlineJobs()
    record = RunRecord("run", RunSettings(), run, "#1f77b4")
    watcher = RunWatcher(run, record, jobs)
    redraws = []
    watcher.changed.connect(redraws.append)
    watcher.poll()
    jobs.run_all()
    assert record.last_step is None  # chunks wait for the next application
    qtbot.waitUntil(lambda: record.last_step is not None, timeout=2000)
    assert record.last_step.step == 25 and len(record.series("step")) == 25 and len(redraws) == 1
    assert record.settings.train.epochs == 5
    watcher.stop()


def test_the_reader_waits_for_the_window_between_chunks_and_a_backlog_is_applied_in_bites(tmp_path, monkeypatch,
                                                                                       qtbot):
    import threading

    import gui.training.watch as watch
    from gui.training.watch import RunWatcher, read_more
    from tests.inline_jobs import InlineJobs

    run = _command_line_run(tmp_path, steps=95, validate_every=20)
    monkeypatch.setattr(watch, "READ_CHUNK", 10)
    may_go_on = threading.Event()
    reader = read_more(run, 0, None, may_go_on)
    assert len(next(reader).steps) == 9
    second: list = []
    thread = threading.Thread(target=lambda: second.append(next(reader)))
    thread.start()
    thread.join(0.3)
    assert thread.is_alive() and not second  # waiting for the window's turn
    may_go_on.set()
    thread.join(5)
    assert len(second[0].steps) == 10

    monkeypatch.setattr(watch, "READER_WAIT_SECONDS", 0.0)
    monkeypatch.setattr(watch, "APPLY_CHUNKS", 3)
    jobs = InlineJobs()
    record = RunRecord("run", RunSettings(), run, "#1f77b4")
    watcher = RunWatcher(run, record, jobs)
    sizes, validated = [], []
    watcher._apply_timer.timeout.connect(lambda: sizes.append(record.step_count))
    watcher.validated.connect(lambda rec: validated.append(len(rec.validations)))
    watcher.poll()
    jobs.run_all()  # ten chunks read at once: a backlog
    qtbot.waitUntil(lambda: record.step_count == 95 and bool(validated), timeout=3000)
    assert sizes[:4] == [28, 57, 85, 95]  # three chunks (of ten log lines) at a time
    assert record.last_step.step == 95
    assert validated == [4]  # the snapshots once, when the backlog is in (the curves meanwhile)
    watcher.stop()


def test_a_long_runs_curves_draw_at_most_a_few_points_per_pixel(qtbot):
    from gui.training.curves import CurvesView

    record = RunRecord("long", RunSettings(), Path("long"), "#1f77b4")
    steps = 50_000
    record.add_steps([StepEvent(step=step, epoch=1, batch=step, batches_per_epoch=steps, loss=1.0 + (step % 7) / 10,
                                tokens_per_second=1000.0, learning_rate=1e-3, skipped_steps=0,
                                elapsed_seconds=float(step), eta_seconds=None) for step in range(1, steps + 1)])
    view = CurvesView()
    qtbot.addWidget(view)
    view.resize(800, 600)
    view.show()
    qtbot.waitExposed(view)
    view.add_run(record)
    qtbot.waitUntil(lambda: view.point_count(record) > 0, timeout=5000)  # drawn at the next redraw
    drawn = view.point_count(record)
    assert 0 < drawn < 8 * view.width()  # the 50,000 steps, down-sampled to the plot's width


def test_the_training_stack_warms_up_once_in_the_background_when_the_tab_is_first_shown(qtbot):
    import sys

    from gui.training.panel import TrainingPanel
    from tests.inline_jobs import InlineJobs

    panel = TrainingPanel()
    qtbot.addWidget(panel)
    jobs = InlineJobs()
    panel.controller.jobs = jobs
    panel.show()
    panel.hide()
    panel.show()
    assert [job.name for job in jobs.started] == ["training warm-up"]  # once, and not in the window's thread
    import gc

    frozen = gc.get_freeze_count()
    jobs.run_all()
    assert "torch._dynamo" in sys.modules  # what the first optimizer of a run would import
    assert gc.get_freeze_count() > frozen  # and out of the collector's sight, as the start-up heap is
