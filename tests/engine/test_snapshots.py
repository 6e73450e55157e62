"""Weight snapshots of the last validations and checkpoint averaging."""

import pytest
import torch
from safetensors.torch import load_file

from engine.__main__ import main
from engine.models.bundle import load_model_folder
from engine.settings.errors import ModelFileError
from engine.training.snapshots import average_snapshots, list_snapshots, read_snapshot, save_snapshot
from engine.training.trainer import train
from tests.model_factory import tiny_job

pytestmark = pytest.mark.slow  # trains a model, opens the real window, runs a subprocess or fuzzes many cases


def test_a_run_keeps_its_last_snapshots_and_they_average_into_a_model_folder(tmp_path, capsys):
    run = tmp_path / "run"
    list(train(tiny_job(run, epochs=2, train_size=600, tie_embeddings=True, keep_snapshots=2, validate_every_steps=4)))
    files = list_snapshots(run)
    assert len(files) == 2  # only the last two are kept
    state, used = average_snapshots(run, 2)
    first, second = (load_file(path) for path in files)
    name = next(iter(state))
    assert first[name].dtype == torch.float16  # half the disk
    assert used == files and torch.allclose(state[name], (first[name].float() + second[name].float()) / 2)
    assert state[name].dtype == torch.float32
    assert main(["average", "--model", str(run), "--last", "2", "--out", str(tmp_path / "averaged")]) == 0
    averaged = load_model_folder(tmp_path / "averaged")
    assert averaged.info["averaged"]["count"] == 2
    assert averaged.translator.translate("29 Nov 2026").tokens
    assert main(["average", "--model", str(run), "--out", str(run)]) == 2  # never over the run's own model


def test_averaging_refuses_missing_or_mismatched_snapshots(tmp_path):
    with pytest.raises(ModelFileError, match="no weight snapshots"):
        average_snapshots(tmp_path, 3)
    save_snapshot(tmp_path, 1, {"w": torch.ones(2)}, keep=5)
    save_snapshot(tmp_path, 2, {"w": torch.ones(3)}, keep=5)
    with pytest.raises(ModelFileError, match="does not match"):
        average_snapshots(tmp_path, 2)


def test_snapshots_are_float16_unless_a_weight_lies_beyond_its_range(tmp_path):
    small = {"w": torch.tensor([1.0, -3.5, 0.1])}
    large = {"w": torch.tensor([1.0, 7.0e4]), "v": torch.ones(2)}
    first = save_snapshot(tmp_path, 10, small, keep=5)
    second = save_snapshot(tmp_path, 20, large, keep=5)
    assert read_snapshot(first)["w"].dtype == torch.float16
    assert torch.allclose(read_snapshot(first)["w"].float(), small["w"], rtol=2**-11)
    stored = read_snapshot(second)  # float16 would make 70,000 infinite: the snapshot keeps float32
    assert stored["w"].dtype == torch.float32 and torch.equal(stored["w"], large["w"])
