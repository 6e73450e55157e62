"""A checkpoint is committed in one step: a crash between any two writes of a save leaves the
previous checkpoint or the new one, whole. It is read whole or refused with one line — its schema,
its digest (required) and its tensors checked — and a checkpoint of the previous format still
resumes."""

from __future__ import annotations

import functools
import hashlib
import json
import os
import shutil
import tempfile
from pathlib import Path

import pytest
import torch
from safetensors.torch import save as save_safetensors

import engine.training.jobs
from engine.__main__ import main
from engine.corpus.tasks import dates
from engine.files.atomic import write_bytes_atomic, write_json_atomic
from engine.files.stored import canonical_digest
from engine.networks.model import build_model
from engine.settings.config import ModelConfig
from engine.settings.errors import StoredFileError
from engine.training.checkpoint import (
    Checkpoint,
    checkpoint_tensors,
    load_checkpoint,
    restore_training_state,
    save_checkpoint,
)
from engine.training.checkpoint_state import CHECKPOINT_FOLDER, LEGACY_TENSORS_FILE, STATE_FILE, checkpoint_step

pytestmark = pytest.mark.slow  # trains a model, opens the real window, runs a subprocess or fuzzes many cases

TINY = ["--task", "dates", "--scorer", "additive", "--epochs", "1", "--hidden-size", "16", "--embedding-size", "8",
        "--threads", "1"]


def save_legacy_checkpoint(run_folder: Path, checkpoint: Checkpoint) -> None:
    """The checkpoint as the previous version wrote it (state.safetensors, then state.json holding its
    sha256 and a digest of itself) — the format of runs that may still be resumed."""
    folder = Path(run_folder) / CHECKPOINT_FOLDER
    folder.mkdir(parents=True, exist_ok=True)
    data, optimizer_plain = checkpoint_tensors(checkpoint)
    write_bytes_atomic(folder / LEGACY_TENSORS_FILE, data)
    state = {"sha256": hashlib.sha256(data).hexdigest(), "optimizer": optimizer_plain, "progress": checkpoint.progress}
    digest = hashlib.sha256(json.dumps(state, sort_keys=True, ensure_ascii=False).encode("utf-8")).hexdigest()
    write_json_atomic(folder / STATE_FILE, dict(state, digest=digest))


def _parts(step: int):
    """A small model, its optimizer (one step taken) and scheduler, and a checkpoint of them at ``step``."""
    config = ModelConfig(src_vocab_size=20, tgt_vocab_size=20, embedding_size=4, encoder_hidden_size=4,
                         decoder_hidden_size=4, attention_size=4)
    model = build_model(config, seed=step)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    scheduler = torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer, mode="max")
    sum(p.sum() for p in model.parameters()).backward()
    optimizer.step()
    progress = {"step": step, "epoch": 0, "batch_in_epoch": step, "skipped": 0, "best_bleu": -1.0,
                "best_valid_loss": float("inf"), "best_epoch": 0, "epochs_without_improvement": 0,
                "train_seconds": 1.5, "train_tokens": 10 * step, "history": [], "elapsed_seconds": 2.0,
                "scheduler": scheduler.state_dict()}
    checkpoint = Checkpoint(model.state_dict(), optimizer.state_dict(), torch.get_rng_state(), progress)
    return model, optimizer, scheduler, checkpoint


class _Crash(Exception):
    pass


WRITES = [("os", "replace"), ("os", "unlink"), ("os", "fsync"), ("os", "rename"), ("tempfile", "mkstemp")]


