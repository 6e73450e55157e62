"""The Train tab end to end on a small dates task: curves, snapshots, stop, pause, resume, faults."""

from __future__ import annotations

import functools
import math
import time
from pathlib import Path

import pyqtgraph as pg
import pytest
import torch
from PySide6.QtCore import Qt

import engine.training.train_step
from engine.corpus.tasks import dates
from engine.files import user_models_folder
from engine.models.bundle import load_model_folder
from engine.records.catalog import scan
from engine.training.checkpoint_state import has_checkpoint
from gui.training.form import ALL_SCORERS
from gui.training.panel import TrainingPanel
from gui.training.records import RunRecord
from tests.gui.conftest import shown

pytestmark = pytest.mark.slow  # trains a model, opens the real window, runs a subprocess or fuzzes many cases

RUN_TIMEOUT_MS = 60_000


@pytest.fixture
def small_dates(monkeypatch):
    """The dates task with a small split, so that an epoch takes a fraction of a second."""
    monkeypatch.setattr(dates, "dates_split",
                        functools.partial(dates.dates_split, train_size=640, valid_size=24, test_size=24))


@pytest.fixture
def panel(qtbot, small_dates):
    widget = TrainingPanel()
    qtbot.addWidget(widget)
    widget.resize(1300, 850)
    form = widget.form
    form.embedding.setValue(16)
    form.hidden.setValue(32)
    form.epochs.setValue(2)
    yield widget
    assert widget.stop_and_wait(20_000)
    qtbot.waitUntil(lambda: widget.controller.current is None, timeout=RUN_TIMEOUT_MS)


def _record(panel: TrainingPanel) -> RunRecord:
    return panel.table.records()[-1]


def _start(panel: TrainingPanel, qtbot) -> RunRecord:
    qtbot.mouseClick(panel.start_button, Qt.MouseButton.LeftButton)
    assert panel.is_training()
    return _record(panel)


def _wait_steps(qtbot, record: RunRecord, count: int) -> None:
    qtbot.waitUntil(lambda: record.step_count >= count, timeout=RUN_TIMEOUT_MS)


def test_a_dates_run_draws_curves_progress_and_attention_snapshots(panel, qtbot):
    loss_plot = panel.findChild(pg.PlotWidget, "lossPlot")
    assert loss_plot is not None and panel.findChild(type(panel.start_button), "stopTrainingButton") is not None
    saved: list[str] = []
    panel.modelSaved.connect(saved.append)
    with qtbot.waitSignal(panel.runFinished, timeout=RUN_TIMEOUT_MS):
        record = _start(panel, qtbot)
        qtbot.waitUntil(lambda: panel.curves.point_count(record) > 0 and panel.progress.value() > 0,
                        timeout=RUN_TIMEOUT_MS)
        assert "Epoch 1/2" in panel.progress.format()
    assert not panel.is_training()
    assert record.status == "completed" and record.step_count == 20  # 640 pairs / 64 × 2 epochs
    assert panel.curves.point_count(record) == 20
    assert panel.progress.value() == 1000
    assert panel.snapshots.count() == 2 and panel.snapshots.current_index() == 1
    matrix = panel.snapshots.current_matrix()
    sample = record.snapshots[-1].samples[0]
    assert matrix.shape == (len(sample.tokens), len(sample.source_tokens))
    assert matrix.sum(axis=1) == pytest.approx([1.0] * matrix.shape[0], abs=1e-4)
    panel.snapshots.slider.setValue(0)  # back to the first validation
    assert panel.snapshots.current_index() == 0
    assert saved and saved[-1] == str(record.folder)
    assert record.test_bleu is not None
    assert load_model_folder(record.folder).scorer == "additive"
    assert record.folder.parent == user_models_folder()
    assert any(entry.folder == record.folder for entry in scan()[0])


