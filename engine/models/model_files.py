"""A model folder's four files (``config.json``, ``model.safetensors``, ``src.model``,
``tgt.model``), the optional record of its training words (``words.json``,
engine.text.training_words), and their replacement as one.

``config.json`` records the sha256 of the three other files, so a folder whose files do not belong
together is detected on load (engine.models.bundle). Saving replaces the four files as one: the new set is
written and fsynced in ``.incoming.tmp/``, renamed to ``.incoming/`` (the commit point, one rename),
copied over the old files one by one, and ``.incoming/`` is removed, its ``config.json`` first.
While ``.incoming/config.json`` exists, readers take the whole set from there, and the next writer
finishes the copy first; so a crash at any instant leaves the old model or the new one loadable.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from engine.files.atomic import _fsync_folder, write_bytes_atomic
from engine.text.training_words import WORDS_FILE  # older folders lack it

CONFIG_FILE, WEIGHTS_FILE, SOURCE_TOKENIZER_FILE, TARGET_TOKENIZER_FILE = (
    "config.json",
    "model.safetensors",
    "src.model",
    "tgt.model",
)
MODEL_FILES = (WEIGHTS_FILE, SOURCE_TOKENIZER_FILE, TARGET_TOKENIZER_FILE, CONFIG_FILE)  # config.json last
OPTIONAL_FILES = (WORDS_FILE,)
_ORDER = (WEIGHTS_FILE, SOURCE_TOKENIZER_FILE, TARGET_TOKENIZER_FILE, *OPTIONAL_FILES, CONFIG_FILE)
INCOMING_FOLDER = ".incoming"  # a committed new set of the four files, while it is copied into place
STAGING_FOLDER = ".incoming.tmp"  # a new set being written (not committed: ignored by readers)


def replace_model_files(folder: Path, files: dict[str, bytes]) -> None:
    """Replace the model files of ``folder`` with ``files`` (the four, and any of OPTIONAL_FILES) as
    one (see the module docstring)."""
    folder = Path(folder)
    unknown = sorted(set(files) - set(_ORDER))
    if unknown:
        raise ValueError(f"not a model file: {', '.join(unknown)}; a model folder holds {', '.join(_ORDER)}")
    settle_model_folder(folder)
    staging = folder / STAGING_FOLDER
    shutil.rmtree(staging, ignore_errors=True)  # an uncommitted set from a crashed save
    staging.mkdir()
    for name in _ORDER:
        if name in files or name in MODEL_FILES:
            write_bytes_atomic(staging / name, files[name])
    os.replace(staging, folder / INCOMING_FOLDER)  # the commit point
    _fsync_folder(folder)
    settle_model_folder(folder)


def settle_model_folder(folder: Path) -> None:
    """Finish a replacement that a crash interrupted after its commit point (a no-op otherwise)."""
    incoming = Path(folder) / INCOMING_FOLDER
    if not (incoming / CONFIG_FILE).is_file():
        shutil.rmtree(incoming, ignore_errors=True)  # never committed, or its removal was under way
        return
    for name in _ORDER:
        if name in OPTIONAL_FILES and not (incoming / name).is_file():
            (Path(folder) / name).unlink(missing_ok=True)  # the new set has none: the old one no longer belongs
            continue
        write_bytes_atomic(Path(folder) / name, (incoming / name).read_bytes())
    (incoming / CONFIG_FILE).unlink()  # first: from here on readers use the folder's own files
    _fsync_folder(incoming)
    shutil.rmtree(incoming, ignore_errors=True)


def model_file_names(folder: Path) -> tuple[str, ...]:
    """The names of the model files ``folder`` holds: the four, and each optional one present."""
    return tuple(name for name in _ORDER if name in MODEL_FILES or (Path(folder) / name).is_file())


def model_files_folder(folder: Path) -> Path:
    """Where the folder's current set of model files is: ``.incoming/`` while a committed
    replacement is being copied into place, else the folder itself."""
    incoming = Path(folder) / INCOMING_FOLDER
    return incoming if (incoming / CONFIG_FILE).is_file() else Path(folder)
