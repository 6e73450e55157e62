"""The opener of every stored file (engine/files/safe_open.py): a regular file only, read in bounded chunks up
to a cap that counts what was read."""

from __future__ import annotations

import os
import socket
from pathlib import Path

import pytest

from engine.files import safe_open
from engine.files.safe_open import open_regular, read_capped
from engine.settings.errors import DataError, StoredFileError


def test_a_file_of_exactly_the_cap_is_read_and_one_byte_more_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "f"
    path.write_bytes(b"x" * 100)
    assert read_capped(path, 100) == b"x" * 100
    with pytest.raises(StoredFileError, match=r"larger than 99 bytes"):
        read_capped(path, 99)


def test_chunks_join_back_to_the_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(safe_open, "CHUNK_BYTES", 7)
    data = bytes(range(256)) * 3
    (tmp_path / "f").write_bytes(data)
    assert read_capped(tmp_path / "f", len(data)) == data
    with pytest.raises(StoredFileError, match="larger than"):
        read_capped(tmp_path / "f", len(data) - 1)


def test_a_link_to_a_regular_file_is_read_and_a_missing_file_named(tmp_path: Path) -> None:
    (tmp_path / "f").write_bytes(b"data")
    (tmp_path / "link").symlink_to(tmp_path / "f")
    assert read_capped(tmp_path / "link", 10) == b"data"
    with pytest.raises(DataError, match="missing"):
        read_capped(tmp_path / "nothing", 10, DataError)
    (tmp_path / "dangling").symlink_to(tmp_path / "nothing")
    with pytest.raises(StoredFileError, match="missing"):
        open_regular(tmp_path / "dangling")


@pytest.mark.skipif(not hasattr(socket, "AF_UNIX"), reason="Unix sockets are POSIX only")
def test_a_socket_is_refused_in_one_line(tmp_path: Path) -> None:
    path = tmp_path / "s"
    with socket.socket(socket.AF_UNIX) as listener:
        listener.bind(str(path))
        with pytest.raises(StoredFileError, match="not a regular file") as refused:
            read_capped(path, 10)
    assert "\n" not in str(refused.value)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs are POSIX only")
def test_what_was_expected_is_named(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "p")
    with pytest.raises(DataError, match=r"p is a pipe \(FIFO\), not a regular file; a corpus file must be"):
        open_regular(tmp_path / "p", DataError, expected="a corpus file")
