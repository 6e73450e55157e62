"""Weight snapshots of a run's last validations, and their average (checkpoint averaging).

With ``TrainConfig.keep_snapshots`` = N > 0, the trainer writes the model's weights at every
validation to ``<run folder>/checkpoint/snapshots/step-XXXXXXXX.safetensors`` and keeps the last N.
:func:`average_snapshots` averages the last n of them element-wise (Vaswani et al. 2017 and Junczys-
Dowmunt et al. 2016 average the last checkpoints of a run; with a learning rate that decays to the
end of the budget the last snapshots lie close together and their mean is a smoother model).
Snapshots are plain safetensors files: loading them never unpickles anything.
"""

from __future__ import annotations

from pathlib import Path

import torch
from safetensors import SafetensorError
from safetensors.torch import load as load_safetensors
from safetensors.torch import save as save_safetensors

from engine.atomic import write_bytes_atomic
from engine.checkpoint import CHECKPOINT_FOLDER
from engine.errors import ModelFileError

SNAPSHOT_FOLDER = "snapshots"


def snapshot_folder(run_folder: Path) -> Path:
    return Path(run_folder) / CHECKPOINT_FOLDER / SNAPSHOT_FOLDER


def list_snapshots(run_folder: Path) -> list[Path]:
    """The run's snapshot files, oldest first (by the step in their name)."""
    folder = snapshot_folder(run_folder)
    if not folder.is_dir():
        return []
    return sorted(folder.glob("step-*.safetensors"))


def save_snapshot(run_folder: Path, step: int, state: dict[str, torch.Tensor], keep: int) -> Path:
    """Write the weights ``state`` as the snapshot of ``step`` and delete all but the last ``keep``."""
    folder = snapshot_folder(run_folder)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"step-{step:08d}.safetensors"
    # Cloned: a tied matrix appears under two names, and safetensors refuses tensors that share memory.
    tensors = {name: tensor.detach().to("cpu", torch.float32).contiguous().clone() for name, tensor in state.items()}
    write_bytes_atomic(path, save_safetensors(tensors))
    for old in list_snapshots(run_folder)[:-keep] if keep > 0 else []:
        old.unlink(missing_ok=True)
    return path


def average_snapshots(run_folder: Path, last: int) -> tuple[dict[str, torch.Tensor], list[Path]]:
    """The element-wise mean of the last ``last`` snapshots, and the files it used.

    Raises ModelFileError when there are none, or when a file is unreadable or does not match the
    others (other tensor names or shapes)."""
    files = list_snapshots(run_folder)[-last:] if last > 0 else []
    if not files:
        raise ModelFileError(f"no weight snapshots in {snapshot_folder(run_folder)} (train with keep_snapshots > 0)")
    total: dict[str, torch.Tensor] = {}
    for path in files:
        try:
            tensors = load_safetensors(path.read_bytes())
        except (OSError, SafetensorError, ValueError, RuntimeError) as error:
            raise ModelFileError(f"cannot read the snapshot {path.name}: {error}") from None
        if total and (tensors.keys() != total.keys()
                      or any(tensors[k].shape != total[k].shape for k in total)):
            raise ModelFileError(f"the snapshot {path.name} does not match the others (tensor names or shapes)")
        for name, tensor in tensors.items():
            total[name] = total[name] + tensor.double() if name in total else tensor.double()
    return {name: (tensor / len(files)).float() for name, tensor in total.items()}, files
