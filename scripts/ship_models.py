"""Copy rebuilt model folders from a build folder into resources/models (the shipped set).

    python scripts/ship_models.py build/models [--into resources/models] [--only NAME ...]

Models are built in an ignored folder (scripts/build_shipped_models.py --out build/models), tuned
there (scripts/tune_decoding.py) and compared; the final set is then copied into the repository once,
because every committed rebuild stays in its history. Only a model folder's four files travel —
config.json, model.safetensors, src.model, tgt.model (and words.json, the record of its training
words, where it has one) — never the run's checkpoint, snapshots, lock or metrics log. Each folder
is checked (it loads, its files match their hashes) before anything is replaced, and the recorded
command names the shipped folder as its ``--out``, so that it rebuilds the model where it is shipped.

A crash at any instant leaves each shipped folder holding its old model or its new one, whole. The
new set is staged in a hidden folder beside it (``.NAME.shipping-PID``: never listed as a model);
a folder that did not exist is put in place by one rename, and one that did has its four files
replaced as one by the model save's own commit (engine.models.model_files: ``.incoming/`` is the commit
point, readers take the set from there until it is copied in), under the same lock as ``train``
(engine.training.run_lock: a folder a training writes is refused). Only then are the other files the folder
held (an old run's state) removed. Every engine error ends in one line on stderr, exit 2.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import re
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from engine.files.atomic import _fsync_folder  # noqa: E402
from engine.models.bundle import load_model_folder  # noqa: E402
from engine.models.config_file import read_config, update_config  # noqa: E402
from engine.models.model_files import (  # noqa: E402
    MODEL_FILES,  # noqa: E402
    OPTIONAL_FILES,
    model_file_names,
    replace_model_files,
)
from engine.settings.errors import EngineError  # noqa: E402
from engine.training.run_lock import LOCK_FILE, RunFolderLock  # noqa: E402

OUT_FLAG = re.compile(r"--out \S+")


class ShipError(EngineError):
    """A model folder cannot be shipped; the message says which and why."""


def ship(build_folder: Path, into: Path, names: list[str] | None = None) -> list[str]:
    """Copy the model folders of ``build_folder`` (all, or ``names``) into ``into``; returns their names.
    Every folder is loaded first: a broken one stops the copy before anything is replaced."""
    if not build_folder.is_dir():
        raise ShipError(f"{build_folder} is not a folder of rebuilt models")
    folders = sorted(f for f in build_folder.iterdir() if (f / "config.json").is_file())
    if names:
        missing = sorted(set(names) - {f.name for f in folders})
        if missing:
            raise ShipError(f"no model folder {', '.join(missing)} in {build_folder}")
        folders = [f for f in folders if f.name in names]
    for folder in folders:
        try:
            load_model_folder(folder)
        except EngineError as error:
            raise ShipError(f"{folder} is not a loadable model: {error}") from None
    into.mkdir(parents=True, exist_ok=True)
    for folder in folders:
        _ship_one(folder, into)
    return [f.name for f in folders]


def _ship_one(folder: Path, into: Path) -> None:
    """Stage ``folder``'s four files beside their place in ``into`` and swap them in (module docstring)."""
    target = into / folder.name
    for stale in into.glob(f".{folder.name}.shipping-*"):  # a crashed ship's staging: never a model
        shutil.rmtree(stale, ignore_errors=True)
    staged = into / f".{folder.name}.shipping-{os.getpid()}"
    staged.mkdir()
    try:
        names = model_file_names(folder)  # the four, and the record of training words when it has one
        for name in names:
            shutil.copy2(folder / name, staged / name)
        _name_the_shipped_folder(staged, target)
        load_model_folder(staged)  # still whole
        if target.exists():
            with _claimed(target):
                replace_model_files(target, {name: (staged / name).read_bytes() for name in names})
                _remove_all_but_the_model(target)
        else:
            os.replace(staged, target)  # one rename: no model, or the new one whole
            _fsync_folder(into)
    finally:
        shutil.rmtree(staged, ignore_errors=True)


def _name_the_shipped_folder(staged: Path, target: Path) -> None:
    """The recorded command's ``--out`` becomes the shipped folder (relative to the repository)."""
    info = read_config(staged)
    shipped_path = target.resolve()
    try:
        out = shipped_path.relative_to(ROOT)
    except ValueError:
        out = shipped_path
    if isinstance(info.get("command"), str):
        info["command"] = OUT_FLAG.sub(f"--out {out.as_posix()}", info["command"])
        update_config(staged, info)


@contextlib.contextmanager
def _claimed(target: Path) -> Iterator[None]:
    """``target`` held under the run lock for the block (RunFolderError when a training holds it);
    a lock file made here is removed after, so that a shipped folder holds its four files only."""
    made = not (target / LOCK_FILE).exists()
    with RunFolderLock(target):
        yield
    if made:
        (target / LOCK_FILE).unlink(missing_ok=True)


def _remove_all_but_the_model(target: Path) -> None:
    """After the commit: what else the folder held (an old run's checkpoint, log, notes) is removed."""
    for path in target.iterdir():
        if path.name in MODEL_FILES or path.name in OPTIONAL_FILES or path.name == LOCK_FILE:
            continue
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path)
        else:
            path.unlink()


def main() -> int:
    """Parse the command line and run (what it does: the module docstring); the exit status."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("build_folder", type=Path, help="folder holding the rebuilt model folders")
    parser.add_argument("--into", type=Path, default=ROOT / "resources" / "models")
    parser.add_argument("--only", nargs="+", default=None, help="model folder names (default: every one)")
    args = parser.parse_args()
    try:
        shipped = ship(args.build_folder, args.into, args.only)
    except EngineError as error:
        print(f"ship_models: error: {error}", file=sys.stderr)
        return 2
    except OSError as error:
        where = f"{error.filename}: " if error.filename else ""
        print(f"ship_models: error: {where}{error.strerror or error}; each shipped folder holds its old model or "
              "its new one", file=sys.stderr)
        return 2
    print(f"shipped {len(shipped)} model(s) into {args.into}: {', '.join(shipped)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
