"""Resumable training checkpoints, without pickle.

``<run folder>/checkpoint/`` holds ``state.safetensors`` (model weights, Adam moments, the torch
RNG state as bytes) and ``state.json`` (step, epoch, position in the epoch, learning-rate
scheduler, early-stopping counters, metric history). Both are written atomically, JSON last, and
the JSON records the sha256 of the tensor file so that a torn pair is refused.
"""

from __future__ import annotations

import hashlib
import json
import shutil
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
                tensors[f"optimizer.{index}.{key}"] = value.detach().cpu().clone().contiguous()
            else:
                plain_state[str(index)][key] = value
    return tensors, {"param_groups": state["param_groups"], "plain": plain_state}


def save_checkpoint(run_folder: Path, checkpoint: Checkpoint) -> None:
    folder = Path(run_folder) / CHECKPOINT_FOLDER
    folder.mkdir(parents=True, exist_ok=True)
    optimizer_tensors, optimizer_plain = _flatten_optimizer(checkpoint.optimizer_state)
    tensors = {f"model.{k}": v.detach().cpu().clone().contiguous() for k, v in checkpoint.model_state.items()}
    tensors.update(optimizer_tensors)
    tensors["rng"] = checkpoint.rng_state.clone()
    data = save_safetensors(tensors)
    write_bytes_atomic(folder / TENSORS_FILE, data)
    state = {"sha256": hashlib.sha256(data).hexdigest(), "optimizer": optimizer_plain, "progress": checkpoint.progress}
    write_json_atomic(folder / STATE_FILE, dict(state, digest=_digest(state)))


def _digest(state: dict[str, Any]) -> str:
    """sha256 of the state's canonical JSON: an edited state.json no longer matches it."""
    return hashlib.sha256(json.dumps(state, sort_keys=True, ensure_ascii=False).encode("utf-8")).hexdigest()


def discard_checkpoint(run_folder: Path) -> None:
    """Delete a run's checkpoint (weight snapshots included), e.g. before a new run replaces it."""
    shutil.rmtree(Path(run_folder) / CHECKPOINT_FOLDER, ignore_errors=True)


def checkpoint_progress(run_folder: Path) -> dict[str, Any] | None:
    """The progress recorded in the checkpoint (cheap: the tensors are not read); None if there is
    none or it cannot be read."""
    if not has_checkpoint(run_folder):
        return None
    try:
        meta = json.loads((Path(run_folder) / CHECKPOINT_FOLDER / STATE_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):
        return None
    progress = meta.get("progress") if isinstance(meta, dict) else None
    return progress if isinstance(progress, dict) else None


def checkpoint_time(run_folder: Path) -> float:
    """When the checkpoint was last written (seconds since the epoch; 0 without one)."""
    try:
        return (Path(run_folder) / CHECKPOINT_FOLDER / STATE_FILE).stat().st_mtime
    except OSError:
        return 0.0


def checkpoint_step(run_folder: Path) -> int | None:
    """The step the checkpoint in ``run_folder`` was written at; None if there is none (or it is unreadable)."""
    step = (checkpoint_progress(run_folder) or {}).get("step")
    return step if isinstance(step, int) and not isinstance(step, bool) else None


def resumable_from(run_folder: Path) -> str:
    """What a user can resume after a stop, in words (said truthfully: there may be nothing)."""
    step = checkpoint_step(run_folder)
    if step is None:
        return f"no checkpoint was written in {run_folder}: there is nothing to resume, a new run starts over"
    return f"the checkpoint at step {step:,} in {run_folder} continues with --resume"


def has_checkpoint(run_folder: Path) -> bool:
    folder = Path(run_folder) / CHECKPOINT_FOLDER
    return (folder / STATE_FILE).is_file() and (folder / TENSORS_FILE).is_file()


def load_checkpoint(run_folder: Path) -> Checkpoint:
    folder = Path(run_folder) / CHECKPOINT_FOLDER
    try:
        meta = json.loads((folder / STATE_FILE).read_text(encoding="utf-8"))
        data = (folder / TENSORS_FILE).read_bytes()
    except (OSError, ValueError, RecursionError) as error:
        raise ModelFileError(f"cannot read the checkpoint in {folder}: {error}") from None
    if not isinstance(meta, dict):
        raise ModelFileError(f"{folder / STATE_FILE} is not a checkpoint state (not a JSON object)")
    if "digest" in meta and _digest({k: v for k, v in meta.items() if k != "digest"}) != meta["digest"]:
        raise ModelFileError(f"{folder / STATE_FILE} was changed after it was written (its digest differs); "
                             "refusing to resume from it")
    if hashlib.sha256(data).hexdigest() != meta.get("sha256"):
        raise ModelFileError(f"the checkpoint in {folder} is inconsistent (sha256 of {TENSORS_FILE} differs)")
    try:
        tensors = load_safetensors(data)
    except (SafetensorError, ValueError, RuntimeError) as error:
        raise ModelFileError(f"{folder / TENSORS_FILE} is not a valid safetensors file ({error})") from None
    model_state = {k[len("model."):]: v for k, v in tensors.items() if k.startswith("model.")}
    try:
        optimizer_plain = meta["optimizer"]
        state: dict[int, dict[str, Any]] = {}
        for index, plain in optimizer_plain["plain"].items():
            state[int(index)] = dict(plain)
        for key, value in tensors.items():
            if key.startswith("optimizer."):
                _, index, name = key.split(".", 2)
                state.setdefault(int(index), {})[name] = value
        param_groups = optimizer_plain["param_groups"]
        progress = meta["progress"]
        if not isinstance(param_groups, list) or not all(isinstance(g, dict) for g in param_groups):
            raise TypeError("optimizer.param_groups must be a list of objects")
        if not isinstance(progress, dict) or not isinstance(progress.get("scheduler"), dict):
            raise TypeError("progress must be an object holding the scheduler's state")
        for key in ("step", "epoch", "batch_in_epoch"):
            if not isinstance(progress.get(key), int) or isinstance(progress.get(key), bool):
                raise TypeError(f"progress.{key} must be an integer")
        rng = tensors["rng"]
    except (KeyError, TypeError, ValueError, AttributeError) as error:
        raise ModelFileError(f"{folder / STATE_FILE} is not a valid checkpoint state ({error})") from None
    optimizer_state = {"state": state, "param_groups": param_groups}
    return Checkpoint(model_state, optimizer_state, rng, progress)
