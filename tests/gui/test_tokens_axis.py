"""The training curves against target tokens trained on: the step lines' counts as a column, the
validations placed at the count of the step they followed, the axis written in k / M, a click mapped
back to its step, the CSV column — and a run logged before step lines counted tokens left off."""

from __future__ import annotations

import csv
import math
from pathlib import Path

import numpy as np
import pytest

from engine.training.events import StepEvent, ValidationEvent
from gui.training.curves import CurvesView
from gui.training.ranges import curves_x_bounds
from gui.training.records import RunRecord, write_metrics_csv
from gui.training.run_curves import token_tick
from gui.training.settings import RunSettings
from gui.training.travel import step_at

TOKENS_PER_STEP = 1_300


def step(number: int, tokens: bool = True) -> StepEvent:
    return StepEvent(step=number, epoch=1, batch=number, batches_per_epoch=1000, loss=3.0 - number / 1000,
                     tokens_per_second=4000.0, learning_rate=1e-3, skipped_steps=0, elapsed_seconds=number * 0.3,
                     eta_seconds=None, target_tokens=number * TOKENS_PER_STEP if tokens else 0)


def validation(number: int) -> ValidationEvent:
    return ValidationEvent(step=number, epoch=1, valid_loss=2.0, bleu=20.0 + number / 100, chrf=40.0,
                           exact_match=0.0, samples=(), is_best=True, best_bleu=20.0, learning_rate=1e-3,
                           elapsed_seconds=number * 0.3)


def record_of(tmp_path: Path, name: str, tokens: bool = True) -> RunRecord:
    record = RunRecord(name, RunSettings(), tmp_path / name, "#1f77b4")
    record.add_steps([step(n, tokens) for n in range(1, 501)])
    record.add_validation(validation(250))
    record.add_validation(validation(500))
    return record


def test_the_steps_counts_are_a_column_and_each_validation_sits_at_its_steps_count(tmp_path):
    record = record_of(tmp_path, "counted")
    assert record.has_tokens and record.series("target_tokens")[-1] == 500 * TOKENS_PER_STEP
    assert record.validation_series("target_tokens").tolist() == [250 * TOKENS_PER_STEP, 500 * TOKENS_PER_STEP]
    assert math.isnan(record.tokens_at(np.array([9_999.0]))[0])  # a step never read
    old = record_of(tmp_path, "old", tokens=False)  # a log written before step lines carried the count
    assert not old.has_tokens and np.isnan(old.validation_series("target_tokens")).all()
    assert curves_x_bounds([old], "target_tokens") is None
    assert curves_x_bounds([record], "target_tokens") == (0.0, 800_000.0)  # 650 k + room to grow


def test_a_click_on_the_tokens_axis_names_the_step_that_had_reached_that_count(tmp_path):
    record = record_of(tmp_path, "counted")
    assert step_at(record, 100.5 * TOKENS_PER_STEP, "target_tokens") == pytest.approx(100.5)
    assert step_at(record_of(tmp_path, "old", tokens=False), 1000.0, "target_tokens") is None


def test_the_curves_are_drawn_against_tokens_with_ticks_in_k_and_m(qtbot, tmp_path):
    view = CurvesView()
    qtbot.addWidget(view)
    counted, old = record_of(tmp_path, "counted"), record_of(tmp_path, "old", tokens=False)
    view.add_run(counted)
    view.add_run(old)
    view.set_x_mode("target_tokens")
    view.flush()
    x, _ = view._runs[id(counted)][1].raw.getData()
    assert x[-1] == 500 * TOKENS_PER_STEP
    old_x, _ = view._runs[id(old)][1].raw.getData()
    assert old_x is None or not np.isfinite(old_x).any()  # nothing to place it by: no curve
    axis = view.speed_plot.getPlotItem().getAxis("bottom")
    assert axis.tokens_mode and not axis.time_mode and axis.labelText == "target tokens trained on"
    view.set_x_mode("step")
    assert not axis.tokens_mode and view._runs[id(counted)][1].raw.getData()[0][-1] == 500
    view.set_x_mode("nonsense")
    assert view.x_mode == "step"


def test_token_ticks_use_the_unit_of_their_spacing():
    assert [token_tick(v, 10_000_000) for v in (0, 10_000_000, 40_000_000)] == ["0 M", "10 M", "40 M"]
    assert token_tick(2_500_000, 500_000) == "2.5 M" and token_tick(600_000, 200_000) == "600 k"
    assert token_tick(40, 10) == "40" and token_tick(1_500, 500) == "1.5 k"


def test_the_csv_export_has_the_tokens_of_every_step_and_validation(tmp_path):
    path = tmp_path / "metrics.csv"
    write_metrics_csv(path, [record_of(tmp_path, "counted"), record_of(tmp_path, "old", tokens=False)])
    rows = list(csv.DictReader(path.read_text(encoding="utf-8").splitlines()))
    counted = [r for r in rows if r["run"] == "counted"]
    assert counted[0]["target_tokens"] == str(TOKENS_PER_STEP)
    assert [r["target_tokens"] for r in counted if r["kind"] == "valid"] == ["325000", "650000"]
    assert {r["target_tokens"] for r in rows if r["run"] == "old"} == {""}


def test_the_runs_table_names_the_budget_that_ends_a_run():
    from engine.settings.config import TrainConfig
    from gui.training.runs_table import budget_text

    assert budget_text(TrainConfig(epochs=1000, max_target_tokens=40_000_000)) == "40.0 M tokens"
    assert budget_text(TrainConfig(epochs=1000, max_minutes=25.0)) == "25 min"
    assert budget_text(TrainConfig(epochs=1000, max_steps=5000)) == "5,000 steps"
    assert budget_text(TrainConfig(epochs=12)) == "12 epochs"
