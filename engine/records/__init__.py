"""Records of work: run folders and their metrics logs, travel through training, session files.

The room's public names, for the app: each is imported from the module that defines it only when first
asked for (importing the room loads nothing), so a window that never trains never loads the trainer.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine.lazy_facade import lazy_attributes

_PUBLIC = {
    "LifecycleItem": "engine.records.lifecycle",
    "LogLines": "engine.records.runs",
    "ModelEntry": "engine.records.catalog",
    "ResumableRun": "engine.records.runs",
    "RunFolder": "engine.records.runs",
    "RunOrder": "engine.records.lifecycle",
    "RunPhase": "engine.records.runs",
    "RunReady": "engine.records.lifecycle",
    "RunScored": "engine.records.lifecycle",
    "RunSpec": "engine.records.run_spec",
    "RunStatus": "engine.records.lifecycle",
    "SAVE_STAGES": "engine.records.session_save",
    "Session": "engine.records.session_file",
    "SessionFileError": "engine.records.session_values",
    "UnusableFolder": "engine.records.catalog",
    "WeightPoint": "engine.records.travel",
    "default_model": "engine.records.catalog",
    "load_point": "engine.records.travel",
    "nearest_point": "engine.records.travel",
    "read_entry": "engine.records.catalog",
    "resumable_runs": "engine.records.runs",
    "run_lifecycle": "engine.records.lifecycle",
    "scan": "engine.records.catalog",
    "session_saving": "engine.records.session_save",
    "weight_points": "engine.records.travel",
}
__all__ = [
    "LifecycleItem",
    "LogLines",
    "ModelEntry",
    "ResumableRun",
    "RunFolder",
    "RunOrder",
    "RunPhase",
    "RunReady",
    "RunScored",
    "RunSpec",
    "RunStatus",
    "SAVE_STAGES",
    "Session",
    "SessionFileError",
    "UnusableFolder",
    "WeightPoint",
    "default_model",
    "load_point",
    "nearest_point",
    "read_entry",
    "resumable_runs",
    "run_lifecycle",
    "scan",
    "session_saving",
    "weight_points",
]


__getattr__ = lazy_attributes(globals(), _PUBLIC)


if TYPE_CHECKING:
    from engine.records.catalog import ModelEntry, UnusableFolder, default_model, read_entry, scan
    from engine.records.lifecycle import LifecycleItem, RunOrder, RunReady, RunScored, RunStatus, run_lifecycle
    from engine.records.run_spec import RunSpec
    from engine.records.runs import LogLines, ResumableRun, RunFolder, RunPhase, resumable_runs
    from engine.records.session_file import Session
    from engine.records.session_save import SAVE_STAGES, session_saving
    from engine.records.session_values import SessionFileError
    from engine.records.travel import WeightPoint, load_point, nearest_point, weight_points
