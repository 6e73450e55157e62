"""Watching a run started elsewhere: the Train tab follows its metrics log, live and read only."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from gui.training.panel import TrainingPanel
from tests.gui.test_training_units import _command_line_run

pytestmark = pytest.mark.slow  # trains a model, opens the real window, runs a subprocess or fuzzes many cases

ROOT = Path(__file__).resolve().parents[2]


def test_a_command_line_run_is_followed_live_from_its_folder(qtbot, tmp_path):
    panel = TrainingPanel()
    qtbot.addWidget(panel)
    folder = tmp_path / "cli-run"
    process = subprocess.Popen(
        [sys.executable, "-m", "engine", "train", "--task", "dates", "--scorer", "dot", "--epochs", "3",
         "--hidden-size", "32", "--embedding-size", "16", "--threads", "1", "--out", str(folder)],
        cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        qtbot.waitUntil(lambda: (folder / "metrics.jsonl").is_file(), timeout=60000)
        record = panel.controller.watch_run(folder)
        assert record is not None and record in panel.table.records()
        qtbot.waitUntil(lambda: len(record.columns["step"]) > 0, timeout=30000)  # live, while it trains
        assert record.finished is None and record.settings.model.scorer == "dot"
        # The bar follows the watched run as its log grows (it used to stay at its first reading).
        qtbot.waitUntil(lambda: panel.progress.format().startswith("Epoch ") and panel.progress.value() > 0,
                        timeout=30000)
        first = panel.progress.value()
        qtbot.waitUntil(lambda: panel.progress.value() > first, timeout=60000)
        assert panel.status_label.text().startswith("cli-run: ")
        qtbot.waitUntil(lambda: record.finished is not None, timeout=180000)
    finally:
        process.wait(timeout=180)
    assert process.returncode == 0
    assert len(record.validations) == 3 and record.snapshots and record.snapshots[-1].samples[0].attention is not None
    steps = record.columns["step"].view().tolist()
    assert record.last_step is not None and record.last_step.epoch == 3
    assert steps == sorted(set(steps)) and steps[0] == 1  # every step once, in order
    assert not panel.controller.watchers[0].timer.isActive()  # it stops once the log says the run ended
    assert panel.progress.value() == 1000 and "Epoch 3/3" in panel.progress.format()
    panel.controller.stop_and_wait(3000)


def test_a_folder_without_a_metrics_log_is_refused_with_the_reason(qtbot, tmp_path):
    panel = TrainingPanel()
    qtbot.addWidget(panel)
    messages = []
    panel.controller.message.connect(lambda kind, text: messages.append(text))
    assert panel.controller.watch_run(tmp_path) is None
    assert "no metrics.jsonl" in messages[-1]


def test_the_progress_bar_and_status_line_follow_the_run_chosen_in_the_table(qtbot, tmp_path):
    panel = TrainingPanel()
    qtbot.addWidget(panel)
    folders = []
    for name, steps in (("a", 30), ("b", 60)):
        (tmp_path / name).mkdir()
        folders.append(_command_line_run(tmp_path / name, steps))
    for folder in folders:
        record = panel.controller.watch_run(folder)
        qtbot.waitUntil(lambda record=record: record.step_count > 0, timeout=10000)
    assert "step 60" in panel.progress.format()  # the newest run is shown
    panel.table.selectRow(0)
    qtbot.waitUntil(lambda: "step 30" in panel.progress.format(), timeout=5000)
    assert panel.progress.value() == round(1000 * 30 / 500)  # 30 of 5 epochs × 100 batches
    panel.controller.stop_and_wait(3000)
