"""Where a recording is written: checks of the target path before any work, a temporary file beside
it, and the move into place — atomic (``os.replace`` in the same folder) and only once the new file is
whole, so that a failure leaves whatever was at the path untouched.

No Qt here: the recordings' workers call it.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

from PySide6.QtCore import QCoreApplication


class AnimationError(Exception):
    """A recording cannot be written; the message says why, in one line."""


def target_problem(path: Path) -> str:
    """Why nothing can be written at ``path`` ("" when it may be): a folder there, a missing folder."""
    path = Path(path)
    if path.is_dir():
        return QCoreApplication.translate("AttentionExport", "cannot write %1: it is a folder").replace("%1", str(path))
    if not path.parent.exists():
        return QCoreApplication.translate("AttentionExport", "cannot write %1: the folder %2 does not exist").replace(
            "%1", str(path)).replace("%2", str(path.parent))
    if not path.parent.is_dir():
        return QCoreApplication.translate("AttentionExport", "cannot write %1: %2 is not a folder").replace(
            "%1", str(path)).replace("%2", str(path.parent))
    return ""


def cannot_write(path: Path, error: OSError) -> AnimationError:
    """The one-line error of an OSError while writing ``path`` (its reason, not its errno)."""
    return AnimationError(QCoreApplication.translate("AttentionExport", "cannot write %1: %2").replace("%1", str(path)).replace(
            "%2", str(error.strerror or error)))


@contextlib.contextmanager
def temp_beside(path: Path) -> Iterator[Path]:
    """A new empty file in ``path``'s folder, removed when the block ends unless moved into place."""
    path = Path(path)
    problem = target_problem(path)
    if problem:
        raise AnimationError(problem)
    try:
        handle, name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".part", dir=path.parent)
    except OSError as error:
        raise cannot_write(path, error) from None
    os.close(handle)
    temp = Path(name)
    try:
        yield temp
    finally:
        temp.unlink(missing_ok=True)


def move_into_place(temp: Path, path: Path) -> Path:
    """``temp`` (whole, flushed) becomes ``path`` in one step, with the mode any new file gets."""
    try:
        mask = os.umask(0o022)
        os.umask(mask)
        os.chmod(temp, 0o666 & ~mask)
        with open(temp, "rb+") as written:
            os.fsync(written.fileno())
        os.replace(temp, path)
    except OSError as error:
        raise cannot_write(path, error) from None
    return Path(path)