def test_screen_updates_are_throttled_whatever_the_step_rate(panel, qtbot, monkeypatch):
    redraws: list[float] = []
    original = panel.curves.update_run
    monkeypatch.setattr(panel.curves, "update_run", lambda record: (redraws.append(time.monotonic()),
                                                                     original(record)))
    panel.form.epochs.setValue(3)
    started = time.monotonic()
    with qtbot.waitSignal(panel.runFinished, timeout=RUN_TIMEOUT_MS):
        record = _start(panel, qtbot)
    seconds = time.monotonic() - started
    validations = len(record.validations)
    # ≈30 redraws a second from the timer, plus one per validation and a few for status changes
    assert len(redraws) <= seconds * 32 + 3 * validations + 12, (len(redraws), seconds, record.step_count)


def test_stop_takes_effect_before_the_next_batch_and_keeps_a_model(panel, qtbot):
    panel.form.epochs.setValue(200)
    record = _start(panel, qtbot)
    _wait_steps(qtbot, record, 5)
    with qtbot.waitSignal(panel.controller.runHeld, timeout=RUN_TIMEOUT_MS):  # the batch in flight has ended
        qtbot.mouseClick(panel.pause_button, Qt.MouseButton.LeftButton)
    assert panel.pause_button.text() == "Resume"
    seen = record.step_count
    saved: list[str] = []
    panel.modelSaved.connect(saved.append)
    with qtbot.waitSignal(panel.runFinished, timeout=RUN_TIMEOUT_MS):
        qtbot.mouseClick(panel.stop_button, Qt.MouseButton.LeftButton)
    assert record.finished is not None and record.finished.reason == "stopped"
    assert record.finished.steps == seen  # no batch ran after the stop
    assert saved and Path(saved[-1]) == record.folder
    assert load_model_folder(record.folder).model_config.decoder_hidden_size == 32
    assert has_checkpoint(record.folder)
    assert panel.resume_combo.currentData() is not None  # offered for resuming
    assert panel.start_button.isEnabled()


def test_pause_and_resume(panel, qtbot):
    panel.form.epochs.setValue(200)
    record = _start(panel, qtbot)
    _wait_steps(qtbot, record, 3)
    with qtbot.waitSignal(panel.controller.runHeld, timeout=RUN_TIMEOUT_MS):  # the batch in flight has ended
        panel.pause_button.click()
    assert record.status == "paused"
    paused_at = record.step_count
    with qtbot.assertNotEmitted(panel.controller.runChanged, wait=600):  # a stretch of time: no batch runs
        pass
    assert record.step_count == paused_at
    assert panel.is_training()
    panel.pause_button.click()
    assert panel.pause_button.text() == "Pause"
    _wait_steps(qtbot, record, paused_at + 3)
    with qtbot.waitSignal(panel.runFinished, timeout=RUN_TIMEOUT_MS):
        panel.stop_button.click()


def test_closing_during_training_stops_cleanly_and_the_run_can_be_resumed(panel, qtbot):
    panel.form.epochs.setValue(4)
    record = _start(panel, qtbot)
    qtbot.waitUntil(lambda: len(record.validations) >= 1 and record.step_count >= 13, timeout=RUN_TIMEOUT_MS)
    assert panel.stop_and_wait(10_000)
    assert not panel.is_training()
    assert has_checkpoint(record.folder)
    qtbot.waitUntil(lambda: panel.controller.current is None, timeout=5000)
    run = panel.resume_combo.currentData()
    assert run is not None and run.folder == record.folder
    stopped_at = run.progress.step
    with qtbot.waitSignal(panel.runFinished, timeout=RUN_TIMEOUT_MS):
        panel.resume_button.click()
        resumed = _record(panel)
        assert resumed is not record and resumed.folder == record.folder
        # Its curves begin with its earlier steps and validations, replayed from its own log, and go on.
        qtbot.waitUntil(lambda: stopped_at + 1 in list(resumed.series("step")), timeout=RUN_TIMEOUT_MS)
        steps = list(resumed.series("step"))
        assert steps[:stopped_at + 1] == list(range(1, stopped_at + 2)) and len(resumed.validations) >= 1
    assert resumed.status == "completed"


