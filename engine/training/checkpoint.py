"""Resumable training checkpoints, without pickle, committed in one step.

``<run folder>/checkpoint/`` holds the tensors (model weights, Adam moments, the torch RNG state as
bytes) in ``tensors-<sha256 prefix>.safetensors`` and the rest in ``state.json`` (step, epoch,
position in the epoch, learning-rate scheduler, early-stopping counters, metric history, the run's
request), which names the tensor file, records its sha256 and carries a digest of itself.

A save writes the new tensor file beside the old one, then replaces ``state.json`` atomically — the
one commit point — and only then deletes the tensor file it no longer names. A crash at any instant
leaves either the previous checkpoint or the new one, whole.

Reading goes through engine.files.stored: ``state.json`` must fit its schema (engine.training.checkpoint_schema),
its digest and the tensor file's sha256 are required, the tensor names and shapes must agree with
one another (and, on resume, with the model: :func:`restore_training_state`), and every number is
finite where it must be. The format before version 2 (``state.safetensors`` beside a ``state.json``
holding its sha256), written by runs of the previous version, is still read; the next save of a
resumed run replaces it by version 2.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch
from safetensors.torch import save as save_safetensors

from engine.files.atomic import write_bytes_atomic, write_json_atomic
from engine.files.stored import bytes_sha256, read_bytes, with_digest
from engine.files.stored_tensors import read_tensors
from engine.settings.errors import StoredFileError
from engine.training.checkpoint_schema import ADAM_STATE, CHECKPOINT_FORMAT, CHECKPOINT_VERSION
from engine.training.checkpoint_state import (
    CHECKPOINT_FOLDER,
    LEGACY_TENSORS_FILE,
    STATE_FILE,
    read_state,
)

MAX_TENSOR_BYTES = 16 * 1024**3
_OPTIMIZER_TENSOR = re.compile(r"optimizer\.([0-9]{1,7})\.(\w+)")


@dataclass(frozen=True)
class Checkpoint:
    model_state: dict[str, torch.Tensor]
    optimizer_state: dict[str, Any]
    rng_state: torch.Tensor
    progress: dict[str, Any]  # step, epoch, batch_in_epoch, scheduler, counters, history
    tokenizer_sha256: tuple[str, str] | None = None  # of the run's own tokenizers beside it (src.model, tgt.model)


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


def checkpoint_tensors(checkpoint: Checkpoint) -> tuple[bytes, dict[str, Any]]:
    """The checkpoint's tensors (model, optimizer, random state) as one safetensors file's bytes, and
    the optimizer's plain (non-tensor) state."""
    optimizer_tensors, optimizer_plain = _flatten_optimizer(checkpoint.optimizer_state)
    tensors = {f"model.{k}": v.detach().cpu().clone().contiguous() for k, v in checkpoint.model_state.items()}
    tensors.update(optimizer_tensors)
    tensors["rng"] = checkpoint.rng_state.clone()
    return save_safetensors(tensors), optimizer_plain


def save_checkpoint(run_folder: Path, checkpoint: Checkpoint) -> None:
    """Write ``checkpoint`` as the run's checkpoint; the previous one stays whole until ``state.json``
    is replaced (the commit point), and is removed after it."""
    folder = Path(run_folder) / CHECKPOINT_FOLDER
    folder.mkdir(parents=True, exist_ok=True)
    data, optimizer_plain = checkpoint_tensors(checkpoint)
    sha256 = bytes_sha256(data)
    name = f"tensors-{sha256[:16]}.safetensors"
    write_bytes_atomic(folder / name, data)
    state = {"format": CHECKPOINT_FORMAT, "format_version": CHECKPOINT_VERSION,
             "tensors": {"file": name, "sha256": sha256}, "optimizer": optimizer_plain,
             "progress": checkpoint.progress}
    if checkpoint.tokenizer_sha256 is not None:
        state["tokenizers"] = list(checkpoint.tokenizer_sha256)
    write_json_atomic(folder / STATE_FILE, with_digest(state))  # the commit point
    _remove_unnamed(folder, name)


