"""A metrics log with damaged lines: each is skipped and counted, never the lines around it; a resume
drops them (saying how many) and streams the log, so its memory does not grow with the log."""

from __future__ import annotations

import json
import tracemalloc
from pathlib import Path

import numpy as np
import pytest

from engine.records.run_spec import stored_train_arguments
from engine.settings.errors import StoredFileError
from engine.training.events import FinishedEvent, FinishReason, SampleTranslation, StepEvent, ValidationEvent
from engine.training.metrics_log import (
    METRICS_FILE,
    MetricsLog,
    events_from_records,
    last_finish_reason,
    read_description,
    read_log,
)

COMMAND = "python -m engine train --task dates --scorer additive --epochs 3 --out run"


def step_event(step: int) -> StepEvent:
    return StepEvent(step=step, epoch=1, batch=step, batches_per_epoch=10**6, loss=2.5, tokens_per_second=900.0,
                     learning_rate=1e-3, skipped_steps=0, elapsed_seconds=float(step), eta_seconds=60.0)


def validation_event(step: int, attention=None, tokens=("a", "b", "</s>"), source=("x", "y")) -> ValidationEvent:
    attention = np.full((len(tokens), len(source)), 0.5) if attention is None else attention
    sample = SampleTranslation(source="x y", reference="a b", hypothesis="a b", source_tokens=source, tokens=tokens,
                               attention=attention)
    return ValidationEvent(step=step, epoch=1, valid_loss=1.5, bleu=20.0, chrf=40.0, exact_match=0.1, samples=(sample,),
                           is_best=True, best_bleu=20.0, learning_rate=1e-3, elapsed_seconds=5.0, long_bleu=12.5)


def write_log(folder: Path, steps: int, damaged: list[str] = (), validation_every: int = 0) -> MetricsLog:
    folder.mkdir(parents=True, exist_ok=True)
    log = MetricsLog(folder)
    log.start({"source_language": "en", "target_language": "iso", "command": COMMAND, "task": "dates"})
    for step in range(1, steps + 1):
        log.append(step_event(step))
        if validation_every and step % validation_every == 0:
            log.append(validation_event(step))
    with (folder / METRICS_FILE).open("a", encoding="utf-8") as handle:
        handle.writelines(line + "\n" for line in damaged)
    return log


def _record(event) -> dict:
    from engine.training.metrics_schema import event_record

    return event_record(event)


def _line(event, **changes) -> str:
    return json.dumps({**_record(event), **changes}, allow_nan=True)


DAMAGED = {
    "step Infinity": _line(step_event(301), step=float("inf")),
    "step 'abc'": _line(step_event(301), step="abc"),
    "loss 1e999": _line(step_event(301)).replace('"loss": 2.5', '"loss": 1e999'),
    "NaN elapsed": _line(step_event(301), elapsed_seconds=float("nan")),
    "null elapsed": _line(step_event(301), elapsed_seconds=None),  # a step's time on the curves and the bar
    "1-D attention": _line(validation_event(300), samples=[{**_record(validation_event(300))["samples"][0],
                                                             "attention": [0.5, 0.5]}]),
    "attention of other tokens": _line(validation_event(300, attention=np.full((2, 2), 0.5))),
    "unknown kind": json.dumps({"kind": "party", "step": 1}),
    "a list": "[1, 2, 3]",
    "not JSON": "{\"kind\": \"step\", ",
    "unknown reason": json.dumps({**_record(FinishedEvent(FinishReason.COMPLETED, 1.0, 1, 1, 1, 1.0, 1.0, 0, "x")),
                                  "reason": "bored"}),
}


@pytest.mark.parametrize("name", list(DAMAGED))
def test_a_damaged_line_is_skipped_and_counted_and_every_other_line_is_read(tmp_path, name):
    write_log(tmp_path, 300, [DAMAGED[name]])
    with (tmp_path / METRICS_FILE).open("a", encoding="utf-8") as handle:
        handle.write(json.dumps(_record(step_event(302))) + "\n")
    read = read_log(tmp_path)
    assert read.skipped == 1 and read.offset == (tmp_path / METRICS_FILE).stat().st_size
    steps = [event.step for event in events_from_records(read.records) if isinstance(event, StepEvent)]
    assert steps == [*range(1, 301), 302]
    note = read.skipped_note(tmp_path)
    assert note.startswith(f"{tmp_path / METRICS_FILE}: 1 damaged line skipped (the first at byte ")