def test_a_corpus_with_malformed_lines_shows_the_report(panel, qtbot, tmp_path):
    corpus = tmp_path / "mixed.tsv"
    good = "".join(f"Sentence number {i}.\t第{i}个句子。\n" for i in range(80))
    corpus.write_text("Hello.\t你好。\nno tab on this line\nOnly English.\t\n" + good, encoding="utf-8")
    panel.form.add_corpus_file(corpus)
    qtbot.waitUntil(lambda: panel._inspection is not None and panel._inspection.done, timeout=10_000)
    text = panel.form.preview.report_text()
    assert "83 lines read" in text and "2 lines skipped" in text
    assert "line 2: no tab separator" in text and "line 3: empty Chinese side" in text
    assert panel.start_button.isEnabled()
    assert panel.form.preview.table.item(0, 1).text() == "你好。"

    swapped = tmp_path / "swapped.tsv"
    swapped.write_text("".join(f"第{i}个句子。\tSentence number {i}.\n" for i in range(80)), encoding="utf-8")
    panel.form.add_corpus_file(swapped)
    qtbot.waitUntil(lambda: panel._inspection is not None and panel._inspection.done, timeout=10_000)
    assert "columns seem swapped" in panel.form.preview.report_text()
    assert not panel.start_button.isEnabled()


def test_too_little_data_is_refused_before_training_and_nothing_is_left(panel, qtbot, tmp_path):
    tiny = tmp_path / "tiny.tsv"
    tiny.write_text("Hello.\t你好。\nGood night.\t晚安。\n", encoding="utf-8")
    panel.form.add_corpus_file(tiny)
    qtbot.waitUntil(lambda: panel._inspection is not None and panel._inspection.done, timeout=10_000)
    assert not panel.start_button.isEnabled()
    with qtbot.waitSignal(panel.runFinished, timeout=RUN_TIMEOUT_MS):
        panel.controller.start(panel.form.settings())  # as if started before the report was ready
    assert panel.message_label.property("kind") == "error"
    assert "too little data" in panel.message_label.text()
    models = user_models_folder()
    assert not models.exists() or not any(models.iterdir())  # the failed run left no folder


def test_an_unwritable_data_folder_is_named_in_the_error(panel, qtbot, tmp_path, monkeypatch):
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the data folder should be")
    monkeypatch.setenv("ATTENTION_STUDIO_DATA", str(blocker))
    with qtbot.waitSignal(panel.runFinished, timeout=RUN_TIMEOUT_MS):
        panel.start()
    assert panel.message_label.property("kind") == "error"
    assert str(blocker) in panel.message_label.text()
    assert panel.start_button.isEnabled()


def test_a_diverging_run_shows_the_error_and_the_app_stays_usable(panel, qtbot, monkeypatch):
    def nan_loss(logits: torch.Tensor, target: torch.Tensor, label_smoothing: float) -> torch.Tensor:
        return logits.sum() * math.nan

    monkeypatch.setattr(engine.training.train_step, "compute_loss", nan_loss)
    with qtbot.waitSignal(panel.runFinished, timeout=RUN_TIMEOUT_MS):
        record = _start(panel, qtbot)
    assert record.status == "diverged" and record.diverged_at is not None
    assert panel.message_label.property("kind") == "error" and "diverged" in panel.message_label.text()
    assert all(math.isnan(value) for value in record.series("loss"))  # drawn as gaps
    assert panel.start_button.isEnabled() and not panel.is_training()
    monkeypatch.undo()
    monkeypatch.setattr(dates, "dates_split",
                        functools.partial(dates.dates_split, train_size=640, valid_size=24, test_size=24))
    second = _start(panel, qtbot)  # the app goes on: a new run trains
    _wait_steps(qtbot, second, 2)
    assert math.isfinite(second.series("loss")[-1])
    with qtbot.waitSignal(panel.runFinished, timeout=RUN_TIMEOUT_MS):
        panel.stop_button.click()


