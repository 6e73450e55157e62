"""Weight snapshots of a run's last validations, and their average (checkpoint averaging).

With ``TrainConfig.keep_snapshots`` = N > 0, the trainer writes the model's weights at every
validation to ``<run folder>/checkpoint/snapshots/step-XXXXXXXX.safetensors`` and keeps the last N,
as float16 (2 bytes a weight; averaging and going back through training read them into float32
models — a weight rounded to float16 moves by at most 1/2048 of itself).
:func:`average_snapshots` averages the last n of them element-wise (Vaswani et al. 2017 and Junczys-
Dowmunt et al. 2016 average the last checkpoints of a run; with a learning rate that decays to the
end of the budget the last snapshots lie close together and their mean is a smoother model).
Snapshots are plain safetensors files: loading them never unpickles anything. Each records its step
and the digest of its tensors in its metadata, and is read through engine.files.stored (finite values, the
digest required when the file carries metadata at all: those of the previous version carry none).
"""

from __future__ import annotations

import re
from pathlib import Path

import torch
from safetensors.torch import save as save_safetensors

from engine.files.atomic import write_bytes_atomic
from engine.files.stored import read_bytes, read_tensors, tensor_digest
from engine.settings.errors import ModelFileError, StoredFileError
from engine.training.checkpoint import CHECKPOINT_FOLDER

SNAPSHOT_FOLDER = "snapshots"
_NAME = re.compile(r"step-[0-9]{8,12}\.safetensors")
SNAPSHOT_FORMAT = "attention-studio-snapshot"
MAX_SNAPSHOT_BYTES = 4 * 1024**3
FLOAT16_MAX = float(torch.finfo(torch.float16).max)


def snapshot_folder(run_folder: Path) -> Path:
    return Path(run_folder) / CHECKPOINT_FOLDER / SNAPSHOT_FOLDER


def list_snapshots(run_folder: Path) -> list[Path]:
    """The run's snapshot files, oldest first (by the step in their name)."""
    folder = snapshot_folder(run_folder)
    if not folder.is_dir():
        return []
    return sorted(path for path in folder.glob("step-*.safetensors") if _NAME.fullmatch(path.name))


def snapshot_dtype(state: dict[str, torch.Tensor]) -> torch.dtype:
    """float16 (half the disk: 2 bytes a weight), unless a weight lies beyond float16's range (a run
    going astray): then float32, so that the snapshot stays finite and readable."""
    largest = max((float(t.detach().abs().max()) for t in state.values() if t.numel()), default=0.0)
    return torch.float16 if largest <= FLOAT16_MAX else torch.float32


def save_snapshot(run_folder: Path, step: int, state: dict[str, torch.Tensor], keep: int) -> Path:
    """Write the weights ``state`` as the snapshot of ``step`` (float16: :func:`snapshot_dtype`) and
    delete all but the last ``keep``. The file's metadata carries its step and the digest of its
    tensors (engine.files.stored.tensor_digest)."""
    folder = snapshot_folder(run_folder)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"step-{step:08d}.safetensors"
    dtype = snapshot_dtype(state)
    # Cloned: a tied matrix appears under two names, and safetensors refuses tensors that share memory.
    tensors = {name: tensor.detach().to("cpu", dtype).contiguous().clone() for name, tensor in state.items()}
    metadata = {"format": SNAPSHOT_FORMAT, "step": str(step), "sha256": tensor_digest(tensors)}
    write_bytes_atomic(path, save_safetensors(tensors, metadata=metadata))
    for old in list_snapshots(run_folder)[:-keep] if keep > 0 else []:
        old.unlink(missing_ok=True)
    return path


def read_snapshot(path: Path) -> dict[str, torch.Tensor]:
    """One snapshot's weights, checked: a safetensors file of float32 (or float16) tensors, every value finite,
    its recorded step the one its name gives and its digest matching. Snapshots written before they
    carried metadata (runs of the previous version) are read with the same checks but the digest."""
    path = Path(path)
    tensors, metadata = read_tensors(read_bytes(path, MAX_SNAPSHOT_BYTES), path)
    if metadata:
        _check_metadata(path, tensors, metadata)
    bad = next((name for name, tensor in tensors.items() if tensor.dtype not in (torch.float32, torch.float16)), None)
    if bad is not None or not tensors:
        raise StoredFileError(f"{path} holds {'no weights' if bad is None else f'{bad} as {tensors[bad].dtype}'}; "
                              "a snapshot holds float32 (or float16) weights")
    return tensors


def _check_metadata(path: Path, tensors: dict[str, torch.Tensor], metadata: dict[str, str]) -> None:
    """The snapshot's metadata names this app's format, the step of the file's name and the digest
    of the tensors it holds."""
    if metadata.get("format") != SNAPSHOT_FORMAT or not isinstance(metadata.get("sha256"), str):
        raise StoredFileError(f"{path} is not a weight snapshot of this app (its metadata lacks the format or "
                              "the digest)")
    if metadata.get("step") != str(int(path.stem.split("-")[-1])):
        raise StoredFileError(f"{path} records step {metadata.get('step')!r}, not the step its name gives")
    if tensor_digest(tensors) != metadata["sha256"]:
        raise StoredFileError(f"{path} was changed after it was written (its digest differs)")


def average_snapshots(run_folder: Path, last: int) -> tuple[dict[str, torch.Tensor], list[Path]]:
    """The element-wise mean of the last ``last`` snapshots, and the files it used.

    Raises StoredFileError (a ModelFileError) when there are none, or when a file is damaged or does
    not match the others (other tensor names or shapes)."""
    files = list_snapshots(run_folder)[-last:] if last > 0 else []
    if not files:
        raise ModelFileError(f"no weight snapshots in {snapshot_folder(run_folder)} (train with keep_snapshots > 0)")
    total: dict[str, torch.Tensor] = {}  # float64 sums
    for path in files:
        tensors = read_snapshot(path)
        if total and not _same_layout(tensors, total):
            raise StoredFileError(f"the snapshot {path} does not match the others (tensor names or shapes)")
        for name, tensor in tensors.items():
            total[name] = total[name] + tensor.double() if name in total else tensor.double()
    return {name: (tensor / len(files)).float() for name, tensor in total.items()}, files


def _same_layout(tensors: dict[str, torch.Tensor], others: dict[str, torch.Tensor]) -> bool:
    """The same tensor names, each with the same shape."""
    return tensors.keys() == others.keys() and all(tensors[k].shape == others[k].shape for k in others)
