"""The metrics log's lines are the events' dataclasses (engine.training.events): each field declares how
the log holds it once, and the lines' schemas, the writer and the reader follow from the fields. Lines
copied from real logs read into the events they were written from and write back byte for byte; lines
of older versions (no ``eta_seconds``, ``target_tokens``, ``long_bleu``, samples) still read; a new field
is written, checked and read back with no other edit."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field, replace

import numpy as np
import pytest

from engine.files.schema import SchemaError
from engine.training import metrics_schema
from engine.training.events import (
    FinishedEvent,
    FinishReason,
    SampleTranslation,
    StepEvent,
    ValidationEvent,
    logged,
)
from engine.training.metrics_log import MetricsLog, events_from_records, read_log
from engine.training.metrics_schema import check_record, event_record, record_event

# A step and a validation copied from a real run's log (zh-en transformer, its first step and first
# validation); a finished line as the writer wrote it before the events described their fields; a
# skipped step (its loss and speed not finite: null).
STEP = '{"kind": "step", "step": 1, "epoch": 1, "batch": 1, "batches_per_epoch": 520, "loss": 10.647941589355469, "tokens_per_second": 2369.987461172279, "learning_rate": 2e-06, "skipped_steps": 0, "elapsed_seconds": 0.6680571169999894, "eta_seconds": 27690.818657908465, "target_tokens": 965}'
VALIDATION = '{"kind": "validation", "step": 520, "epoch": 1, "valid_loss": 3.620296538725156, "bleu": 1.5602172503892495, "chrf": 12.617981768593456, "exact_match": 0.0, "is_best": true, "best_bleu": 1.1803214945147946, "learning_rate": 0.001, "elapsed_seconds": 390.2491428759995, "long_bleu": 0.8004257386403398, "samples": [{"source": "你想对我说什么?", "reference": "What did you want to tell me?", "hypothesis": "Do you like to go?", "source_tokens": ["▁你想", "对我", "说什么", "?"], "tokens": ["▁Do", "▁you", "▁like", "▁to", "▁go", "?", "</s>"], "attention": [[0.9999, 0.0, 0.0001, 0.0], [0.7528, 0.1732, 0.0726, 0.0014], [0.1036, 0.2369, 0.3912, 0.2682], [0.0135, 0.3638, 0.1713, 0.4513], [0.0689, 0.4297, 0.328, 0.1734], [0.0005, 0.0462, 0.0553, 0.898], [0.4513, 0.0181, 0.0475, 0.4832]]}]}'
FINISHED = '{"kind": "finished", "reason": "early stopping", "best_bleu": 38.41, "best_epoch": 12, "steps": 6240, "epochs_completed": 14, "seconds": 5120.5, "tokens_per_second": 1834.2, "skipped_steps": 0, "model_folder": "build/models/zh-en-additive"}'
SKIPPED = '{"kind": "step", "step": 7, "epoch": 1, "batch": 7, "batches_per_epoch": 10, "loss": null, "tokens_per_second": null, "learning_rate": 0.001, "skipped_steps": 1, "elapsed_seconds": 2.0, "eta_seconds": null, "target_tokens": 0}'


def _written(event) -> str:
    return json.dumps(event_record(event), ensure_ascii=False, allow_nan=False)


def _read(line: str):
    record = json.loads(line)
    check_record(record)
    return record_event(record)


@pytest.mark.parametrize("line", [STEP, VALIDATION, FINISHED, SKIPPED], ids=["step", "validation", "finished", "skipped"])
def test_a_golden_line_reads_and_writes_back_byte_for_byte(line):
    assert _written(_read(line)) == line


def test_golden_lines_read_into_the_events_they_were_written_from():
    step = _read(STEP)
    assert step == StepEvent(step=1, epoch=1, batch=1, batches_per_epoch=520, loss=10.647941589355469,
                             tokens_per_second=2369.987461172279, learning_rate=2e-06, skipped_steps=0,
                             elapsed_seconds=0.6680571169999894, eta_seconds=27690.818657908465, target_tokens=965)
    validation = _read(VALIDATION)
    assert (validation.step, validation.is_best, validation.long_bleu) == (520, True, 0.8004257386403398)
    (sample,) = validation.samples
    assert sample.source == "你想对我说什么?" and sample.tokens[-1] == "</s>" and len(sample.source_tokens) == 4
    assert sample.attention.dtype == np.float32 and sample.attention.shape == (7, 4)
    assert sample.attention[0, 0] == np.float32(0.9999)
    finished = _read(FINISHED)
    assert finished.reason is FinishReason.EARLY_STOPPING and finished.steps == 6240
    skipped = _read(SKIPPED)
    assert math.isnan(skipped.loss) and math.isnan(skipped.tokens_per_second) and skipped.eta_seconds is None


def test_lines_of_older_versions_read_with_the_missing_fields_absent():
    old_step = {key: value for key, value in json.loads(STEP).items() if key not in ("eta_seconds", "target_tokens")}
    check_record(old_step)
    step = record_event(old_step)
    assert step.eta_seconds is None and step.target_tokens == 0 and step.loss == 10.647941589355469
    old_validation = {key: value for key, value in json.loads(VALIDATION).items()
                      if key not in ("long_bleu", "samples")}
    check_record(old_validation)
    assert record_event(old_validation).samples == () and record_event(old_validation).long_bleu is None
    record = json.loads(VALIDATION)
    del record["samples"][0]["attention"]
    check_record(record)
    assert record_event(record).samples[0].attention is None


def test_a_field_every_line_holds_is_required():
    for line, key in ((STEP, "elapsed_seconds"), (VALIDATION, "valid_loss"), (FINISHED, "model_folder")):
        record = json.loads(line)
        del record[key]
        with pytest.raises(SchemaError, match=f"{key!r} is missing"):
            check_record(record)


def test_the_writer_keeps_the_first_sample_rounds_its_attention_and_writes_nan_as_null():
    sample = SampleTranslation(source="x y", reference="a", hypothesis="a", source_tokens=("x", "y"), tokens=("a",),
                               attention=np.array([[0.123456, 0.876544]], dtype=np.float32))
    event = ValidationEvent(step=3, epoch=1, valid_loss=float("nan"), bleu=1.0, chrf=2.0, exact_match=0.0,
                            samples=(sample, replace(sample, source="other")), is_best=False, best_bleu=3.0,
                            learning_rate=1e-3, elapsed_seconds=4.0, long_bleu=float("inf"))
    record = event_record(event)
    assert record["valid_loss"] is None and record["long_bleu"] is None
    assert [part["source"] for part in record["samples"]] == ["x y"]
    assert record["samples"][0]["attention"] == [[0.1235, 0.8765]]
    assert list(record) == ["kind", "step", "epoch", "valid_loss", "bleu", "chrf", "exact_match", "is_best", "best_bleu",
                            "learning_rate", "elapsed_seconds", "long_bleu", "samples"]


@dataclass(frozen=True)
class _GradientStep(StepEvent):
    """A step with one new field, declared once: logs written before it lack it (read as NaN)."""

    gradient_norm: float = field(default=float("nan"),
                                 metadata=logged(low=0, nan_as_null=True, absent=float("nan")))


def test_a_new_field_is_written_validated_and_read_back_with_no_other_edit(monkeypatch, tmp_path):
    monkeypatch.setitem(metrics_schema.EVENTS, "step", _GradientStep)
    event = _GradientStep(**_read_step_fields(), gradient_norm=2.5)
    log = MetricsLog(tmp_path)
    log.append(event)
    log.append(replace(event, step=2, gradient_norm=float("nan")))
    with log.path.open("a", encoding="utf-8") as handle:  # out of its range: refused by the derived schema
        handle.write(json.dumps({**event_record(event), "step": 3, "gradient_norm": -1.0}) + "\n")
        handle.write(STEP + "\n")  # a line of the version before the field
    lines = log.path.read_text(encoding="utf-8").splitlines()
    assert lines[0] == STEP[:-1] + ", \"gradient_norm\": 2.5}"
    read = read_log(tmp_path)
    assert read.skipped == 1 and "gradient_norm: must be at least 0" in read.problem
    first, second, older = events_from_records(read.records)
    assert first == event
    assert math.isnan(second.gradient_norm) and json.loads(lines[1])["gradient_norm"] is None
    assert type(older) is _GradientStep and math.isnan(older.gradient_norm) and older.step == 1


def _read_step_fields() -> dict:
    record = json.loads(STEP)
    del record["kind"]
    return record


def test_the_lines_schemas_come_from_the_fields():
    specs = metrics_schema.record_specs()
    assert set(specs) == {"start", "step", "validation", "finished"}
    step = specs["step"]
    assert step.fields["tokens_per_second"].low == 0 and step.fields["tokens_per_second"].nullable
    assert not step.fields["elapsed_seconds"].nullable
    assert "target_tokens" not in step.required and "eta_seconds" not in step.required
    assert set(specs["finished"].fields["reason"].values) == {reason.value for reason in FinishReason}
    assert FinishedEvent.__dataclass_fields__["model_folder"].metadata