@pytest.mark.parametrize("previous", ["version 2", "the format before"])
def test_a_crash_between_any_two_writes_leaves_the_old_or_the_new_checkpoint(tmp_path, monkeypatch, previous):
    writer = save_checkpoint if previous == "version 2" else save_legacy_checkpoint
    old, new = _parts(3)[3], _parts(7)[3]
    modules = {"os": os, "tempfile": tempfile}
    real = {(module, name): getattr(modules[module], name) for module, name in WRITES}
    real[("os", "fsync")] = lambda descriptor: None  # what is tested is the order of the writes, not the disk
    monkeypatch.setattr(os, "fsync", real[("os", "fsync")])
    boundary = 0
    while True:
        run = tmp_path / f"run-{boundary}"
        writer(run, old)
        calls = {"count": 0}

        def crashing(key, *args, _calls=calls, _at=boundary, **kwargs):
            _calls["count"] += 1
            if _calls["count"] == _at + 1:
                raise _Crash(key)
            return real[key](*args, **kwargs)

        with monkeypatch.context() as patch:
            for module, name in WRITES:
                patch.setattr(modules[module], name, functools.partial(crashing, (module, name)))
            try:
                save_checkpoint(run, new)
                finished = True
            except _Crash:
                finished = False
        loaded = load_checkpoint(run)  # whole, whichever it is
        assert loaded.progress["step"] in (3, 7), f"a crash at write {boundary}"
        which = new if loaded.progress["step"] == 7 else old
        assert all(torch.equal(loaded.model_state[name], tensor) for name, tensor in which.model_state.items())
        if finished:
            assert loaded.progress["step"] == 7
            break
        save_checkpoint(run, new)  # the next save after a crash completes and tidies up
        assert checkpoint_step(run) == 7
        assert sorted(p.name for p in (run / CHECKPOINT_FOLDER).iterdir()) == [
            STATE_FILE, f"tensors-{json.loads((run / CHECKPOINT_FOLDER / STATE_FILE).read_text())['tensors']['file'][8:]}"]
        boundary += 1
    assert boundary >= 9  # each write, the commit rename and the clean-up were each interrupted


def test_a_checkpoint_of_the_format_before_still_loads_into_the_model(tmp_path):
    model, optimizer, scheduler, checkpoint = _parts(5)
    save_legacy_checkpoint(tmp_path, checkpoint)
    assert checkpoint_step(tmp_path) == 5
    fresh_model, fresh_optimizer, fresh_scheduler, _ = _parts(1)
    progress = restore_training_state(load_checkpoint(tmp_path), fresh_model, fresh_optimizer, fresh_scheduler,
                                      tmp_path)
    assert progress["step"] == 5 and "scheduler" not in progress
    for mine, theirs in zip(fresh_model.parameters(), model.parameters(), strict=True):
        assert torch.equal(mine, theirs)


def test_a_checkpoint_that_does_not_fit_the_model_is_refused_before_anything_is_loaded(tmp_path):
    _, _, _, checkpoint = _parts(5)
    save_checkpoint(tmp_path, checkpoint)
    config = ModelConfig(src_vocab_size=20, tgt_vocab_size=20, embedding_size=6, encoder_hidden_size=4,
                         decoder_hidden_size=4, attention_size=4)
    model = build_model(config)
    optimizer = torch.optim.Adam(model.parameters())
    before = [p.detach().clone() for p in model.parameters()]
    with pytest.raises(StoredFileError, match="does not fit this run's model: encoder.embedding.weight has shape"):
        restore_training_state(load_checkpoint(tmp_path), model, optimizer,
                               torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer), tmp_path)
    assert all(torch.equal(a, b) for a, b in zip(before, model.parameters(), strict=True))


def _edit(run: Path, change) -> None:
    path = run / CHECKPOINT_FOLDER / STATE_FILE
    state = json.loads(path.read_text())
    change(state)
    body = {k: v for k, v in state.items() if k != "digest"}
    if "digest" in state:  # the edit is made whole: its digest recomputed, as an editor could
        state["digest"] = canonical_digest(body)
    path.write_text(json.dumps(state))


def _group(state):
    return state["optimizer"]["param_groups"][0]


