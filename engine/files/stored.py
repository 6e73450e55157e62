"""The one reader of the files the engine stores: checkpoints, run requests, metrics log lines, length
studies, token caches and weight snapshots all come in through it.

A stored document is accepted only whole and only as written: its bytes parse (UTF-8 JSON, bounded
in size and nesting), it fits its schema (engine.files.schema: types, ranges, allowed keys, finite
numbers), the parts that must agree do (the caller's shape checks), and its digest — required, never
optional — matches. Tensors come from safetensors files only (a pickle is named as such and never
loaded), every floating-point value finite (engine.files.stored_tensors: this module reads no tensors
and imports no PyTorch). Anything else raises :class:`StoredFileError` with one
line that names the file and what is wrong with it; no other exception escapes a reader.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from engine.files.safe_open import open_regular, read_capped
from engine.files.schema import SchemaError, Spec
from engine.settings.errors import StoredFileError

DIGEST_KEY = "digest"
MAX_JSON_BYTES = 64 * 1024 * 1024


def parse_json(data: bytes, where: object) -> Any:
    """``data`` as a JSON value (UTF-8). NaN and infinities parse as floats: the schema says where
    they may stand, and bounds the nesting (engine.files.schema)."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise StoredFileError(f"{where} is not UTF-8 text (byte {error.start:,})") from None
    try:
        return json.loads(text)
    except RecursionError:
        raise StoredFileError(f"{where} nests too deep to read") from None
    except ValueError as error:  # JSONDecodeError, and integers too long to convert
        raise StoredFileError(f"{where} is not valid JSON ({one_line(error)})") from None


def check(value: Any, spec: Spec, where: object) -> Any:
    """``value`` when it fits ``spec``; else StoredFileError naming ``where`` and the place in it."""
    try:
        spec.check(value)
    except SchemaError as error:
        raise StoredFileError(f"{where}: {error}") from None
    except RecursionError:
        raise StoredFileError(f"{where} nests too deep to check") from None
    return value


def read_bytes(path: Path, max_bytes: int | None = None) -> bytes:
    """A stored file's bytes (at most ``max_bytes``, counted as read): a regular file only
    (engine.files.safe_open: a pipe, device or folder is refused before anything is read)."""
    return read_capped(path, MAX_JSON_BYTES if max_bytes is None else max_bytes, StoredFileError)


def read_json(path: Path, spec: Spec, max_bytes: int | None = None, digest: bool = False) -> Any:
    """The JSON document in ``path`` (at most ``max_bytes``, by default MAX_JSON_BYTES), checked
    against ``spec`` (and its own digest, with ``digest``)."""
    data = read_bytes(path, MAX_JSON_BYTES if max_bytes is None else max_bytes)
    document = check(parse_json(data, path), spec, path)
    if digest:
        require_digest(document, path)
    return document


def canonical_digest(value: Any) -> str:
    """sha256 of ``value``'s canonical JSON (keys sorted): any edit of the document changes it."""
    text = json.dumps(value, sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def with_digest(document: Mapping[str, Any]) -> dict[str, Any]:
    """``document`` with its digest added under ``digest`` (what :func:`require_digest` checks)."""
    body = {key: value for key, value in document.items() if key != DIGEST_KEY}
    return {**body, DIGEST_KEY: canonical_digest(body)}


def require_digest(document: Any, where: object) -> None:
    """Refuse a document without its digest, or whose digest no longer matches it."""
    if not isinstance(document, dict) or not isinstance(document.get(DIGEST_KEY), str):
        raise StoredFileError(f"{where} has no digest: it was not written whole by this version, or was edited")
    body = {key: value for key, value in document.items() if key != DIGEST_KEY}
    if canonical_digest(body) != document[DIGEST_KEY]:
        raise StoredFileError(f"{where} was changed after it was written (its digest differs)")


def bytes_sha256(data: bytes) -> str:
    """The sha256 hex digest of ``data``."""
    return hashlib.sha256(data).hexdigest()


def file_sha256(path: Path, chunk: int = 1 << 22) -> str:
    """sha256 of a regular file, read in chunks (memory bounded whatever its size; a pipe or device
    is refused, engine.files.safe_open)."""
    digest = hashlib.sha256()
    try:
        with open_regular(path, StoredFileError) as handle:
            while block := handle.read(chunk):
                digest.update(block)
    except OSError as error:
        raise StoredFileError(f"cannot read {path}: {error.strerror or error}") from None
    return digest.hexdigest()


def require_sha256(path: Path, expected: str) -> None:
    """Refuse ``path`` unless its sha256 is ``expected`` (as recorded when it was written)."""
    if file_sha256(path) != expected:
        raise StoredFileError(f"{path} was changed after it was written (its sha256 differs)")


def looks_like_pickle(data: bytes) -> bool:
    """Whether ``data`` starts as a pickle (or a zip-packed PyTorch file) does: never loaded."""
    return data[:2] in (b"\x80\x02", b"\x80\x03", b"\x80\x04", b"\x80\x05") or data[:2] == b"PK"


def one_line(error: BaseException) -> str:
    """``error``'s message on one line, at most 200 characters."""
    return " ".join(str(error).split())[:200]
