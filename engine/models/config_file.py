"""A model folder's ``config.json``: read and checked (:func:`read_config`), rewritten
(:func:`update_config`), and what it says of how the run ended (:func:`run_has_ended`).

No PyTorch here: reading a folder's description is cheap (no weights are read), so the catalog,
the run records and the studies read it without loading a model (engine.models.bundle loads one).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from engine.files.atomic import write_json_atomic
from engine.files.safe_open import read_capped
from engine.models.config_schema import config_problem
from engine.models.model_files import CONFIG_FILE, model_files_folder, settle_model_folder
from engine.settings.errors import EngineError, ModelFileError

FORMAT = "attention-studio-model"
FORMAT_VERSION = 1
MAX_CONFIG_BYTES = 4 * 1024 * 1024  # a config.json with every metric is ~60 KB


def update_config(folder: Path, info: dict[str, Any]) -> None:
    """Rewrite a model folder's config.json (e.g. with new metrics; the files' hashes unchanged)."""
    settle_model_folder(folder)
    write_json_atomic(Path(folder) / CONFIG_FILE, info)


def read_config(folder: Path) -> dict[str, Any]:
    """config.json of a model folder, checked for format (cheap: no weights are read)."""
    folder = Path(folder)
    if not folder.is_dir():
        raise ModelFileError(f"{folder} is not a model folder (no such directory)")
    return parse_config(folder, model_files_folder(folder))


def parse_config(folder: Path, files: Path) -> dict[str, Any]:
    """config.json of ``folder`` read from ``files`` (the folder or its staged set), checked: format, version,
    schema."""
    path = files / CONFIG_FILE
    if not path.exists() and not path.is_symlink():
        raise ModelFileError(f"{folder} is not a model folder: {CONFIG_FILE} is missing")
    try:  # a regular file only, at most MAX_CONFIG_BYTES read (engine.files.safe_open)
        info = json.loads(read_capped(path, MAX_CONFIG_BYTES, ModelFileError).decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise ModelFileError(f"{path} is not valid JSON ({error})") from None
    except RecursionError:
        raise ModelFileError(f"{path} is not a valid model config: it nests too deep to read") from None
    if not isinstance(info, dict) or info.get("format") != FORMAT:
        raise ModelFileError(f"{path} is not an Attention Studio model config (format is not {FORMAT!r})")
    if info.get("format_version") != FORMAT_VERSION:
        raise ModelFileError(f"{path} has format version {info.get('format_version')}; this app reads {FORMAT_VERSION}")
    problem = config_problem(info)
    if problem is not None:
        raise ModelFileError(f"{path} is not a valid model config: {problem}")
    return info


def run_has_ended(folder: Path) -> bool:
    """True when the model folder records how its run ended on its own (completed, early stopping or
    time budget: engine.records.run_report.record_test_metrics wrote it); False for a stopped or
    unreadable run."""
    try:
        info = read_config(folder)
    except EngineError:
        return False
    return bool((info.get("training") or {}).get("finished"))
