"""What a token cache's files must be before a run trains from them (engine.corpus.token_cache).

A cache folder's ``corpus.json`` and an id folder's ``ids.json`` fit their schemas, carry their own
digest and the sha256 of every file beside them; the id arrays agree with their offsets (one offset
per pair plus one, starting at 0, never decreasing, the last one the number of ids the file holds).
A folder that fails any check raises :class:`StoredFileError` naming the file; the cache then
rebuilds it (engine.corpus.token_cache.prepare_cached).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from engine.corpus.data import SPLIT_RULES
from engine.files.schema import SHA256, Anything, Choice, Int, ListOf, MapOf, Num, Obj, Str
from engine.files.stored import read_json, require_sha256
from engine.settings.errors import StoredFileError

CACHE_FORMAT = 2
SIDES = ("source", "target")
CORPUS_FILES = ("src.model", "tgt.model", "held_out_sources.npy", "train.txt")
ID_FILES = tuple(f"{side}.{kind}" for side in SIDES for kind in ("ids", "offsets.npy"))

COUNT = Int(low=0)
_PAIR = Obj({"source": Str(), "target": Str(), "english": Str(), "attribution": Str()},
            frozenset({"source", "target", "english"}))
_SKIPPED = Obj({"line_number": COUNT, "reason": Str(max_length=1_000), "text": Str(max_length=10_000)},
               frozenset({"line_number", "reason", "text"}))
CORPUS_META = Obj({
    "format": Choice((CACHE_FORMAT,)), "corpus": Str(max_length=4096), "split_rule": Choice(SPLIT_RULES),
    "lines_read": COUNT, "pairs_kept": COUNT, "duplicates_removed": COUNT, "skipped_total": COUNT,
    "skipped": ListOf(_SKIPPED, max_items=10_000), "train_written": COUNT, "tokenizer_sample": COUNT,
    "tokenizer_sha256": ListOf(SHA256, 2, 2), "valid": ListOf(_PAIR), "test": ListOf(_PAIR),
    "train_removed_overlap": COUNT, "files": Obj({name: SHA256 for name in CORPUS_FILES}, frozenset(CORPUS_FILES)),
    "digest": SHA256,
}, required=frozenset({"format", "corpus", "split_rule", "lines_read", "pairs_kept", "duplicates_removed",
                       "skipped_total", "skipped", "train_written", "tokenizer_sha256", "valid", "test",
                       "train_removed_overlap", "files"}))
IDS_META = Obj({
    "dtype": Choice(("uint16", "uint32")), "pairs": COUNT, "left_out_too_long": Int(), "train_removed_overlap": COUNT,
    "seconds": Num(low=0), "tokenizer_sha256": ListOf(SHA256, 2, 2),
    "files": Obj({name: SHA256 for name in ID_FILES}, frozenset(ID_FILES)), "digest": SHA256,
}, required=frozenset({"dtype", "pairs", "tokenizer_sha256", "files"}))
IDS_TOKENIZERS = Obj({"tokenizer_sha256": ListOf(SHA256, 2, 2)}, frozenset({"tokenizer_sha256"}), extra=Anything())
DIGEST_MEMO = Obj({"entries": MapOf(SHA256, max_items=100_000), "digest": SHA256}, frozenset({"entries"}),
                  extra=Anything())


def read_corpus_meta(folder: Path) -> dict[str, Any]:
    """A cache folder's ``corpus.json``, checked, with the tokenizers' and held-out hashes' files
    verified (the training text is verified when it is read: it may be large)."""
    meta = read_json(folder / "corpus.json", CORPUS_META, digest=True)
    for name in CORPUS_FILES[:3]:
        require_sha256(folder / name, meta["files"][name])
    return meta


def read_ids_meta(folder: Path, tokenizer_sha256: list[str]) -> dict[str, Any]:
    """An id folder's ``ids.json``, checked, its files verified and its arrays consistent; the ids
    must be those of the tokenizers ``tokenizer_sha256``."""
    meta = read_json(folder / "ids.json", IDS_META, digest=True)
    if meta["tokenizer_sha256"] != tokenizer_sha256:
        raise StoredFileError(f"{folder / 'ids.json'} holds the ids of other tokenizers than its folder's name says")
    for name in ID_FILES:
        require_sha256(folder / name, meta["files"][name])
    for side in SIDES:
        check_offsets(folder, side, meta["pairs"], np.dtype(meta["dtype"]))
    return meta


def check_offsets(folder: Path, side: str, pairs: int, dtype: np.dtype) -> np.ndarray:
    """One side's offsets, once they agree with the pair count and the id file's size."""
    path = folder / f"{side}.offsets.npy"
    try:
        offsets = np.load(path, mmap_mode="r", allow_pickle=False)
    except (OSError, ValueError, EOFError) as error:
        raise StoredFileError(f"{path} is not an array of offsets ({' '.join(str(error).split())[:120]})") from None
    if offsets.dtype != np.int64 or offsets.ndim != 1 or len(offsets) != pairs + 1:
        raise StoredFileError(f"{path} must hold {pairs + 1:,} int64 offsets; it holds {offsets.shape} "
                              f"{offsets.dtype}")
    if offsets[0] != 0 or bool(np.any(np.diff(offsets) < 0)):
        raise StoredFileError(f"{path}: the offsets must start at 0 and never decrease")
    size = (folder / f"{side}.ids").stat().st_size
    if size != int(offsets[-1]) * dtype.itemsize:
        raise StoredFileError(f"{folder / f'{side}.ids'} holds {size:,} bytes; its offsets say "
                              f"{int(offsets[-1]) * dtype.itemsize:,}")
    return offsets
