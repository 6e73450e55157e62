"""Resumable training checkpoints, without pickle.

``<run folder>/checkpoint/`` holds ``state.safetensors`` (model weights, Adam moments, the torch
RNG state as bytes) and ``state.json`` (step, epoch, position in the epoch, learning-rate
scheduler, early-stopping counters, metric history). Both are written atomically, JSON last, and
the JSON records the sha256 of the tensor file so that a torn pair is refused.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch
from safetensors import SafetensorError
from safetensors.torch import load as load_safetensors
from safetensors.torch import save as save_safetensors

from engine.atomic import write_bytes_atomic, write_json_atomic
from engine.errors import ModelFileError

CHECKPOINT_FOLDER = "checkpoint"
TENSORS_FILE, STATE_FILE = "state.safetensors", "state.json"


@dataclass(frozen=True)
class Checkpoint:
    model_state: dict[str, torch.Tensor]
    optimizer_state: dict[str, Any]
    rng_state: torch.Tensor
    progress: dict[str, Any]  # step, epoch, batch_in_epoch, scheduler, counters, history


def _flatten_optimizer(state: dict[str, Any]) -> tuple[dict[str, torch.Tensor], dict[str, Any]]:
    tensors: dict[str, torch.Tensor] = {}
    plain_state: dict[str, dict[str, Any]] = {}
    for index, values in state["state"].items():
        plain_state[str(index)] = {}
        for key, value in values.items():
            if isinstance(value, torch.Tensor):
                tensors[f"optimizer.{index}.{key}"] = value.detach().clone().contiguous()
            else:
                plain_state[str(index)][key] = value
    return tensors, {"param_groups": state["param_groups"], "plain": plain_state}


def save_checkpoint(run_folder: Path, checkpoint: Checkpoint) -> None:
    folder = Path(run_folder) / CHECKPOINT_FOLDER
    folder.mkdir(parents=True, exist_ok=True)
    optimizer_tensors, optimizer_plain = _flatten_optimizer(checkpoint.optimizer_state)
    tensors = {f"model.{k}": v.detach().clone().contiguous() for k, v in checkpoint.model_state.items()}
    tensors.update(optimizer_tensors)
    tensors["rng"] = checkpoint.rng_state.clone()
    data = save_safetensors(tensors)
    write_bytes_atomic(folder / TENSORS_FILE, data)
    write_json_atomic(
        folder / STATE_FILE,
        {"sha256": hashlib.sha256(data).hexdigest(), "optimizer": optimizer_plain, "progress": checkpoint.progress},
    )


def has_checkpoint(run_folder: Path) -> bool:
    folder = Path(run_folder) / CHECKPOINT_FOLDER
    return (folder / STATE_FILE).is_file() and (folder / TENSORS_FILE).is_file()


def load_checkpoint(run_folder: Path) -> Checkpoint:
    folder = Path(run_folder) / CHECKPOINT_FOLDER
    try:
        meta = json.loads((folder / STATE_FILE).read_text(encoding="utf-8"))
        data = (folder / TENSORS_FILE).read_bytes()
    except (OSError, ValueError) as error:
        raise ModelFileError(f"cannot read the checkpoint in {folder}: {error}") from None
    if hashlib.sha256(data).hexdigest() != meta.get("sha256"):
        raise ModelFileError(f"the checkpoint in {folder} is inconsistent (sha256 of {TENSORS_FILE} differs)")
    try:
        tensors = load_safetensors(data)
    except (SafetensorError, ValueError, RuntimeError) as error:
        raise ModelFileError(f"{folder / TENSORS_FILE} is not a valid safetensors file ({error})") from None
    model_state = {k[len("model."):]: v for k, v in tensors.items() if k.startswith("model.")}
    optimizer_plain = meta["optimizer"]
    state: dict[int, dict[str, Any]] = {}
    for index, plain in optimizer_plain["plain"].items():
        state[int(index)] = dict(plain)
    for key, value in tensors.items():
        if key.startswith("optimizer."):
            _, index, name = key.split(".", 2)
            state.setdefault(int(index), {})[name] = value
    optimizer_state = {"state": state, "param_groups": optimizer_plain["param_groups"]}
    return Checkpoint(model_state, optimizer_state, tensors["rng"], meta["progress"])
