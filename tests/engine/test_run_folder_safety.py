"""A run never loses a model: no silent overwrite, one writer per folder, an atomic folder swap,
and Ctrl-C / SIGTERM as a clean stop with a truthful word on what can be resumed."""

from __future__ import annotations

import functools
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import torch

import engine.models.model_files
import engine.training.jobs
from engine.__main__ import main
from engine.corpus.tasks import dates
from engine.models.bundle import load_model_folder, save_model_folder
from engine.models.model_files import INCOMING_FOLDER, model_files_folder
from engine.training.checkpoint_state import checkpoint_step
from engine.training.run_lock import RunFolderError, RunFolderLock, claim_run_folder

pytestmark = pytest.mark.slow  # trains a model, opens the real window, runs a subprocess or fuzzes many cases

ROOT = Path(__file__).resolve().parents[2]
TINY = ["--task", "dates", "--scorer", "additive", "--epochs", "1", "--hidden-size", "16", "--embedding-size", "8"]


@pytest.fixture
def small_dates(monkeypatch):
    monkeypatch.setattr(engine.training.jobs.dates, "dates_split",
                        functools.partial(dates.dates_split, train_size=300, valid_size=20, test_size=20))


def test_a_new_run_into_a_folder_holding_a_model_is_refused_and_the_model_kept(tmp_path, small_dates, capsys):
    out = tmp_path / "model"
    assert main(["train", *TINY, "--out", str(out)]) == 0
    weights = (out / "model.safetensors").read_bytes()
    capsys.readouterr()
    assert main(["train", *TINY, "--scorer", "dot", "--out", str(out)]) == 2
    error = capsys.readouterr().err
    assert "already holds a trained model" in error and "--resume" in error and "--overwrite" in error
    assert (out / "model.safetensors").read_bytes() == weights
    assert load_model_folder(out).scorer == "additive"


def test_overwrite_replaces_the_model_and_discards_the_old_checkpoint(tmp_path, small_dates):
    out = tmp_path / "model"
    assert main(["train", *TINY, "--out", str(out)]) == 0
    assert main(["train", *TINY, "--scorer", "dot", "--overwrite", "--out", str(out)]) == 0
    assert load_model_folder(out).scorer == "dot"
    assert main(["train", *TINY, "--resume", "--overwrite", "--out", str(out)]) == 2


def test_a_second_writer_is_refused_with_the_first_ones_process_id(tmp_path):
    folder = tmp_path / "run"
    busy = rf"in use by another training run \(process {os.getpid()}\)"
    with claim_run_folder(folder), pytest.raises(RunFolderError, match=busy):
        RunFolderLock(folder).acquire()
    with claim_run_folder(folder) as lock:  # released on leaving: the folder can be claimed again
        assert lock.held


def test_the_cli_refuses_a_run_into_a_folder_another_run_holds(tmp_path, small_dates, capsys):
    out = tmp_path / "model"
    with claim_run_folder(out):
        assert main(["train", *TINY, "--out", str(out)]) == 2
    assert "in use by another training run" in capsys.readouterr().err
    assert not (out / "config.json").exists()


class _Crash(Exception):
    pass


def _model_weight(folder: Path) -> float:
    return float(next(iter(load_model_folder(folder).translator.model.parameters())).detach().flatten()[0])


def test_a_crash_at_any_write_boundary_leaves_the_old_or_the_new_model_loadable(tmp_path, dates_models,
                                                                               monkeypatch):
    translator = load_model_folder(dates_models["additive"]).translator
    folder = tmp_path / "model"
    metadata = {"source_language": "en", "target_language": "iso"}

    def save() -> None:
        save_model_folder(folder, translator.model, translator.source_tokenizer, translator.target_tokenizer, metadata)

    def shift(amount: float) -> None:
        with torch.no_grad():
            for parameter in translator.model.parameters():
                parameter.add_(amount)

    save()
    old = _model_weight(folder)
    new = old + 1.0
    real = {name: getattr(os, name) for name in ("replace", "unlink", "rmdir", "fsync")}
    boundary = 0
    while True:
        calls = {"count": 0}

        def crashing(name, *args, _calls=calls, _at=boundary, **kwargs):
            _calls["count"] += 1
            if _calls["count"] == _at + 1:
                raise _Crash(name)
            return real[name](*args, **kwargs)

        shift(1.0)  # the new model
        with monkeypatch.context() as patch:
            for name in real:
                patch.setattr(os, name, functools.partial(crashing, name))
            try:
                save()
                finished = True
            except _Crash:
                finished = False
        loaded = _model_weight(folder)
        assert loaded in (pytest.approx(old), pytest.approx(new)), f"a crash at write boundary {boundary}"
        if finished:
            assert loaded == pytest.approx(new)
            break
        shift(-1.0)  # back to the old model, saved cleanly, for the next boundary
        save()
        assert _model_weight(folder) == pytest.approx(old)
        boundary += 1
    assert boundary > 10  # every file write, the commit rename and the clean-up were each interrupted
    assert not (folder / INCOMING_FOLDER).exists()
    assert model_files_folder(folder) == folder


