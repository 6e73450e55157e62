"""Watching a run whose log holds damaged lines: every good line is shown, the damaged ones are
skipped and counted in a message that names the log — never an empty watch or an error dialog."""

from __future__ import annotations

import json

import numpy as np

from engine.training.metrics_log import METRICS_FILE
from engine.training.metrics_schema import event_record
from gui.training.panel import TrainingPanel
from tests.engine.test_metrics_damage import step_event, validation_event, write_log


def test_a_watched_log_with_damaged_lines_shows_every_other_line_and_counts_them(qtbot, tmp_path):
    folder = tmp_path / "run"
    write_log(folder, 300, validation_every=100)
    one_d = event_record(validation_event(300))
    one_d["samples"][0]["attention"] = [0.5, 0.5]
    with (folder / METRICS_FILE).open("a", encoding="utf-8") as handle:
        handle.write(json.dumps({**event_record(step_event(301)), "step": float("inf")}) + "\n")
        handle.write(json.dumps(one_d) + "\n")
        handle.write(json.dumps(event_record(validation_event(300, attention=np.full((2, 2), 0.5)))) + "\n")
        handle.write(json.dumps(event_record(step_event(302))) + "\n")
    panel = TrainingPanel()
    qtbot.addWidget(panel)
    messages = []
    panel.controller.message.connect(lambda kind, text: messages.append((kind, text)))
    record = panel.controller.watch_run(folder)
    qtbot.waitUntil(lambda: len(record.columns["step"]) == 301, timeout=20000)
    qtbot.waitUntil(lambda: any("damaged" in text for _, text in messages), timeout=5000)
    assert record.columns["step"].view().tolist() == [*range(1, 301), 302]
    assert len(record.validations) == 3 and all(s.samples[0].attention.ndim == 2 for s in record.snapshots)
    kind, text = [(kind, text) for kind, text in messages if "damaged" in text][-1]
    assert kind == "error" and text.startswith(f"{folder / METRICS_FILE}: 3 damaged lines skipped (the first at byte")
    panel.controller.stop_and_wait(3000)
