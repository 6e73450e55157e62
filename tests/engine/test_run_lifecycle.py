"""One run lifecycle for the command line and the app (engine.records.lifecycle): claim, prepare with
status, train, score a run that ended on its own (one rule), discard a folder it created and left empty;
torch's thread count owned by one module; a run's record read without PyTorch; a resumed run's earlier steps
replayed from its own log, and a replaced log said by the engine."""

from __future__ import annotations

import ast
import functools
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from engine.corpus.choice import CorpusChoice
from engine.corpus.tasks import dates
from engine.records.lifecycle import (
    RunOrder,
    RunReady,
    RunScored,
    RunStatus,
    _Preparing,
    run_lifecycle,
    should_score,
)
from engine.records.runs import RunFolder
from engine.settings.config import ModelShape, TrainConfig
from engine.settings.errors import ConfigError, DataError
from engine.training.events import (
    ENDED_ON_ITS_OWN,
    FinishedEvent,
    FinishReason,
    StepEvent,
    TrainControl,
    ValidationEvent,
)
from engine.training.metrics_log import METRICS_FILE, MetricsLog
from tests.source_tree import all_nodes, python_files

ROOT = Path(__file__).resolve().parents[2]


def _finished(reason: FinishReason) -> FinishedEvent:
    return FinishedEvent(reason=reason, best_bleu=1.0, best_epoch=1, steps=1, epochs_completed=1, seconds=1.0,
                         tokens_per_second=1.0, skipped_steps=0, model_folder="")


@pytest.mark.parametrize("reason", list(FinishReason))
def test_a_run_is_scored_only_when_it_ended_on_its_own(reason):
    assert should_score(_finished(reason), TrainControl()) == (reason in ENDED_ON_ITS_OWN)
    stopped = TrainControl()
    stopped.request_stop()
    assert not should_score(_finished(reason), stopped)  # a stop asked for is never scored
    assert not should_score(None, TrainControl())


def test_preparing_aside_reports_each_status_as_it_comes_and_hands_back_the_result_or_the_error():
    def prepare(on_status):
        on_status("reading: 10 lines (50 %), ETA 0:01")
        on_status("encoded 10 training pairs")
        return "job"

    for aside in (True, False):
        items = _Preparing().run(prepare, aside=aside)
        texts = []
        try:
            while True:
                texts.append(next(items).text)
        except StopIteration as stop:
            assert stop.value == "job"
        assert texts == ["reading: 10 lines (50 %), ETA 0:01", "encoded 10 training pairs"]

    def broken(on_status):
        raise ConfigError("too little data")

    for aside in (True, False):
        with pytest.raises(ConfigError, match="too little data"):
            list(_Preparing().run(broken, aside=aside))


def _set_num_threads_callers(folder: Path) -> list[str]:
    callers = []
    for path in python_files(folder.relative_to(ROOT).as_posix()):
        for node in all_nodes(path):
            if isinstance(node, ast.Attribute) and node.attr == "set_num_threads":
                callers.append(str(path.relative_to(ROOT)))
    return callers


def test_torch_threads_have_one_owner():
    assert sorted(set(_set_num_threads_callers(ROOT / "engine") + _set_num_threads_callers(ROOT / "gui"))) == [
        "engine/networks/threads.py"]


def test_reading_a_runs_record_imports_no_torch():
    script = ("import sys, engine.records.runs, engine.records.run_spec, engine.corpus.choice; "
              "print(sorted(m for m in ('torch', 'safetensors.torch') if m in sys.modules))")
    result = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"


def _step(step: int) -> StepEvent:
    return StepEvent(step=step, epoch=1, batch=step, batches_per_epoch=100, loss=1.0, tokens_per_second=1.0,
                     learning_rate=1e-3, skipped_steps=0, elapsed_seconds=float(step), eta_seconds=None)


def _validation(step: int) -> ValidationEvent:
    return ValidationEvent(step=step, epoch=1, valid_loss=1.0, bleu=float(step), chrf=1.0, exact_match=0.0,
                           samples=(), is_best=True, best_bleu=float(step), learning_rate=1e-3,
                           elapsed_seconds=float(step))


def _log(folder: Path, steps: int) -> MetricsLog:
    folder.mkdir(parents=True, exist_ok=True)
    log = MetricsLog(folder)
    log.start({"task": "dates"})
    for step in range(1, steps + 1):
        log.append(_step(step))
        if step % 5 == 0:
            log.append(_validation(step))
    return log