def test_readers_take_a_committed_replacement_before_it_is_copied_into_place(tmp_path, dates_models):
    bundle = load_model_folder(dates_models["additive"])
    translator = bundle.translator
    folder = tmp_path / "model"
    metadata = {"source_language": "en", "target_language": "iso"}
    save_model_folder(folder, translator.model, translator.source_tokenizer, translator.target_tokenizer, metadata)
    # A committed set that was never copied over (a crash right after the commit rename).
    incoming = folder / INCOMING_FOLDER
    save_model_folder(tmp_path / "other", translator.model, translator.source_tokenizer, translator.target_tokenizer,
                      dict(metadata, notes="new"))
    incoming.mkdir()
    for name in engine.models.model_files.MODEL_FILES:
        (incoming / name).write_bytes((tmp_path / "other" / name).read_bytes())
    (folder / "model.safetensors").write_bytes(b"torn")  # the copy had begun
    assert load_model_folder(folder).info["notes"] == "new"
    engine.models.model_files.settle_model_folder(folder)  # the next writer finishes the copy
    assert not incoming.exists() and load_model_folder(folder).info["notes"] == "new"


@pytest.mark.parametrize("which", ["SIGINT", "SIGTERM"])
def test_a_stop_signal_checkpoints_at_the_current_batch_and_says_what_resumes(tmp_path, which):
    out = tmp_path / "run"
    command = [sys.executable, "-m", "engine", "train", "--task", "dates", "--scorer", "additive", "--epochs", "50",
               "--hidden-size", "32",
               "--embedding-size", "16", "--threads", "1", "--out", str(out)]
    process = subprocess.Popen(command, cwd=ROOT, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    seen = []
    for line in process.stderr:  # wait until training is under way (before the first validation)
        seen.append(line)
        if "[train] epoch 1 batch" in line or time.monotonic() > deadline:
            break
    process.send_signal(getattr(signal, which))
    _, rest = process.communicate(timeout=120)
    output = "".join(seen) + rest
    assert process.returncode == 130, output
    step = checkpoint_step(out)
    assert step is not None and step > 0
    assert f"the checkpoint at step {step:,}" in output and "--resume" in output
    assert "[valid] epoch 2" not in output  # it stopped inside the first epoch instead of running on


def test_an_interrupt_before_any_checkpoint_says_there_is_nothing_to_resume(tmp_path, small_dates, monkeypatch,
                                                                           capsys):
    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr("engine.records.lifecycle.prepare_job", interrupted)
    assert main(["train", *TINY, "--out", str(tmp_path / "run")]) == 130
    assert "nothing to resume" in capsys.readouterr().err


@pytest.mark.skipif(not hasattr(signal, "SIGUSR1"), reason="SIGUSR1 is POSIX only")
def test_sigusr1_pauses_the_run_and_its_clock_and_resumes_it(tmp_path):
    out = tmp_path / "run"
    command = [sys.executable, "-m", "engine", "train", "--task", "dates", "--scorer", "additive", "--epochs", "50",
               "--hidden-size", "32",
               "--embedding-size", "16", "--threads", "1", "--out", str(out)]
    process = subprocess.Popen(command, cwd=ROOT, stderr=subprocess.PIPE, text=True)
    progress = []  # (wall clock, the run's own elapsed seconds) of each progress line

    def read_until(text: str) -> str:
        for line in process.stderr:
            if "elapsed " in line:
                minutes, seconds = line.split("elapsed ")[1].split()[0].split(":")
                progress.append((time.monotonic(), 60 * int(minutes) + int(seconds)))
            if text in line:
                return line
        raise AssertionError(f"{text!r} never came")

    read_until("[train] epoch 1 batch")
    before = progress[-1]
    process.send_signal(signal.SIGUSR1)
    read_until("[train] paused")
    time.sleep(5)
    process.send_signal(signal.SIGUSR1)
    read_until("[train] resumed")
    read_until("[train] epoch")
    after = progress[-1]
    process.send_signal(signal.SIGINT)
    _, rest = process.communicate(timeout=120)
    assert process.returncode == 130
    wall, clock = after[0] - before[0], after[1] - before[1]
    assert wall - clock >= 3  # the pause did not count against the run's time
    assert "the checkpoint at step" in rest


def test_resume_with_options_that_contradict_the_run_is_refused_naming_each_difference(tmp_path, small_dates,
                                                                                     capsys):
    out = tmp_path / "run"
    assert main(["train", *TINY, "--out", str(out)]) == 0
    capsys.readouterr()
    more = ["--task", "dates", "--epochs", "2", "--embedding-size", "8"]
    assert main(["train", *more, "--hidden-size", "32", "--scorer", "dot", "--resume", "--out", str(out)]) == 2
    error = capsys.readouterr().err
    assert "scorer additive (asked: dot)" in error and "encoder_hidden_size 16 (asked: 32)" in error
    assert main(["train", *more, "--hidden-size", "16", "--scorer", "additive", "--resume", "--out", str(out)]) == 0
    assert checkpoint_step(out) > 0


@pytest.mark.parametrize("edit, reason", [
    (lambda state: [], "state.json: the top level: expected an object, got a list"),
    (lambda state: {**state, "progress": {**state["progress"], "step": 10**6}}, "changed after it was written"),
    (lambda state: {k: v for k, v in state.items() if k != "digest"} | {"progress": {"step": 1}},
     "progress: 'batch_in_epoch' is missing"),
    (lambda state: {k: v for k, v in state.items() if k != "digest"}, "has no digest"),
])
def test_an_edited_checkpoint_state_is_refused_with_the_reason(tmp_path, small_dates, capsys, edit, reason):
    import json

    out = tmp_path / "run"
    assert main(["train", *TINY, "--out", str(out)]) == 0
    path = out / "checkpoint" / "state.json"
    path.write_text(json.dumps(edit(json.loads(path.read_text()))))
    capsys.readouterr()
    assert main(["train", *TINY[:4], "--epochs", "2", *TINY[6:], "--resume", "--out", str(out)]) == 2
    assert reason in capsys.readouterr().err


def test_a_full_disk_while_checkpointing_is_one_line_and_the_last_checkpoint_stays_intact(tmp_path, small_dates,
                                                                                        monkeypatch, capsys):
    import errno

    import engine.training.checkpoint

    out = tmp_path / "run"
    assert main(["train", *TINY, "--out", str(out)]) == 0
    state = (out / "checkpoint" / "state.json").read_bytes()

    def full(path, data):
        raise OSError(errno.ENOSPC, "No space left on device", str(path))

    monkeypatch.setattr(engine.training.checkpoint, "write_bytes_atomic", full)
    capsys.readouterr()
    assert main(["train", *TINY[:4], "--epochs", "2", *TINY[6:], "--resume", "--out", str(out)]) == 2
    error = capsys.readouterr().err
    assert "No space left on device" in error and "Traceback" not in error and len(error.strip().splitlines()) >= 1
    assert (out / "checkpoint" / "state.json").read_bytes() == state
    monkeypatch.undo()
    assert load_model_folder(out).scorer == "additive"


def test_resume_needs_no_other_flag_and_a_given_one_overrides_the_stored_value(tmp_path, small_dates, capsys):
    out = tmp_path / "run"
    assert main(["train", *TINY, "--out", str(out)]) == 0
    first = checkpoint_step(out)
    assert main(["train", "--resume", "--epochs", "2", "--out", str(out)]) == 0  # scorer, sizes, task: stored
    assert checkpoint_step(out) > first
    assert load_model_folder(out).model_config.encoder_hidden_size == 16
    capsys.readouterr()
    stranger = tmp_path / "app-run"
    stranger.mkdir()
    assert main(["train", "--resume", "--out", str(stranger)]) == 2
    assert "records no run to continue" in capsys.readouterr().err
