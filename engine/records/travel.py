"""Back through training: the model as it was at an earlier validation, loaded read-only.

A run that keeps weight snapshots (``TrainConfig.keep_snapshots`` = N > 0) has, besides its saved
model (the best validation's weights, in the run folder itself), the weights of its last N
validations in ``checkpoint/snapshots/step-XXXXXXXX.safetensors`` (``engine.training.snapshots``). This
module lists those points, finds the one nearest a step of a training curve, and loads it as a
:class:`~engine.models.bundle.ModelBundle`: the run folder's config.json and tokenizers (checked as any
model folder is) with the snapshot's weights. Nothing is written and no lock is taken, so a run
still training can be visited; a snapshot the run has rotated away meanwhile is refused with the
reason, as is a snapshot that does not fit the model (tensor names, shapes), holds a value that is
not finite, or is not a safetensors file. Loading never unpickles anything.

Disk: a snapshot holds every weight once, 2 bytes each as float16 (what runs write:
engine.training.snapshots.snapshot_dtype) or 4 as float32 (:func:`snapshot_bytes`); N of them cost N times that.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import torch

from engine.models.bundle import ModelBundle, load_model_folder, tied_aliases, weights_misfit
from engine.models.config_file import read_config
from engine.settings.errors import ModelFileError, StoredFileError
from engine.training.snapshots import list_snapshots, read_snapshot

SAVED = "saved"  # the run folder's own model (the best validation's weights)
SNAPSHOT = "snapshot"  # a validation's weights kept for going back
_STEP = re.compile(r"step-(\d+)\.safetensors")
MAX_SNAPSHOT_BYTES = 2 * 1024**3


class SnapshotError(ModelFileError):
    """A snapshot cannot be loaded (gone, damaged, or not this model's); says why."""


@dataclass(frozen=True)
class WeightPoint:
    """Weights of a run at one step: a validation snapshot or the saved model."""

    step: int
    kind: str  # SAVED or SNAPSHOT
    path: Path  # the snapshot file, or the run folder for the saved model

    @property
    def label(self) -> str:
        """'model at step 2,000' / 'saved model (step 5,620)'."""
        return f"model at step {self.step:,}" if self.kind == SNAPSHOT else f"saved model (step {self.step:,})"


def weight_points(run_folder: Path) -> tuple[WeightPoint, ...]:
    """The run's snapshots, oldest first, then its saved model (when the folder has one and
    config.json says at which step: ``training.steps``)."""
    points = []
    for path in list_snapshots(run_folder):
        match = _STEP.fullmatch(path.name)
        if match is not None:
            points.append(WeightPoint(int(match.group(1)), SNAPSHOT, path))
    try:
        steps = (read_config(run_folder).get("training") or {}).get("steps")
    except ModelFileError:
        steps = None
    if isinstance(steps, int) and not isinstance(steps, bool) and steps >= 0:
        points.append(WeightPoint(steps, SAVED, Path(run_folder)))
    return tuple(points)


def nearest_point(points: tuple[WeightPoint, ...] | list[WeightPoint], step: float) -> WeightPoint | None:
    """The point whose step is nearest ``step`` (a snapshot over the saved model on a tie: it is the
    weights of exactly that validation); None when there is none."""
    if not points:
        return None
    return min(points, key=lambda p: (abs(p.step - step), p.kind != SNAPSHOT))


def snapshot_bytes(parameter_count: int, float16: bool) -> int:
    """What one snapshot of a model of ``parameter_count`` weights takes on disk (without its small header)."""
    return parameter_count * (2 if float16 else 4)


def _read_tensors(path: Path) -> dict[str, torch.Tensor]:
    """The snapshot's weights through the one reader of stored files (engine.training.snapshots.read_snapshot:
    safetensors only, finite values, its digest when it records one)."""
    try:
        return read_snapshot(path)
    except StoredFileError as error:
        if not path.exists():
            raise SnapshotError(f"the snapshot {path.name} is gone (the run keeps only its last few)") from None
        raise SnapshotError(str(error)) from None


def _apply(bundle: ModelBundle, tensors: dict[str, torch.Tensor], name: str) -> None:
    """Check ``tensors`` against the bundle's model and load them into it. Their dtypes (float32 or
    float16) and finite values were checked as they were read (engine.training.snapshots.read_snapshot)."""
    model = bundle.translator.model
    expected = model.state_dict()
    aliases = tied_aliases(expected)
    misfit = weights_misfit(expected, tensors)
    if misfit:
        raise SnapshotError(f"the snapshot {name} is not this model's: it {misfit}")
    for alias, source in aliases.items():
        tensors.setdefault(alias, tensors[source])
    model.load_state_dict({key: tensor.to(expected[key].dtype) for key, tensor in tensors.items()})
    model.eval()


def load_point(run_folder: Path, point: WeightPoint) -> ModelBundle:
    """The run's model with the weights of ``point`` (read-only). Raises ModelFileError (a
    SnapshotError for the snapshot itself) with the reason."""
    bundle = load_model_folder(run_folder)
    if point.kind == SNAPSHOT:
        _apply(bundle, _read_tensors(point.path), point.path.name)
    return bundle