def _remove_unnamed(folder: Path, named: str) -> None:
    """Delete the tensor files ``state.json`` no longer names (and the earlier format's), and the
    temporary files a killed save left (``.tensors-….tmp``, ``.state.json.….tmp``: engine.files.atomic's)."""
    strays = [*folder.glob(".tensors-*.tmp"), *folder.glob(f".{STATE_FILE}.*.tmp")]
    for path in [*folder.glob("tensors-*.safetensors"), folder / LEGACY_TENSORS_FILE, *strays]:
        if path.name != named:
            path.unlink(missing_ok=True)


def _tensor_file(folder: Path, state: dict[str, Any]) -> tuple[Path, str]:
    """The tensor file ``state`` names, and the sha256 it records for it."""
    if "format_version" in state:
        return folder / state["tensors"]["file"], state["tensors"]["sha256"]
    return folder / LEGACY_TENSORS_FILE, state["sha256"]


def load_checkpoint(run_folder: Path) -> Checkpoint:
    """The run's checkpoint, every part of it checked; StoredFileError (one line) otherwise."""
    folder = Path(run_folder) / CHECKPOINT_FOLDER
    state = read_state(folder)
    path, sha256 = _tensor_file(folder, state)
    data = read_bytes(path, MAX_TENSOR_BYTES)
    if bytes_sha256(data) != sha256:
        raise StoredFileError(f"{path} does not match {folder / STATE_FILE} (its sha256 differs): the checkpoint "
                              "was torn or edited")
    tensors, _ = read_tensors(data, path)
    return _assemble(tensors, state, path)


def _assemble(tensors: dict[str, torch.Tensor], state: dict[str, Any], where: Path) -> Checkpoint:
    """The checkpoint from its checked parts, once the tensors agree with the state and one another."""
    def refuse(problem: str) -> StoredFileError:
        return StoredFileError(f"{where}: {problem}")

    model_state, moments = _sorted_tensors(tensors, refuse)
    rng, expected_rng = tensors.get("rng"), torch.get_rng_state()
    if rng is None or rng.dtype != torch.uint8 or rng.shape != expected_rng.shape:
        raise refuse(f"rng must be {expected_rng.numel():,} bytes of random-generator state")
    if not model_state:
        raise refuse("it holds no model weights")
    optimizer = state["optimizer"]
    _check_optimizer_parts(optimizer, moments, refuse)
    optimizer_state = {int(index): dict(plain) for index, plain in optimizer["plain"].items()}
    for index, values in moments.items():
        optimizer_state.setdefault(index, {}).update(values)
    return Checkpoint(model_state, {"state": optimizer_state, "param_groups": optimizer["param_groups"]}, rng,
                      state["progress"])


def _sorted_tensors(tensors: dict[str, torch.Tensor], refuse: Callable[[str], StoredFileError],
                    ) -> tuple[dict[str, torch.Tensor], dict[int, dict[str, torch.Tensor]]]:
    """The model's weights by name and the optimizer's moments by parameter index; any other
    tensor but ``rng`` is refused."""
    model_state: dict[str, torch.Tensor] = {}
    moments: dict[int, dict[str, torch.Tensor]] = {}
    for key, value in tensors.items():
        match = _OPTIMIZER_TENSOR.fullmatch(key)
        if key.startswith("model."):
            model_state[key[len("model."):]] = value
        elif match is not None and match[2] in ADAM_STATE:
            moments.setdefault(int(match[1]), {})[match[2]] = value
        elif key != "rng":
            raise refuse(f"unexpected tensor {key[:60]!r} (expected model.*, optimizer.<index>."
                         f"<{'|'.join(ADAM_STATE)}> and rng)")
    return model_state, moments