def test_a_runs_earlier_steps_are_replayed_from_its_own_log(tmp_path):
    run = RunFolder(tmp_path / "run")
    assert run.replay() == []  # no log, no checkpoint
    _log(run.path, 12)
    replayed = run.replay(until_step=10)
    assert [e.step for e in replayed if isinstance(e, StepEvent)] == list(range(1, 11))
    assert [e.step for e in replayed if isinstance(e, ValidationEvent)] == [5, 10]
    assert run.replay() == []  # without a checkpoint a resumed run starts at step 0: nothing earlier


def test_following_a_replaced_log_starts_again_and_says_so(tmp_path):
    run = RunFolder(tmp_path / "run")
    _log(run.path, 6)
    first = run.follow()
    assert not first.restarted and first.inode and len([e for e in first.events if isinstance(e, StepEvent)]) == 6
    same = run.follow(first.offset, known=first.inode)
    assert not same.restarted and same.events == [] and same.offset == first.offset
    (run.path / METRICS_FILE).unlink()  # a resumed run writes a new log, shorter than the offset read so far
    _log(run.path, 2)
    again = run.follow(first.offset, known=first.inode)
    assert again.restarted and [e.step for e in again.events if isinstance(e, StepEvent)] == [1, 2]
    assert not run.follow(again.offset, known=again.inode).restarted


# -- whole runs (they train: the slow tier) -------------------------------------------------------------------

@pytest.fixture
def small_dates(monkeypatch):
    monkeypatch.setattr(dates, "dates_split",
                        functools.partial(dates.dates_split, train_size=200, valid_size=10, test_size=10))


def _order(folder: Path, **changes) -> RunOrder:
    settings = dict(folder=folder, corpus=CorpusChoice.dates_task(),
                    model=ModelShape(scorer="dot", embedding_size=8).with_hidden_size(16),
                    train=TrainConfig(epochs=1, torch_threads=1))
    return RunOrder(**{**settings, **changes})


@pytest.mark.slow
@pytest.mark.parametrize("aside", [False, True])
def test_a_run_is_claimed_prepared_trained_and_scored_on_its_threads(tmp_path, small_dates, aside):
    torch.set_num_threads(2)
    seen_threads = []
    items = []
    for item in run_lifecycle(_order(tmp_path / "run", prepare_aside=aside), TrainControl()):
        seen_threads.append(torch.get_num_threads())
        items.append(item)
    kinds = [type(item) for item in items]
    assert kinds[0] is RunStatus and RunReady in kinds and kinds[-1] is RunScored
    assert kinds.index(RunReady) < kinds.index(StepEvent) < kinds.index(FinishedEvent) < kinds.index(RunScored)
    ready = next(item for item in items if isinstance(item, RunReady))
    assert ready.torch_threads == 1 and ready.resumed_at_step == 0 and set(seen_threads) == {1}
    assert torch.get_num_threads() == 2  # the process's count comes back
    assert RunFolder(tmp_path / "run").has_model() and items[-1].evaluation.count == 10


@pytest.mark.slow
def test_a_stopped_run_is_not_scored_and_keeps_its_checkpoint(tmp_path, small_dates):
    control = TrainControl()
    items = []
    for item in run_lifecycle(_order(tmp_path / "run", train=TrainConfig(epochs=3)), control):
        items.append(item)
        if isinstance(item, StepEvent):
            control.request_stop()
    assert not any(isinstance(item, RunScored) for item in items)
    assert items[-1].reason == FinishReason.STOPPED and RunFolder(tmp_path / "run").has_checkpoint()


def test_a_folder_the_run_created_and_left_empty_is_discarded_an_existing_one_kept(tmp_path):
    bad = tmp_path / "bad.tsv"
    bad.write_text("only one line\n", encoding="utf-8")
    order = _order(tmp_path / "new", corpus=CorpusChoice(corpus=bad))
    with pytest.raises(DataError):
        list(run_lifecycle(order, TrainControl()))
    assert not (tmp_path / "new").exists()
    (tmp_path / "kept").mkdir()
    with pytest.raises(DataError):
        list(run_lifecycle(_order(tmp_path / "kept", corpus=CorpusChoice(corpus=bad)), TrainControl()))
    assert (tmp_path / "kept").is_dir()
