"""Optimizer settings that fit the schema's types but not Adam's domain (a learning rate of 1e308, betas of
1, eps 0 beside a huge weight decay) are refused when the checkpoint is read, in one line — never a
traceback or a run whose first step overflows."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch

from engine.files.stored import with_digest
from engine.networks.model import build_model
from engine.settings.config import ModelConfig
from engine.settings.errors import StoredFileError
from engine.training.checkpoint import Checkpoint, load_checkpoint, save_checkpoint
from engine.training.checkpoint_state import CHECKPOINT_FOLDER, STATE_FILE


def _saved(run: Path) -> None:
    config = ModelConfig(src_vocab_size=20, tgt_vocab_size=20, embedding_size=4, encoder_hidden_size=4,
                         decoder_hidden_size=4, attention_size=4)
    model = build_model(config, seed=1)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    scheduler = torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer, mode="max")
    sum(p.sum() for p in model.parameters()).backward()
    optimizer.step()
    progress = {"step": 1, "epoch": 0, "batch_in_epoch": 1, "skipped": 0, "best_bleu": -1.0,
                "best_valid_loss": float("inf"), "best_epoch": 0, "epochs_without_improvement": 0,
                "train_seconds": 1.5, "train_tokens": 10, "history": [], "elapsed_seconds": 2.0,
                "scheduler": scheduler.state_dict()}
    save_checkpoint(run, Checkpoint(model.state_dict(), optimizer.state_dict(), torch.get_rng_state(), progress))


def _edit_group(run: Path, **values) -> None:
    """Change the optimizer's settings in state.json and sign it again (the digest recomputed)."""
    path = run / CHECKPOINT_FOLDER / STATE_FILE
    state = json.loads(path.read_text(encoding="utf-8"))
    state.pop("digest")
    state["optimizer"]["param_groups"][0].update(values)
    path.write_text(json.dumps(with_digest(state)), encoding="utf-8")


@pytest.mark.parametrize(("values", "place"), [
    ({"lr": 1e308}, "lr"),
    ({"initial_lr": 1e308}, "initial_lr"),
    ({"betas": [1, 1]}, "betas"),
    ({"betas": [0.9, 1.0]}, "betas"),
    ({"eps": 0, "weight_decay": 1e308}, "eps"),
    ({"weight_decay": 1e308}, "weight_decay"),
])
def test_settings_outside_adams_domain_are_refused_at_load(tmp_path: Path, values: dict, place: str) -> None:
    run = tmp_path / "run"
    _saved(run)
    load_checkpoint(run)  # as written: whole
    _edit_group(run, **values)
    with pytest.raises(StoredFileError) as refused:
        load_checkpoint(run)
    message = str(refused.value)
    assert "\n" not in message and place in message and "state.json" in message


def test_adams_own_settings_still_load(tmp_path: Path) -> None:
    run = tmp_path / "run"
    _saved(run)
    _edit_group(run, lr=1.0, betas=[0.0, 0.999], eps=1e-8, weight_decay=0.0)
    assert load_checkpoint(run).optimizer_state["param_groups"][0]["lr"] == 1.0
