"""Atomic file writes: temp file in the same folder + fsync + ``os.replace``.

A reader (or a crash) sees either the old file or the new one, never half of either.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any


def write_bytes_atomic(path: Path, data: bytes) -> None:
    """Replace ``path`` with ``data`` atomically; the folder must exist."""
    path = Path(path)
    with atomic_writer(path) as temp:
        temp.write(data)


@contextlib.contextmanager
def atomic_writer(path: Path) -> Iterator[IO[bytes]]:
    """A binary file to write ``path``'s new content into, piece by piece (memory bounded); it
    replaces ``path`` atomically when the block ends, and is discarded if the block raises."""
    path = Path(path)
    handle, temp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        if hasattr(os, "fchmod"):  # mkstemp makes 0600; a written file gets the mode any new file gets
            os.fchmod(handle, 0o666 & ~_current_umask())
        with os.fdopen(handle, "wb") as temp:
            yield temp
            temp.flush()
            os.fsync(temp.fileno())
        os.replace(temp_name, path)
    except BaseException:
        Path(temp_name).unlink(missing_ok=True)
        raise
    _fsync_folder(path.parent)


def _current_umask() -> int:
    mask = os.umask(0o022)  # the only way to read it is to set it; put it straight back
    os.umask(mask)
    return mask


def write_json_atomic(path: Path, value: Any) -> None:
    """Write ``value`` as indented UTF-8 JSON to ``path`` in one step (:func:`write_bytes_atomic`)."""
    write_bytes_atomic(path, (json.dumps(value, ensure_ascii=False, indent=2) + "\n").encode("utf-8"))


def _fsync_folder(folder: Path) -> None:
    try:
        descriptor = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(descriptor)
    except OSError:
        pass
    finally:
        os.close(descriptor)
