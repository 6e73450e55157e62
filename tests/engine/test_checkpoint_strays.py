"""A save removes what a killed save left behind: the temporary files of its atomic writes
(``.tensors-….tmp``, ``.state.json.….tmp``), as docs/command-line.md promises ("A checkpoint is one commit") — never the committed checkpoint."""

from __future__ import annotations

from pathlib import Path

import torch

from engine.networks.model import build_model
from engine.settings.config import ModelConfig
from engine.training.checkpoint import Checkpoint, load_checkpoint, save_checkpoint
from engine.training.checkpoint_state import CHECKPOINT_FOLDER, STATE_FILE


def _checkpoint(step: int) -> Checkpoint:
    config = ModelConfig(src_vocab_size=20, tgt_vocab_size=20, embedding_size=4, encoder_hidden_size=4,
                         decoder_hidden_size=4, attention_size=4)
    model = build_model(config, seed=step)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    scheduler = torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer, mode="max")
    progress = {"step": step, "epoch": 0, "batch_in_epoch": step, "skipped": 0, "best_bleu": -1.0,
                "best_valid_loss": float("inf"), "best_epoch": 0, "epochs_without_improvement": 0,
                "train_seconds": 1.5, "train_tokens": 10 * step, "history": [], "elapsed_seconds": 2.0,
                "scheduler": scheduler.state_dict()}
    return Checkpoint(model.state_dict(), optimizer.state_dict(), torch.get_rng_state(), progress)


def test_the_next_save_removes_a_killed_saves_temporary_files(tmp_path: Path) -> None:
    run = tmp_path / "run"
    save_checkpoint(run, _checkpoint(3))
    folder = run / CHECKPOINT_FOLDER
    strays = [folder / ".tensors-0123456789abcdef.safetensors.k2j4h_x1.tmp", folder / f".{STATE_FILE}.a8s7d6f5.tmp"]
    for stray in strays:
        stray.write_bytes(b"half written")
    kept = folder / "notes.txt"
    kept.write_text("not the checkpoint's")
    save_checkpoint(run, _checkpoint(7))
    assert not any(stray.exists() for stray in strays) and kept.exists()
    assert sorted(p.name for p in folder.iterdir() if p.name.startswith(".")) == []
    assert load_checkpoint(run).progress["step"] == 7
