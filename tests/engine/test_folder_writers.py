"""Every command that writes a model folder claims it as ``train`` does: a folder that holds a model
or a run's checkpoint is refused unless ``--overwrite`` (then replaced as one), and a folder a running
training holds is refused outright. Weight snapshots carry their digest. Options that a command
would drop are refused instead."""

from __future__ import annotations

import json
import shutil

import pytest
import torch
from safetensors.torch import save_file

from engine.__main__ import main
from engine.models.bundle import load_model_folder
from engine.settings.errors import StoredFileError
from engine.training.checkpoint_state import has_checkpoint
from engine.training.metrics_log import METRICS_FILE
from engine.training.run_lock import claim_run_folder
from engine.training.snapshots import average_snapshots, list_snapshots, read_snapshot, save_snapshot
from engine.training.trainer import train
from tests.model_factory import tiny_job

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def snapshot_run(tmp_path_factory):
    run = tmp_path_factory.mktemp("runs") / "run"
    list(train(tiny_job(run, epochs=1, train_size=300, hidden=16, keep_snapshots=2, validate_every_steps=2)))
    assert len(list_snapshots(run)) == 2
    return run


def _trained_elsewhere(tmp_path, snapshot_run):
    other = tmp_path / "other"
    shutil.copytree(snapshot_run, other)
    return other


def test_average_refuses_a_folder_holding_a_model_unless_told_to_overwrite_it(tmp_path, snapshot_run, capsys):
    other = _trained_elsewhere(tmp_path, snapshot_run)
    before = (other / "model.safetensors").read_bytes()
    capsys.readouterr()
    assert main(["average", "--model", str(snapshot_run), "--last", "2", "--out", str(other)]) == 2
    error = capsys.readouterr().err
    assert "already holds a trained model" in error and "--overwrite" in error and "--resume" not in error
    assert (other / "model.safetensors").read_bytes() == before and has_checkpoint(other)
    assert main(["average", "--model", str(snapshot_run), "--last", "2", "--out", str(other), "--overwrite"]) == 0
    assert load_model_folder(other).info["averaged"]["count"] == 2
    assert not has_checkpoint(other) and not (other / METRICS_FILE).exists()  # the old run cannot be resumed there


def test_average_refuses_a_folder_that_a_running_training_holds(tmp_path, snapshot_run, capsys):
    busy = tmp_path / "busy"
    with claim_run_folder(busy):
        for flags in ([], ["--overwrite"]):
            capsys.readouterr()
            assert main(["average", "--model", str(snapshot_run), "--out", str(busy), *flags]) == 2
            assert "in use by another training run" in capsys.readouterr().err
    assert not (busy / "config.json").exists()
    assert main(["average", "--model", str(tmp_path / "missing"), "--out", str(tmp_path / "new")]) == 2
    assert not (tmp_path / "new").exists()  # a refused average leaves no folder behind


def test_evaluate_record_refuses_a_model_folder_a_running_training_holds(tmp_path, snapshot_run, capsys):
    folder = _trained_elsewhere(tmp_path, snapshot_run)
    config = (folder / "config.json").read_bytes()
    with claim_run_folder(folder, resume=True):
        capsys.readouterr()
        assert main(["evaluate", "--model", str(folder), "--task", "dates", "--long-set", "--record"]) == 2
        assert "in use by another training run" in capsys.readouterr().err
    assert (folder / "config.json").read_bytes() == config


def test_a_changed_snapshot_is_refused_and_one_of_the_previous_version_still_averages(tmp_path):
    weights = {"w": torch.arange(6, dtype=torch.float32).reshape(2, 3)}
    path = save_snapshot(tmp_path, 4, weights, keep=5)
    assert torch.equal(read_snapshot(path)["w"], weights["w"])
    data = bytearray(path.read_bytes())
    data[-1] ^= 0x40  # a value changed in place
    path.write_bytes(bytes(data))
    with pytest.raises(StoredFileError, match="changed after it was written"):
        average_snapshots(tmp_path, 1)
    legacy = tmp_path / "checkpoint" / "snapshots" / "step-00000009.safetensors"
    save_file({"w": weights["w"] + 2}, legacy)  # no metadata: as the previous version wrote them
    state, used = average_snapshots(tmp_path, 1)
    assert used == [legacy] and torch.equal(state["w"], weights["w"] + 2)
    save_file({"w": torch.full((2, 3), float("nan"))}, legacy)
    with pytest.raises(StoredFileError, match="NaN or infinite"):
        average_snapshots(tmp_path, 1)


def test_force_target_refuses_prefix_and_attend_instead_of_dropping_them(tmp_path, capsys):
    for steering in (["--prefix", "11"], ["--attend", "1:0"]):
        capsys.readouterr()
        assert main(["translate", "--model", str(tmp_path), "--force-target", "2019-12-11", *steering, "x"]) == 2
        error = capsys.readouterr().err
        assert "--force-target" in error and "no --prefix or --attend" in error


def test_an_averaged_folder_records_the_snapshots_it_used(tmp_path, snapshot_run):
    out = tmp_path / "averaged"
    assert main(["average", "--model", str(snapshot_run), "--last", "2", "--out", str(out)]) == 0
    info = json.loads((out / "config.json").read_text())
    assert info["averaged"]["snapshots"] == [p.name for p in list_snapshots(snapshot_run)]