def test_runs_are_compared_and_exported(panel, qtbot, tmp_path):
    panel.form.epochs.setValue(1)
    for scorer in ("dot", "none"):
        panel.form.set_scorer(scorer)
        with qtbot.waitSignal(panel.runFinished, timeout=RUN_TIMEOUT_MS):
            _start(panel, qtbot)
    first, second = panel.table.records()
    assert first.colour != second.colour
    assert panel.table.item(1, 3).text() == "None (fixed context C)"
    assert panel.table.item(0, 8).text() not in ("", "–")  # best valid BLEU
    legend = panel.curves.loss_plot.getPlotItem().legend
    assert [label.text for _, label in legend.items] == [first.name, second.name]
    assert panel.snapshots.current_matrix().size == 0  # 'none' has no attention to show
    panel.curves.x_combo.setCurrentIndex(1)  # elapsed time on the x axis
    x, _ = panel.curves._runs[id(first)][1].raw.getData()
    assert list(x) == list(first.series("elapsed"))
    panel.curves.log_check.setChecked(True)
    assert panel.curves.loss_plot.getPlotItem().ctrl.logYCheck.isChecked()
    png, table = tmp_path / "curves.png", tmp_path / "metrics.csv"
    assert panel.export_curves_png(png) and png.stat().st_size > 1000
    assert panel.export_metrics_csv(table)
    lines = table.read_text(encoding="utf-8").splitlines()
    assert lines[0].startswith("run,kind,step") and sum(first.name in line for line in lines) == 10 + 1
    assert not panel.export_metrics_csv(tmp_path / "missing" / "metrics.csv")
    assert "missing" in panel.message_label.text()


def test_the_budget_schedule_is_offered_only_with_a_time_budget_and_trains_a_tied_model(panel, qtbot):
    form = panel.form
    schedule = form.findChild(type(form.lr_schedule), "trainScheduleCombo")
    budget_item = schedule.model().item(schedule.findData("budget"))
    form.minutes.setValue(0.0)
    assert not budget_item.isEnabled()
    form.minutes.setValue(0.05)
    assert budget_item.isEnabled()
    schedule.setCurrentIndex(schedule.findData("budget"))
    form.findChild(type(form.tie_embeddings), "trainTieCheck").setChecked(True)
    form.epochs.setValue(1000)
    form.patience.setValue(0)  # only the budget may end the run (on a fast machine early stopping came first)
    with qtbot.waitSignal(panel.runFinished, timeout=RUN_TIMEOUT_MS):
        record = _start(panel, qtbot)
    assert record.status == "time budget"
    rates = record.series("learning_rate")
    assert rates[-1] < 0.5 * rates[0]
    bundle = load_model_folder(record.folder)
    assert bundle.model_config.tie_embeddings
    assert bundle.info["training"]["train_config"]["lr_schedule"] == "budget"
    form.minutes.setValue(0.0)  # no budget left to decay over: back to the plateau schedule
    assert schedule.currentData() == "plateau"


def test_a_corpus_file_brings_the_shipped_recipe_and_the_dates_task_its_own(panel, qtbot, tmp_path):
    form = panel.form
    corpus = tmp_path / "pairs.tsv"
    corpus.write_text("".join(f"Sentence number {i}.\t第{i}个句子。\n" for i in range(80)), encoding="utf-8")
    form.add_corpus_file(corpus)
    assert form.tie_embeddings.isChecked() and form.learning_rate.value() == pytest.approx(0.002)
    assert form.temperature_warmup.value() == pytest.approx(1.0)
    assert (form.embedding.value(), form.dropout.value()) == (256, pytest.approx(0.3))  # the shipped sizes
    assert (form.concat_max.value(), form.concat_share.value(), form.concat_start.value()) == (
        8, pytest.approx(0.2), pytest.approx(0.5))  # long examples: the build script's length curriculum
    form.corpus_combo.setCurrentIndex(0)  # the dates task
    assert not form.tie_embeddings.isChecked() and form.learning_rate.value() == pytest.approx(0.001)
    assert (form.embedding.value(), form.dropout.value()) == (64, pytest.approx(0.1))
    assert form.temperature_warmup.value() == 0.0
    assert form.concat_max.value() == 1 and not form.concat_share.isEnabled()


def test_long_examples_reach_the_run_and_the_share_needs_pairs_to_join(panel, qtbot):
    form = panel.form
    size = form.findChild(type(form.concat_max), "trainConcatMaxSpin")
    share = form.findChild(type(form.concat_share), "trainConcatShareSpin")
    size.setValue(1)
    assert not share.isEnabled()
    size.setValue(3)
    share.setValue(0.25)
    start = form.findChild(type(form.concat_start), "trainConcatStartSpin")
    start.setValue(0.4)
    assert share.isEnabled() and start.isEnabled()
    [settings] = form.settings()
    config = settings.train
    assert (config.concat_max_group, config.concat_share, config.concat_start) == (3, 0.25, 0.4)
    with qtbot.waitSignal(panel.runFinished, timeout=RUN_TIMEOUT_MS):
        record = _start(panel, qtbot)
    trained = load_model_folder(record.folder).info["training"]["train_config"]
    assert (trained["concat_max_group"], trained["concat_share"], trained["concat_start"]) == (3, 0.25, 0.4)