EDITS = {
    "no digest": (lambda s: s.pop("digest"), "has no digest"),
    "lr": (lambda s: _group(s).update(lr="fast"), "param_groups/0/lr: expected a number"),
    "betas": (lambda s: _group(s).update(betas=[0.9]), "betas: must hold exactly 2 items"),
    "params": (lambda s: _group(s).update(params=["a"]), "params/0: expected an integer"),
    "params missing": (lambda s: _group(s).update(params=[0]), "which no parameter group lists"),
    "history": (lambda s: s["progress"].update(history={"bleu": 1}), "history: expected a list"),
    "elapsed_seconds": (lambda s: s["progress"].update(elapsed_seconds="soon"), "elapsed_seconds: expected a number"),
    "best_bleu": (lambda s: s["progress"].update(best_bleu=float("inf")), "best_bleu: must be a finite number"),
    "request.model": (lambda s: s["progress"]["request"].update(model=[]), "request/model: expected an object"),
    "scheduler.best": (lambda s: s["progress"]["scheduler"].update(best="x"), "scheduler/best: expected a number"),
    "step": (lambda s: s["progress"].update(step=True), "progress/step: expected an integer"),
    "tensors file": (lambda s: s["tensors"].update(file="../../etc/passwd"), "tensors/file"),
}


@pytest.fixture(scope="module")
def trained_run(tmp_path_factory):
    small = functools.partial(dates.dates_split, train_size=300, valid_size=20, test_size=20)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(engine.training.jobs.dates, "dates_split", small)
        run = tmp_path_factory.mktemp("trained") / "run"
        assert main(["train", *TINY, "--out", str(run)]) == 0
    return run


@pytest.fixture
def small_dates(monkeypatch):
    monkeypatch.setattr(engine.training.jobs.dates, "dates_split",
                        functools.partial(dates.dates_split, train_size=300, valid_size=20, test_size=20))


@pytest.mark.slow
@pytest.mark.parametrize("name", list(EDITS))
def test_an_edited_or_mistyped_checkpoint_is_refused_in_one_line(tmp_path, trained_run, small_dates, capsys, name):
    change, reason = EDITS[name]
    run = tmp_path / "run"
    shutil.copytree(trained_run, run)
    _edit(run, change)
    capsys.readouterr()
    assert main(["train", "--resume", "--epochs", "2", "--out", str(run)]) == 2
    error = capsys.readouterr().err
    assert reason in error and "Traceback" not in error, error
    assert [line for line in error.splitlines() if "error" in line] == [error.strip().splitlines()[-1]]
    with pytest.raises(StoredFileError):
        load_checkpoint(run)


@pytest.mark.slow
def test_a_run_checkpointed_in_the_format_before_resumes_and_is_saved_in_version_2(tmp_path, trained_run,
                                                                                   small_dates):
    run = tmp_path / "run"
    shutil.copytree(trained_run, run)
    folder = run / CHECKPOINT_FOLDER
    checkpoint = load_checkpoint(run)
    for stale in folder.glob("tensors-*"):
        stale.unlink()
    save_legacy_checkpoint(run, checkpoint)
    assert "format_version" not in json.loads((folder / STATE_FILE).read_text())
    step = checkpoint_step(run)
    assert main(["train", "--resume", "--epochs", "2", "--out", str(run)]) == 0
    assert checkpoint_step(run) > step
    assert json.loads((folder / STATE_FILE).read_text())["format_version"] == 2
    assert not (folder / LEGACY_TENSORS_FILE).exists()


def test_a_torn_pair_of_the_format_before_is_refused_with_the_reason(tmp_path):
    save_legacy_checkpoint(tmp_path, _parts(3)[3])
    (tmp_path / CHECKPOINT_FOLDER / LEGACY_TENSORS_FILE).write_bytes(save_safetensors({"rng": torch.zeros(3)}))
    with pytest.raises(StoredFileError, match="sha256 differs"):
        load_checkpoint(tmp_path)


@pytest.mark.slow
def test_a_tokenizer_swapped_beside_the_checkpoint_is_refused_on_resume(tmp_path, trained_run, small_dates, capsys):
    run = tmp_path / "run"
    shutil.copytree(trained_run, run)
    folder = run / CHECKPOINT_FOLDER
    assert json.loads((folder / STATE_FILE).read_text())["tokenizers"] == [
        hashlib.sha256((folder / name).read_bytes()).hexdigest() for name in ("src.model", "tgt.model")]
    (folder / "src.model").write_bytes((folder / "tgt.model").read_bytes())
    capsys.readouterr()
    assert main(["train", "--resume", "--epochs", "2", "--out", str(run)]) == 2
    assert "src.model is not the tokenizer the checkpoint" in capsys.readouterr().err
