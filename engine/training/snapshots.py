"""Weight snapshots of a run's last validations, and their average (checkpoint averaging).

With ``TrainConfig.keep_snapshots`` = N > 0, the trainer writes the model's weights at every
validation to ``<run folder>/checkpoint/snapshots/step-XXXXXXXX.safetensors`` and keeps N of them
(:func:`snapshots_to_drop`: the newest few in a row, for averaging, and older ones thinned evenly over
the run, so that going back through training finds weights near any step), as float16 (2 bytes a weight; averaging and going back through training read them into float32
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
from collections.abc import Sequence
from pathlib import Path

import torch
from safetensors.torch import save as save_safetensors

from engine.files.atomic import write_bytes_atomic
from engine.files.stored import read_bytes
from engine.files.stored_tensors import read_tensors, tensor_digest
from engine.settings.errors import ModelFileError, StoredFileError
from engine.training.checkpoint_state import CHECKPOINT_FOLDER

SNAPSHOT_FOLDER = "snapshots"
_NAME = re.compile(r"step-[0-9]{8,12}\.safetensors")
SNAPSHOT_FORMAT = "attention-studio-snapshot"
MAX_SNAPSHOT_BYTES = 4 * 1024**3
FLOAT16_MAX = float(torch.finfo(torch.float16).max)
RECENT_KEPT = 5  # the newest snapshots always kept in a row: what averaging reads (``average --last 5``)


def snapshot_folder(run_folder: Path) -> Path:
    """Where a run's weight snapshots are kept (inside its checkpoint folder)."""
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
    kept = {_step_of(old): old for old in list_snapshots(run_folder)}
    for old_step in snapshots_to_drop(list(kept), keep):
        kept[old_step].unlink(missing_ok=True)
    return path


def _step_of(path: Path) -> int:
    return int(path.stem.split("-")[-1])


def snapshots_to_drop(steps: Sequence[int], keep: int) -> list[int]:
    """Which of the snapshots at ``steps`` to delete so that ``keep`` remain (none while there are no more
    than ``keep``, or when ``keep`` is 0: a run that keeps no snapshots writes none).

    The newest ``min(keep, RECENT_KEPT)`` stay, in a row (averaging reads the last few). The older ones
    are thinned evenly over the run: the first validation's stays, and while too many remain, the older
    snapshot whose two neighbours lie closest together goes (its loss leaves the smallest gap), so that
    the kept steps stay spread over the whole run as it grows (e.g. 100 validations, keep 20: the last 5
    and 15 spread over the rest, no gap much wider than another)."""
    ordered = sorted(steps)
    if keep <= 0 or len(ordered) <= keep:
        return []
    recent = min(keep, RECENT_KEPT)
    older, boundary = ordered[:-recent], ordered[-recent]
    room = keep - recent
    if room == 0:
        return older
    dropped = []
    while len(older) > room:  # len(older) ≥ 2 here: the first one is never a candidate
        def gap(i: int) -> tuple[int, int]:
            following = older[i + 1] if i + 1 < len(older) else boundary
            return following - older[i - 1], older[i]
        dropped.append(older.pop(min(range(1, len(older)), key=gap)))
    return dropped


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
    if metadata.get("step") != str(_step_of(path)):
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