def test_every_record_of_a_log_written_by_the_trainer_is_accepted(tmp_path):
    write_log(tmp_path, 20, validation_every=5)
    with (tmp_path / METRICS_FILE).open("a", encoding="utf-8") as handle:
        for event in (validation_event(20, attention=None, tokens=(), source=("x",)),
                      validation_event(20, tokens=("a",), source=()),
                      FinishedEvent(FinishReason.TOKEN_BUDGET, 20.0, 1, 20, 1, 5.0, 900.0, 0, str(tmp_path))):
            handle.write(json.dumps(_record(event)) + "\n")
    read = read_log(tmp_path)
    assert read.skipped == 0 and len(read.records) == 1 + 20 + 4 + 3
    assert last_finish_reason(tmp_path) == FinishReason.TOKEN_BUDGET


def test_a_resume_drops_the_damaged_lines_and_the_steps_after_its_checkpoint_and_says_how_many(tmp_path):
    log = write_log(tmp_path, 30, [DAMAGED["step Infinity"], DAMAGED["step 'abc'"]], validation_every=10)
    new_start = {"source_language": "en", "target_language": "iso", "command": COMMAND + " --epochs 9"}
    repaired = log.truncate_after(20, new_start)
    assert repaired.skipped == 2 and "2 damaged lines skipped" in repaired.skipped_note(tmp_path)
    read = read_log(tmp_path)
    assert read.skipped == 0
    assert read.records[0] == {"kind": "start", **new_start}  # the resume's own options, for the next resume
    assert [r["step"] for r in read.records if r["kind"] == "step"] == list(range(1, 21))
    assert [r["step"] for r in read.records if r["kind"] == "validation"] == [10, 20]


def test_a_stored_command_that_cannot_be_parsed_is_refused_naming_the_log(tmp_path):
    folder = tmp_path / "run"
    folder.mkdir()
    MetricsLog(folder).start({"command": 'python -m engine train --task dates --scorer "additive'})
    with pytest.raises(StoredFileError, match=f"{folder / METRICS_FILE}: the command .* cannot be read"):
        stored_train_arguments(folder)
    from engine.__main__ import main

    assert main(["train", "--resume", "--out", str(folder)]) == 2


def _peak(function) -> int:
    tracemalloc.start()
    try:
        function()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_resuming_streams_the_log_in_memory_that_does_not_grow_with_it(tmp_path):
    """What a resume reads of the log (its first line, the lines it keeps, how the run ended) holds
    one line at a time: the peak is the same for a log of 0.5 MB and one of 4 MB (bench/bench_resume_memory.py
    measures 100 MB)."""
    peaks = []
    for steps in (1_500, 12_000):
        folder = tmp_path / f"log-{steps}"
        log = write_log(folder, 0)
        step_line, validation_line = _line(step_event(0)), _line(validation_event(0))
        with (folder / METRICS_FILE).open("a", encoding="utf-8") as handle:
            handle.writelines(step_line.replace('"step": 0', f'"step": {step}') + "\n" +
                              (validation_line.replace('"step": 0', f'"step": {step}') + "\n" if step % 500 == 0
                               else "") for step in range(1, steps + 1))
        size = (folder / METRICS_FILE).stat().st_size

        def resume(folder=folder, log=log, steps=steps):
            assert read_description(folder)["command"] == COMMAND
            log.truncate_after(steps // 2)
            assert last_finish_reason(folder) is None

        peaks.append((size, _peak(resume)))
    (small_size, small_peak), (big_size, big_peak) = peaks
    assert big_size > 7 * small_size
    assert big_peak < 2 * 1024**2 and big_peak < 1.5 * small_peak + 256 * 1024, peaks
