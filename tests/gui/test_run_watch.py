"""Watching a run started elsewhere: the Train tab follows its metrics log, live and read only."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from gui.training.panel import TrainingPanel

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
        qtbot.waitUntil(lambda: record.finished is not None, timeout=180000)
    finally:
        process.wait(timeout=180)
    assert process.returncode == 0
    assert len(record.validations) == 3 and record.snapshots and record.snapshots[-1].samples[0].attention is not None
    steps = record.columns["step"].view().tolist()
    assert record.last_step is not None and record.last_step.epoch == 3
    assert steps == sorted(set(steps)) and steps[0] == 1  # every step once, in order
    assert not panel.controller.watchers[0].timer.isActive()  # it stops once the log says the run ended
    panel.controller.stop_and_wait(3000)


def test_a_folder_without_a_metrics_log_is_refused_with_the_reason(qtbot, tmp_path):
    panel = TrainingPanel()
    qtbot.addWidget(panel)
    messages = []
    panel.controller.message.connect(lambda kind, text: messages.append(text))
    assert panel.controller.watch_run(tmp_path) is None
    assert "no metrics.jsonl" in messages[-1]
