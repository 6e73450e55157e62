"""Opening a stored file safely: a regular file only, its bytes read within a cap.

Where a stored file should be, a pipe (FIFO) blocks its reader at ``open`` until a writer comes, a
device (``/dev/zero``, or a link to it) never ends, and a folder fails late with an obscure error.
So every reader of a file the engine or the app stored — metrics log, checkpoint state and tensors,
token cache, weight snapshots, model configs (and the studies in them), session files, the corpus
alignment — opens it here:

- :func:`open_regular` opens without blocking (``O_NONBLOCK``: a pipe opens at once instead of
  waiting for a writer), then judges what it opened (``fstat`` on the open descriptor, so a link is
  followed and what it leads to is judged, with no gap between the check and the open), and hands
  back a blocking binary handle only for a regular file;
- :func:`read_capped` reads at most ``max_bytes`` in bounded chunks and judges the size by what it
  actually read, never by ``stat`` alone (a file that grows while it is read is still refused, and
  nothing the size of the cap is allocated up front).

Every refusal is one line naming the path and what it is (``a pipe (FIFO)``, ``a device``, ``a
folder``, ``a socket``), raised as the caller's own error type (``error=``), so each reader keeps
the error its callers already handle.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path
from typing import BinaryIO

from engine.settings.errors import EngineError, StoredFileError

__all__ = ["CHUNK_BYTES", "file_kind", "open_regular", "read_capped", "require_regular"]

_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
CHUNK_BYTES = 16 * 1024 * 1024  # one read; a capped read holds at most the cap plus one chunk
_KINDS = ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a pipe (FIFO)"), (stat.S_ISCHR, "a device"),
          (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"))


def file_kind(mode: int) -> str:
    """What a ``st_mode`` is, in words: "a regular file", "a folder", "a pipe (FIFO)", "a device", …"""
    if stat.S_ISREG(mode):
        return "a regular file"
    return next((name for test, name in _KINDS if test(mode)), "not a regular file")


def _refusal(path: Path, kind: str, expected: str) -> str:
    return f"{path} is {kind}, not a regular file; {expected} must be a regular file"


def open_regular(path: Path, error: type[EngineError] = StoredFileError, expected: str = "a stored file") -> BinaryIO:
    """``path`` opened for binary reading when it is (or links to) a regular file; ``error`` with
    one line naming the path and what it is otherwise (missing, a pipe, a device, a folder, …);
    ``expected`` names what should be there ("a corpus file")."""
    path = Path(path)
    flags = os.O_RDONLY | _NONBLOCK | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)
    try:
        descriptor = os.open(path, flags)
    except FileNotFoundError:
        raise error(f"{path} is missing") from None
    except OSError as failure:
        if failure.errno == errno.ENXIO:  # a socket (or a device with nothing behind it)
            raise error(_refusal(path, "a socket or an unattached device", expected)) from None
        raise error(f"cannot read {path}: {failure.strerror or failure}") from None
    try:
        mode = os.fstat(descriptor).st_mode
        if not stat.S_ISREG(mode):
            raise error(_refusal(path, file_kind(mode), expected))
        if _NONBLOCK:  # POSIX: reads block as usual from here on (Windows has no O_NONBLOCK to undo)
            os.set_blocking(descriptor, True)
        return os.fdopen(descriptor, "rb")
    except BaseException:
        os.close(descriptor)
        raise


def require_regular(path: Path, error: type[EngineError] = StoredFileError, expected: str = "a stored file") -> None:
    """Refuse ``path`` unless it is (or links to) a regular file — for readers that must hand the
    path itself on (a memory map, a library that opens it); it is opened and closed here, never read."""
    open_regular(path, error, expected).close()


def read_capped(path: Path, max_bytes: int, error: type[EngineError] = StoredFileError) -> bytes:
    """The bytes of the regular file ``path``, at most ``max_bytes`` of them, read in chunks of at
    most :data:`CHUNK_BYTES`; ``error`` naming the path when it is not a regular file or holds more."""
    path = Path(path)
    with open_regular(path, error) as handle:
        chunks: list[bytes] = []
        total = 0
        try:
            while total <= max_bytes:
                block = handle.read(min(CHUNK_BYTES, max_bytes + 1 - total))
                if not block:
                    break
                chunks.append(block)
                total += len(block)
        except OSError as failure:
            raise error(f"cannot read {path}: {failure.strerror or failure}") from None
    if total > max_bytes:
        raise error(f"{path} is larger than {max_bytes:,} bytes; not a file this version wrote")
    return b"".join(chunks)
