"""A run's checkpoint as the rest of the program asks about it, without PyTorch: whether there is
one, how far it came, when it was written, the run's own tokenizers beside it, and removing it.
Writing and loading its tensors is engine.training.checkpoint's (the format is described there).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

from engine.files.stored import bytes_sha256, check, parse_json, read_bytes, require_digest
from engine.settings.errors import StoredFileError
from engine.training.checkpoint_schema import state_spec

CHECKPOINT_FOLDER = "checkpoint"
STATE_FILE = "state.json"
LEGACY_TENSORS_FILE = "state.safetensors"  # the tensors of a checkpoint written before version 2
MAX_STATE_BYTES = 64 * 1024 * 1024
MAX_TOKENIZER_BYTES = 64 * 1024**2
TOKENIZER_FILES = ("src.model", "tgt.model")  # the run's own tokenizers, written when it starts


def read_state(folder: Path) -> dict[str, Any]:
    """``state.json``, checked: its schema (this version's or the one before) and its digest."""
    path = folder / STATE_FILE
    document = parse_json(read_bytes(path, MAX_STATE_BYTES), path)
    check(document, state_spec(document), path)
    require_digest(document, path)
    return document


def discard_checkpoint(run_folder: Path) -> None:
    """Delete a run's checkpoint (weight snapshots included), e.g. before a new run replaces it. The
    folder is first renamed away in one step, so no reader ever sees half of it."""
    run_folder = Path(run_folder)
    for stale in run_folder.glob(f".{CHECKPOINT_FOLDER}.discarded-*"):  # left by a crash during a discard
        shutil.rmtree(stale, ignore_errors=True)
    folder = run_folder / CHECKPOINT_FOLDER
    if not folder.exists():
        return
    doomed = run_folder / f".{CHECKPOINT_FOLDER}.discarded-{os.getpid()}"
    os.replace(folder, doomed)
    shutil.rmtree(doomed, ignore_errors=True)


def checkpoint_progress(run_folder: Path) -> dict[str, Any] | None:
    """The progress recorded in the checkpoint (cheap: the tensors are not read); None if there is
    none or it is damaged (the resume itself then says why)."""
    if not has_checkpoint(run_folder):
        return None
    try:
        return read_state(Path(run_folder) / CHECKPOINT_FOLDER)["progress"]
    except StoredFileError:
        return None


def checkpoint_tokenizers(run_folder: Path) -> tuple[bytes, bytes] | None:
    """The run's own tokenizers kept beside its checkpoint (``src.model``, ``tgt.model``), as bytes;
    None when there are none. A checkpoint that records their sha256 (version 2) must name these."""
    folder = Path(run_folder) / CHECKPOINT_FOLDER
    paths = [folder / name for name in TOKENIZER_FILES]
    if not all(path.is_file() for path in paths):
        return None
    data = (read_bytes(paths[0], MAX_TOKENIZER_BYTES), read_bytes(paths[1], MAX_TOKENIZER_BYTES))
    try:
        recorded = read_state(folder).get("tokenizers")
    except StoredFileError:
        recorded = None  # the checkpoint itself is judged when it is loaded
    for path, content, expected in zip(paths, data, recorded or (None, None), strict=True):
        if expected is not None and bytes_sha256(content) != expected:
            raise StoredFileError(f"{path} is not the tokenizer the checkpoint in {folder} was trained with "
                                  "(its sha256 differs)")
    return data


def checkpoint_time(run_folder: Path) -> float:
    """When the checkpoint was last written (seconds since the epoch; 0 without one)."""
    try:
        return (Path(run_folder) / CHECKPOINT_FOLDER / STATE_FILE).stat().st_mtime
    except OSError:
        return 0.0


def checkpoint_step(run_folder: Path) -> int | None:
    """The step the checkpoint in ``run_folder`` was written at; None if there is none (or it is unreadable)."""
    progress = checkpoint_progress(run_folder)
    return None if progress is None else progress["step"]


def resumable_from(run_folder: Path) -> str:
    """What a user can resume after a stop, in words (said truthfully: there may be nothing)."""
    step = checkpoint_step(run_folder)
    if step is None:
        return f"no checkpoint was written in {run_folder}: there is nothing to resume, a new run starts over"
    return f"the checkpoint at step {step:,} in {run_folder} continues with --resume"


def has_checkpoint(run_folder: Path) -> bool:
    """A checkpoint is there (whole or not: loading it says which)."""
    folder = Path(run_folder) / CHECKPOINT_FOLDER
    if not (folder / STATE_FILE).is_file():
        return False
    return (folder / LEGACY_TENSORS_FILE).is_file() or next(folder.glob("tensors-*.safetensors"), None) is not None