def _assert_offered(form, widget, offered_for: dict) -> None:
    """``widget`` is enabled exactly for the scorer choices that ``offered_for`` maps to True."""
    for name, offered in offered_for.items():
        form.scorer_combo.setCurrentIndex(form.scorer_combo.findData(name))
        assert widget.isEnabled() is offered, name


def test_the_score_warm_up_is_offered_for_the_unscaled_scorers_and_reaches_the_run(panel, qtbot):
    form = panel.form
    warmup = form.findChild(type(form.temperature_warmup), "trainWarmupSpin")
    _assert_offered(form, warmup, {"additive": False, "scaled_dot": False, "none": False, "dot": True,
                                   "bilinear": True, ALL_SCORERS: True})
    form.set_scorer("dot")
    warmup.setValue(0.5)
    [settings] = form.settings()
    assert settings.train.temperature_warmup == 0.5
    with qtbot.waitSignal(panel.runFinished, timeout=RUN_TIMEOUT_MS):
        record = _start(panel, qtbot)
    assert load_model_folder(record.folder).info["training"]["train_config"]["temperature_warmup"] == 0.5


def test_attention_dropout_is_offered_for_the_attention_scorers_and_reaches_the_model(panel, qtbot):
    form = panel.form
    spin = form.findChild(type(form.attention_dropout), "trainAttentionDropoutSpin")
    _assert_offered(form, spin, {"additive": True, "scaled_dot": True, "dot": True, "bilinear": True,
                                 "none": False, ALL_SCORERS: True})
    form.set_scorer("additive")
    spin.setValue(0.15)
    [settings] = form.settings()
    assert settings.model.attention_dropout == 0.15
    with qtbot.waitSignal(panel.runFinished, timeout=RUN_TIMEOUT_MS):
        record = _start(panel, qtbot)
    assert load_model_folder(record.folder).model_config.attention_dropout == 0.15


def test_the_forms_column_is_never_narrower_than_the_form(qtbot):
    """At 1280×800 the form's fields were cut off at the right (its scroll area was narrower)."""
    widget = shown(qtbot, TrainingPanel(), 1280, 760)
    scroll = widget.form.parentWidget().parentWidget()  # the form's viewport, then its scroll area
    assert scroll.viewport().width() >= widget.form.minimumSizeHint().width()
    assert widget.form.width() <= scroll.viewport().width()  # nothing beyond the right edge


def test_a_transformer_trains_in_the_app_with_its_own_rows_and_its_warm_up(panel, qtbot):
    form = panel.form
    form.set_scorer("transformer")
    rows = {binding.fields[0]: binding.widget for binding in form._bindings}
    assert not form.cell_combo.isEnabled() and not form.hidden.isEnabled()  # the RNN's: not a Transformer's
    rows["transformer_layers"].setValue(1)
    rows["feedforward_size"].setValue(64)
    rows["warmup_steps"].setValue(10)
    with qtbot.waitSignal(panel.runFinished, timeout=RUN_TIMEOUT_MS):
        record = _start(panel, qtbot)
    assert record.status == "completed" and record.step_count == 20
    rates = record.series("learning_rate")
    assert rates[0] < rates[-1]  # warmed up from near 0
    bundle = load_model_folder(record.folder)
    assert bundle.scorer == "transformer"
    assert (bundle.model_config.transformer_layers, bundle.model_config.feedforward_size) == (1, 64)
    assert bundle.info["training"]["train_config"]["warmup_steps"] == 10
    assert panel.snapshots.count() == 2  # the attention on a fixed sentence: the last layer's mean
    matrix = panel.snapshots.current_matrix()
    assert matrix.sum(axis=1) == pytest.approx([1.0] * matrix.shape[0], abs=1e-4)
