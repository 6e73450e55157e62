"""The run's metrics log: every event as one JSON line, readable while the run trains."""

from __future__ import annotations

import json

import numpy as np
import pytest

from engine.training.events import FinishedEvent, StepEvent, TrainControl, ValidationEvent
from engine.training.metrics_log import METRICS_FILE, events_from_records, read_records
from engine.training.metrics_schema import event_record
from engine.training.trainer import train
from tests.model_factory import tiny_job

pytestmark = pytest.mark.slow  # trains a model, opens the real window, runs a subprocess or fuzzes many cases


def test_every_event_is_logged_and_read_back_as_the_same_event(tmp_path):
    folder = tmp_path / "run"
    events = list(train(tiny_job(folder, epochs=2, train_size=300)))
    records, offset = read_records(folder)
    assert offset == (folder / METRICS_FILE).stat().st_size
    back = events_from_records(records)
    assert len(back) == len(events)
    for original, read in zip(events, back, strict=True):
        assert type(original) is type(read)
        if isinstance(original, StepEvent):
            assert read == original
        elif isinstance(original, ValidationEvent):
            assert (read.step, read.bleu, read.is_best) == (original.step, original.bleu, original.is_best)
            assert np.allclose(read.samples[0].attention, original.samples[0].attention, atol=1e-4)
        else:
            assert read == original and isinstance(read, FinishedEvent)


def test_a_torn_last_line_is_left_for_the_next_read(tmp_path):
    folder = tmp_path / "run"
    list(train(tiny_job(folder, epochs=1, train_size=300)))
    whole, offset = read_records(folder)
    line = json.dumps(event_record(StepEvent(999, 1, 9, 9, 1.5, 100.0, 1e-3, 0, 9.0, 1.0))) + "\n"
    with (folder / METRICS_FILE).open("ab") as handle:
        handle.write(b"not json\n")
        handle.write(line[:10].encode())
    more, torn_at = read_records(folder, offset)
    assert more == [] and torn_at == offset + len(b"not json\n")
    with (folder / METRICS_FILE).open("ab") as handle:
        handle.write(line[10:].encode())
    finished, _ = read_records(folder, torn_at)
    assert [record["step"] for record in finished] == [999]
    assert [event.step for event in events_from_records(finished)] == [999]


def test_a_resumed_run_logs_each_step_once(tmp_path):
    folder = tmp_path / "run"
    control = TrainControl()
    for event in train(tiny_job(folder, epochs=2, train_size=300), control):
        if isinstance(event, StepEvent) and event.step == 3:
            control.request_stop()
    list(train(tiny_job(folder, epochs=2, train_size=300), resume=True))
    steps = [r["step"] for r in read_records(folder)[0] if r["kind"] == "step"]
    assert steps == sorted(set(steps)) and steps[0] == 1
    kinds = [r["kind"] for r in read_records(folder)[0]]
    assert kinds.count("finished") == 1 and kinds[-1] == "finished"
