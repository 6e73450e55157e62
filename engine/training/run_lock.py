"""One run per folder: claiming a run folder before training writes anything into it.

Two guards, both before the first byte is written:

- **No silent overwrite.** A folder that already holds a trained model (``config.json``) or a run's
  checkpoint is refused for a new run: continue it (``resume``), replace it on purpose
  (``overwrite``), or choose another folder.
- **No two writers.** The run holds an exclusive lock on ``<folder>/.lock`` (``fcntl.flock`` on POSIX,
  ``msvcrt.locking`` on Windows) for as long as it runs; the lock file records the holder's process
  id, and a second run into the same folder is refused with it. The operating system releases the
  lock when the process ends, however it ends, so a crashed run never leaves the folder locked.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from types import TracebackType
from typing import IO

from engine.files.safe_open import open_regular
from engine.settings.errors import EngineError
from engine.training.checkpoint_state import has_checkpoint

LOCK_FILE = ".lock"
MODEL_CONFIG_FILE = "config.json"  # the model folder's config (engine.models.bundle.CONFIG_FILE; no import cycle)


class RunFolderError(EngineError):
    """The run folder cannot be used for this run; the message says why and what to do."""


def check_new_run_allowed(folder: Path, resume: bool, overwrite: bool, resumable: bool = True) -> None:
    """Refuse a new run (or another command's new model, ``resumable`` False) into a folder that
    holds a model or a checkpoint, unless told otherwise."""
    folder = Path(folder)
    if resume or overwrite or not folder.is_dir():
        return
    held = [what for what, present in (("a trained model (config.json)", (folder / MODEL_CONFIG_FILE).is_file()),
                                       ("a run's checkpoint", has_checkpoint(folder))) if present]
    if held:
        choices = ("Continue that run (--resume), replace it (--overwrite), or choose another folder" if resumable
                   else "Replace it (--overwrite) or choose another folder")
        raise RunFolderError(f"{folder} already holds {' and '.join(held)}; writing there would replace it. "
                             f"{choices}")


class RunFolderLock:
    """An exclusive, process-lifetime lock on a run folder (a context manager)."""

    def __init__(self, folder: Path) -> None:
        self.folder = Path(folder)
        self.path = self.folder / LOCK_FILE
        self._handle: IO[str] | None = None

    def acquire(self) -> RunFolderLock:
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            handle = open(self.path, "a+", encoding="utf-8")  # noqa: SIM115 (held until release)
        except OSError as error:
            raise RunFolderError(f"cannot write to the run folder {self.folder}: {error.strerror or error}") from None
        if not _try_lock(handle):
            handle.seek(0)
            holder = handle.read().strip() or "unknown"
            handle.close()
            raise RunFolderError(
                f"{self.folder} is in use by another training run (process {holder}); wait for it to end, "
                "stop it, or choose another folder")
        handle.seek(0)
        handle.truncate()
        handle.write(str(os.getpid()))
        handle.flush()
        self._handle = handle
        return self

    def release(self) -> None:
        if self._handle is None:
            return
        handle, self._handle = self._handle, None
        try:
            handle.seek(0)
            handle.truncate()
            _unlock(handle)
        finally:
            handle.close()

    @property
    def held(self) -> bool:
        return self._handle is not None

    def __enter__(self) -> RunFolderLock:
        return self.acquire() if self._handle is None else self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 traceback: TracebackType | None) -> None:
        self.release()


def claim_run_folder(folder: Path, resume: bool = False, overwrite: bool = False,
                     resumable: bool = True) -> RunFolderLock:
    """Lock ``folder`` for one run (or one command that writes a model folder, ``resumable`` False),
    after checking that it may write there. Release the lock (or leave the ``with`` block) when done."""
    lock = RunFolderLock(folder).acquire()
    try:
        check_new_run_allowed(folder, resume, overwrite, resumable)
    except BaseException:
        lock.release()
        raise
    return lock


def lock_holder(folder: Path) -> str | None:
    """The process id a run holding ``folder``'s lock now recorded; None when no run holds it. Only
    reads: a folder without a lock file gets none."""
    try:  # a regular file only (engine.files.safe_open): a pipe in its place would block the reader for good
        handle = open_regular(Path(folder) / LOCK_FILE, RunFolderError)
    except RunFolderError:
        return None  # none, or no lock any run could hold
    with handle:
        if _try_lock(handle):
            _unlock(handle)
            return None
        handle.seek(0)
        return handle.read(64).decode("utf-8", "replace").strip() or "unknown"


@contextlib.contextmanager
def unless_training(folder: Path) -> Iterator[None]:
    """Hold ``folder``'s run lock for the block when it is a run's folder (it has a lock file), so
    that a command updating its model (a length study recorded into config.json) never writes beside
    a run that still trains there; refused, with the run's process id, while one does. A folder that
    never held a run gets no lock file."""
    if not (Path(folder) / LOCK_FILE).is_file():
        yield
        return
    with RunFolderLock(folder):
        yield


if sys.platform == "win32":  # pragma: no cover - exercised on Windows only
    import msvcrt

    def _try_lock(handle) -> bool:
        handle.seek(0)
        try:
            msvcrt.locking(handle.fileno(), msvcrt.LK_NBLCK, 1)
        except OSError:
            return False
        return True

    def _unlock(handle) -> None:
        handle.seek(0)
        with contextlib.suppress(OSError):
            msvcrt.locking(handle.fileno(), msvcrt.LK_UNLCK, 1)
else:
    import fcntl

    def _try_lock(handle) -> bool:
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            return False
        return True

    def _unlock(handle) -> None:
        fcntl.flock(handle.fileno(), fcntl.LOCK_UN)
