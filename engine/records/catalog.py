"""Where model folders live, and what is in them (read from config.json only: cheap).

Two places: the models shipped with the app (``resources/models/<src>-<tgt>-<scorer>/``) and the
user's own runs (``<user data folder>/models/``, by platformdirs; ``ATTENTION_STUDIO_DATA``
overrides it, which tests use). Folders that do not hold a readable config are listed with the
reason instead of being skipped silently.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from engine.files.paths import SHIPPED_MODELS, user_data_folder, user_models_folder
from engine.models.model_record import config_time, read_model_record
from engine.settings.errors import ModelFileError
from engine.training.checkpoint_state import has_checkpoint
from engine.training.metrics_log import METRICS_FILE

__all__ = ["SHIPPED_MODELS", "ModelEntry", "UnusableFolder", "default_model", "read_entry", "scan", "user_data_folder",
           "user_models_folder"]

STAGING_NAME = re.compile(r"tmp[a-z0-9_]{8}")  # tempfile.mkdtemp's names (an older ship_models staged in one)


@dataclass(frozen=True)
class ModelEntry:
    folder: Path
    source_language: str
    target_language: str
    scorer: str
    shipped: bool  # True for resources/models, False for the user's runs
    test_bleu: float | None
    modified: float  # mtime of config.json (newest first in listings)

    @property
    def direction(self) -> str:
        return f"{self.source_language}-{self.target_language}"

    @property
    def name(self) -> str:
        return self.folder.name


@dataclass(frozen=True)
class UnusableFolder:
    folder: Path
    reason: str


def read_entry(folder: Path, shipped: bool) -> ModelEntry:
    """The catalog entry of one model folder (its :class:`ModelRecord`, config.json only); ModelFileError if unusable."""
    record = read_model_record(folder)
    return ModelEntry(folder, record.source_language, record.target_language, record.scorer, shipped,
                      record.test_bleu, config_time(folder))


def scan(folders: list[tuple[Path, bool]] | None = None) -> tuple[list[ModelEntry], list[UnusableFolder]]:
    """Model folders in the shipped and user locations (or ``folders``), shipped first, then newest."""
    locations = folders if folders is not None else [(SHIPPED_MODELS, True), (user_models_folder(), False)]
    entries: list[ModelEntry] = []
    unusable: list[UnusableFolder] = []
    for root, shipped in locations:
        for folder in _subfolders(root):
            found = _entry_or_reason(folder, shipped)
            if isinstance(found, ModelEntry):
                entries.append(found)
            else:
                unusable.append(found)
    entries.sort(key=lambda e: (not e.shipped, -e.modified))
    return entries, unusable


def _subfolders(root: Path) -> list[Path]:
    """The folders in ``root`` (none when it does not exist), by name; hidden ones and a temporary
    folder a copy was staged in (``tmpXXXXXXXX`` without a config.json) left out: never models."""
    if not root.is_dir():
        return []
    return sorted(p for p in root.iterdir() if p.is_dir() and not p.name.startswith(".") and not _staging(p))


def _staging(folder: Path) -> bool:
    """A folder named as Python's tempfile names one, holding no model of its own."""
    return STAGING_NAME.fullmatch(folder.name) is not None and not (folder / "config.json").exists()


def _entry_or_reason(folder: Path, shipped: bool) -> ModelEntry | UnusableFolder:
    """The folder's model, or why it cannot be used."""
    try:
        return read_entry(folder, shipped)
    except ModelFileError as error:
        return UnusableFolder(folder, _run_without_model(folder) or str(error))
    except (OSError, ValueError, TypeError, AttributeError, RecursionError) as error:
        # One bad folder never hides the others: anything unforeseen is listed with its reason too.
        return UnusableFolder(folder, f"{folder}: cannot be read ({type(error).__name__}: {error})")


def _run_without_model(folder: Path) -> str:
    """Why a training run's folder holds no model yet ("" for any other folder)."""
    if (folder / "config.json").exists() or not (has_checkpoint(folder) or (folder / METRICS_FILE).is_file()):
        return ""
    return (f"{folder} is a training run with no model yet: it is still training, or it stopped before its "
            "first validation (resume it to get one)")


def default_model(entries: list[ModelEntry]) -> ModelEntry | None:
    """zh→en additive if shipped, else the newest model the user trained, else any model."""
    for entry in entries:
        if entry.shipped and entry.direction == "zh-en" and entry.scorer == "additive":
            return entry
    own = [e for e in entries if not e.shipped]
    if own:
        return max(own, key=lambda e: e.modified)
    return entries[0] if entries else None
