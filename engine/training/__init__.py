"""Training: the loop as a generator of events, a run's preparation, checkpoints and snapshots, the run lock.

The room's public names, for the app: each is imported from the module that defines it only when first
asked for (importing the room loads nothing), so a window that never trains never loads the trainer.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine.lazy_facade import lazy_attributes

_PUBLIC = {
    "FinishReason": "engine.training.events",
    "FinishedEvent": "engine.training.events",
    "LogRead": "engine.training.metrics_log",
    "RunControl": "engine.training.events",
    "RunFolderError": "engine.training.run_lock",
    "RunSteering": "engine.training.events",
    "SampleTranslation": "engine.training.events",
    "StepEvent": "engine.training.events",
    "TrainControl": "engine.training.events",
    "ValidationEvent": "engine.training.events",
    "megabytes": "engine.training.snapshot_disk",
    "snapshot_cost": "engine.training.snapshot_disk",
}
__all__ = [
    "FinishReason",
    "FinishedEvent",
    "LogRead",
    "RunControl",
    "RunFolderError",
    "RunSteering",
    "SampleTranslation",
    "StepEvent",
    "TrainControl",
    "ValidationEvent",
    "megabytes",
    "snapshot_cost",
]


__getattr__ = lazy_attributes(globals(), _PUBLIC)


if TYPE_CHECKING:
    from engine.training.events import (
        FinishedEvent,
        FinishReason,
        RunControl,
        RunSteering,
        SampleTranslation,
        StepEvent,
        TrainControl,
        ValidationEvent,
    )
    from engine.training.metrics_log import LogRead
    from engine.training.run_lock import RunFolderError
    from engine.training.snapshot_disk import megabytes, snapshot_cost
