"""Which weight snapshots a run keeps: the newest few in a row (what averaging reads) and older ones
thinned evenly over the whole run (what going back through training needs), and what they cost on disk
(engine/training/snapshots.py, engine/training/snapshot_disk.py)."""

from __future__ import annotations

import numpy as np
import torch

from engine.settings.config import ModelShape
from engine.training.snapshot_disk import megabytes, snapshot_cost
from engine.training.snapshots import RECENT_KEPT, list_snapshots, save_snapshot, snapshots_to_drop


def _kept(validations: int, every: int, keep: int) -> list[int]:
    steps: list[int] = []
    for validation in range(1, validations + 1):
        steps.append(validation * every)
        for dropped in snapshots_to_drop(steps, keep):
            steps.remove(dropped)
    return steps


def test_a_long_run_keeps_snapshots_spread_over_the_whole_run_and_its_last_few_in_a_row():
    kept = _kept(100, 100, 20)
    assert len(kept) == 20 and kept[0] == 100  # the first validation's stays: a click near the start finds it
    assert kept[-RECENT_KEPT:] == [9_600, 9_700, 9_800, 9_900, 10_000]  # averaging reads these
    older_gaps = np.diff(kept[: -RECENT_KEPT + 1])
    even = (kept[-RECENT_KEPT] - kept[0]) / (20 - RECENT_KEPT)
    assert older_gaps.max() <= 1.5 * even  # no stretch of the run left without weights near it


def test_a_run_with_few_snapshots_keeps_its_last_ones_as_before():
    assert _kept(10, 7, 3) == [56, 63, 70] and _kept(4, 10, 12) == [10, 20, 30, 40]
    assert snapshots_to_drop([10, 20], 0) == []  # keeping none writes none: nothing to choose


def test_the_files_kept_on_disk_follow_the_same_choice(tmp_path):
    for step in range(10, 310, 10):
        save_snapshot(tmp_path, step, {"w": torch.full((3,), float(step))}, keep=8)
    steps = [int(path.stem.split("-")[-1]) for path in list_snapshots(tmp_path)]
    assert steps == _kept(30, 10, 8) and steps[0] == 10 and steps[-1] == 300


def test_the_disk_cost_is_every_stored_weight_in_float16_times_the_count():
    from engine.networks.model import build_model

    shape = ModelShape(embedding_size=64, tie_embeddings=True).with_hidden_size(128)
    model = build_model(shape.with_vocabularies(500, 300))
    stored = sum(tensor.numel() for tensor in model.state_dict().values())  # a tied matrix under both names
    cost = snapshot_cost(shape, 500, 300, 12)
    assert cost.weights == stored and cost.snapshot_bytes == 2 * stored and cost.total_bytes == 12 * 2 * stored
    assert megabytes(1_234_567) == "1.2 MB" and megabytes(121_000_000) == "121 MB" and megabytes(2 * 10**9) == "2.0 GB"
