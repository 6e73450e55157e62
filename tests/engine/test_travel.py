"""Back through training: a run's weight points, the one nearest a curve's step, and a snapshot
loaded read-only — or refused with the reason (engine/records/travel.py)."""

from __future__ import annotations

import shutil

import pytest
import torch
from safetensors.torch import load_file, save_file

from engine.models.bundle import load_model_folder
from engine.records.travel import (
    SAVED,
    SNAPSHOT,
    SnapshotError,
    WeightPoint,
    load_point,
    nearest_point,
    snapshot_bytes,
    weight_points,
)
from tests.model_factory import train_tiny_model

pytestmark = pytest.mark.slow  # trains a model, opens the real window, runs a subprocess or fuzzes many cases


@pytest.fixture(scope="module")
def run_folder(tmp_path_factory):
    """A tiny dates run that keeps the weights of its last three validations (one per epoch)."""
    return train_tiny_model(tmp_path_factory.mktemp("travel") / "run", epochs=4, train_size=1200, keep_snapshots=3)


def test_nearest_point_of_a_step():
    points = [WeightPoint(100, SNAPSHOT, None), WeightPoint(200, SNAPSHOT, None), WeightPoint(200, SAVED, None)]
    assert nearest_point(points, 140).step == 100 and nearest_point(points, 160).step == 200
    assert nearest_point(points, 200).kind == SNAPSHOT  # that validation's own weights
    assert nearest_point(points, 10_000).step == 200 and nearest_point([], 5) is None
    assert WeightPoint(2000, SNAPSHOT, None).label == "model at step 2,000"
    assert snapshot_bytes(2_500_000, float16=True) == 5_000_000 and snapshot_bytes(10, float16=False) == 40


def test_the_runs_points_are_its_kept_snapshots_and_its_saved_model(run_folder):
    points = weight_points(run_folder)
    snapshots = [p for p in points if p.kind == SNAPSHOT]
    assert len(snapshots) == 3 and [p.step for p in snapshots] == sorted(p.step for p in snapshots)
    assert points[-1].kind == SAVED and points[-1].path == run_folder


def test_a_snapshot_loads_its_own_weights_and_writes_nothing(run_folder):
    first = weight_points(run_folder)[0]
    before = sorted((p.name, p.stat().st_mtime_ns) for p in run_folder.rglob("*") if p.is_file())
    bundle = load_point(run_folder, first)
    stored = load_file(str(first.path))
    state = bundle.translator.model.state_dict()
    assert all(torch.equal(state[name], tensor) for name, tensor in stored.items())
    saved = load_model_folder(run_folder).translator.model.state_dict()
    assert any(not torch.equal(saved[name], tensor) for name, tensor in stored.items())  # an earlier model
    assert bundle.translator.translate("29 Nov 2026").tokens  # it decodes
    assert sorted((p.name, p.stat().st_mtime_ns) for p in run_folder.rglob("*") if p.is_file()) == before


def test_a_float16_snapshot_is_read(run_folder, tmp_path):
    folder = tmp_path / "run"
    shutil.copytree(run_folder, folder)
    point = weight_points(folder)[0]
    save_file({k: v.half() for k, v in load_file(str(point.path)).items()}, str(point.path))
    bundle = load_point(folder, point)
    assert bundle.translator.model.state_dict()[next(iter(load_file(str(point.path))))].dtype == torch.float32


@pytest.mark.parametrize("damage, reason", [
    (lambda path: path.write_bytes(path.read_bytes()[:100]), "not a valid safetensors file"),
    (lambda path: path.write_bytes(b"\x80\x04" + path.read_bytes()), "is a pickle"),
    (lambda path: path.unlink(), "is gone"),
    (lambda path: save_file({k: torch.full_like(v, float("nan")) for k, v in load_file(str(path)).items()},
                            str(path)), "NaN or infinite"),
    (lambda path: save_file({k: v[..., :1].contiguous() for k, v in load_file(str(path)).items()}, str(path)),
     "has shape"),
    (lambda path: save_file({"x": torch.zeros(2)}, str(path)), "is not this model's"),
])
def test_a_damaged_or_foreign_snapshot_is_refused_with_the_reason(run_folder, tmp_path, damage, reason):
    folder = tmp_path / "run"
    shutil.copytree(run_folder, folder)
    point = weight_points(folder)[0]
    damage(point.path)
    with pytest.raises(SnapshotError, match=reason):
        load_point(folder, point)