def _check_optimizer_parts(optimizer: dict[str, Any], moments: dict[int, dict[str, torch.Tensor]],
                           refuse: Callable[[str], StoredFileError]) -> None:
    """The optimizer's groups list each parameter once, every state belongs to a listed parameter,
    and each parameter's moments have one shape (its step one number)."""
    params = [index for group in optimizer["param_groups"] for index in group["params"]]
    if len(set(params)) != len(params):
        raise refuse("optimizer.param_groups lists a parameter twice")
    stray = (set(moments) | {int(index) for index in optimizer["plain"]}) - set(params)
    if stray:
        raise refuse(f"optimizer state for parameter {min(stray)}, which no parameter group lists")
    _check_moments(moments, refuse)


def _check_moments(moments: dict[int, dict[str, torch.Tensor]], refuse: Callable[[str], StoredFileError]) -> None:
    """Each parameter's moments have one shape, and its step is one number."""
    for index, values in moments.items():
        shapes = {tuple(t.shape) for name, t in values.items() if name != "step"}
        if len(shapes) > 1:
            raise refuse(f"the optimizer moments of parameter {index} have different shapes {sorted(shapes)}")
        if "step" in values and values["step"].numel() != 1:
            raise refuse(f"optimizer.{index}.step must be one number")


def restore_training_state(checkpoint: Checkpoint, model: torch.nn.Module, optimizer: torch.optim.Optimizer,
                           scheduler: Any, where: Path) -> dict[str, Any]:
    """Load ``checkpoint`` into the model, the optimizer, the random generator and the scheduler,
    once its tensors fit the model; returns its progress without the scheduler's state."""
    def refuse(problem: str) -> StoredFileError:
        return StoredFileError(f"the checkpoint in {where} does not fit this run's model: {problem}")

    _check_model_fits(checkpoint.model_state, model.state_dict(), refuse)
    _check_optimizer_fits(checkpoint.optimizer_state, [p for group in optimizer.param_groups for p in group["params"]],
                          refuse)
    progress = dict(checkpoint.progress)
    scheduler_state = progress.pop("scheduler")
    try:
        model.load_state_dict(checkpoint.model_state)
        optimizer.load_state_dict(checkpoint.optimizer_state)
        torch.set_rng_state(checkpoint.rng_state)
        scheduler.load_state_dict(scheduler_state)
    except (RuntimeError, ValueError, KeyError, TypeError) as error:
        raise refuse(" ".join(str(error).split())[:200]) from None
    return progress


def _check_model_fits(stored: dict[str, torch.Tensor], expected: dict[str, torch.Tensor],
                      refuse: Callable[[str], StoredFileError]) -> None:
    """The stored weights have the model's names and shapes."""
    missing, extra = sorted(set(expected) - set(stored)), sorted(set(stored) - set(expected))
    if missing or extra:
        raise refuse(f"missing {missing[:3]}, unexpected {extra[:3]}")
    for name, tensor in expected.items():
        if tuple(stored[name].shape) != tuple(tensor.shape):
            raise refuse(f"{name} has shape {tuple(stored[name].shape)}, the model {tuple(tensor.shape)}")


def _check_optimizer_fits(stored: dict[str, Any], parameters: list[torch.Tensor],
                          refuse: Callable[[str], StoredFileError]) -> None:
    """The stored optimizer state covers exactly the model's parameters, each moment of its parameter's shape."""
    indices = sorted(i for group in stored["param_groups"] for i in group["params"])
    if indices != list(range(len(parameters))):
        raise refuse(f"its optimizer state covers {len(indices)} parameters, the model has {len(parameters)}")
    for index, values in stored["state"].items():
        for name, value in values.items():
            if name != "step" and tuple(value.shape) != tuple(parameters[index].shape):
                raise refuse(f"optimizer.{index}.{name} has shape {tuple(value.shape)}, its parameter "
                             f"{tuple(parameters[index].shape)}")
