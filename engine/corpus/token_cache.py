"""Big corpora with bounded memory: the corpus tokenized once into an on-disk array cache.

``train --token-cache`` prepares a corpus in three steps and keeps the result for later runs:

1. one streaming pass (engine/corpus/corpus_stream.py) checks, normalizes, de-duplicates and splits the
   pairs, writing the training pairs to a text file and keeping only the capped held-out parts and a
   seeded sample for the tokenizers;
2. the tokenizers train on that sample (at most ``tokenizer_sample`` pairs), not on the whole text;
3. the training pairs are encoded in chunks (SentencePiece on every core) into flat arrays of ids
   — uint16 when the vocabulary allows, else uint32 — with one offset array per side. The text file
   stays on disk (never in memory) for arrays of other tokenizers.

The cache lives in the user's data folder under ``token-cache/``: the tokenizers and held-out
pairs in a folder keyed by the corpus file's SHA-256 and the settings that shape them, the id
arrays in a subfolder keyed by the two tokenizers' SHA-256 (a resumed run that brings its own
tokenizers gets arrays of its own ids). Every folder is written under a temporary name and renamed
when complete, so a crash never leaves a half cache that looks whole. Training reads the arrays
through memory maps (:class:`TokenPairs`): a run holds ids of the batch it trains on, never the text.

Every file of the cache is recorded with its sha256 in its folder's ``corpus.json`` or ``ids.json``,
which carry their own digest; a cache is used only once they check out (engine.corpus.cache_check). A
damaged cache is rebuilt — with a message naming its folder — rather than trained from or refused.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from itertools import chain
from pathlib import Path

import numpy as np

from engine.corpus.cache_check import CACHE_FORMAT, DIGEST_MEMO, IDS_TOKENIZERS, SIDES, read_corpus_meta, read_ids_meta
from engine.corpus.corpus_read import CorpusReport, Pair, SkippedLine
from engine.corpus.corpus_stream import DEFAULT_TOKENIZER_SAMPLE, HELD_OUT_CAPS, ProgressClock, stream_pairs, text_hash
from engine.corpus.data import Split
from engine.files.atomic import write_bytes_atomic
from engine.files.paths import user_data_folder
from engine.files.safe_open import require_regular
from engine.files.stored import file_sha256, read_json, require_sha256, with_digest
from engine.settings.config import MAX_SOURCE_TOKENS  # the trainer's cap on a training pair's side
from engine.settings.errors import DataError, StoredFileError
from engine.text.readable import format_duration
from engine.text.tokenizer import Tokenizer, TokenizerSettings, train_tokenizer

ENCODE_CHUNK = 20_000  # training pairs encoded per SentencePiece call
_SIDES = SIDES
__all__ = ["CachedCorpus", "TokenPairs", "corpus_digest", "file_sha256", "prepare_cached", "token_cache_folder"]


def token_cache_folder() -> Path:
    """Where token caches are kept: ``token-cache`` in the user's data folder."""
    return user_data_folder() / "token-cache"


def corpus_digest(corpus: Path, cache_root: Path, on_status: Callable[[str], None] = lambda message: None) -> str:
    """The corpus file's SHA-256, remembered against its path, size and modification time (as git's
    index does), so that a later run on an unchanged file does not read it again; any change to the
    file changes its size or time and it is hashed afresh."""
    stat = corpus.stat()
    fingerprint = f"{corpus.resolve()}|{stat.st_size}|{stat.st_mtime_ns}"
    memo = cache_root / "digests.json"
    try:  # a damaged memo is forgotten (the corpus is hashed again), never trusted
        known = read_json(memo, DIGEST_MEMO, max_bytes=64 * 1024 * 1024, digest=True)["entries"]
    except StoredFileError:
        known = {}
    if fingerprint in known:
        return known[fingerprint]
    on_status(f"hashing {corpus.name}")
    digest = file_sha256(corpus)
    known = {key: value for key, value in known.items() if not key.startswith(f"{corpus.resolve()}|")}
    known[fingerprint] = digest
    cache_root.mkdir(parents=True, exist_ok=True)
    write_bytes_atomic(memo, json.dumps(with_digest({"entries": known}), ensure_ascii=False).encode("utf-8"))
    return digest


class TokenPairs(Sequence):
    """Training pairs as sub-word ids, read from the cache's memory-mapped arrays:
    ``pairs[i]`` → (source ids, target ids) as lists, like :func:`engine.training.batches.encode_pairs`."""

    def __init__(self, folder: Path, tokenizer_sha256: list[str] | None = None) -> None:
        """The id arrays of ``folder``, checked (engine.corpus.cache_check; StoredFileError if damaged)."""
        try:
            expected = tokenizer_sha256 or read_json(folder / "ids.json", IDS_TOKENIZERS)["tokenizer_sha256"]
            meta = read_ids_meta(folder, expected)
        except OSError as error:
            raise StoredFileError(f"cannot read the token cache {folder}: {error.strerror or error}") from None
        self.folder = folder
        dtype = np.dtype(meta["dtype"])
        self._ids, self._offsets = {}, {}
        for side in _SIDES:
            offsets = np.load(folder / f"{side}.offsets.npy", mmap_mode="r")
            count = int(offsets[-1])
            ids = np.memmap(folder / f"{side}.ids", dtype=dtype, mode="r", shape=(count,)) if count else np.zeros(
                0, dtype)
            self._ids[side], self._offsets[side] = ids, offsets

    def __len__(self) -> int:
        return len(self._offsets["source"]) - 1

    def __getitem__(self, index: int) -> tuple[list[int], list[int]]:  # type: ignore[override]
        return self._side("source", index), self._side("target", index)

    def _side(self, side: str, index: int) -> list[int]:
        offsets = self._offsets[side]
        return self._ids[side][int(offsets[index]) : int(offsets[index + 1])].tolist()

    def check_vocabularies(self, source_size: int, target_size: int) -> None:
        """Refuse ids no tokenizer of this cache gives (one beyond its vocabulary would index past the
        embedding): StoredFileError naming the file, its largest id and the vocabulary's size."""
        for side, size in zip(_SIDES, (source_size, target_size), strict=True):
            ids = self._ids[side]
            largest = int(ids.max()) if len(ids) else -1
            if largest >= size:
                raise StoredFileError(f"{self.folder / f'{side}.ids'} holds the id {largest:,}, beyond the {side} "
                                      f"vocabulary of {size:,} (ids 0-{size - 1:,})")

    def lengths(self) -> tuple[list[int], list[int]]:
        """(source lengths, target lengths) of every pair, for batching by length without reading ids."""
        return tuple(np.diff(self._offsets[side]).tolist() for side in _SIDES)  # type: ignore[return-value]


@dataclass(frozen=True)
class CachedCorpus:
    """A corpus prepared through the token cache."""

    split: Split  # valid and test pairs (capped); ``train`` is empty: the training pairs are ``train_pairs``
    train_pairs: TokenPairs
    report: CorpusReport
    source_tokenizer: Tokenizer
    target_tokenizer: Tokenizer
    folder: Path
    reused: bool  # True when nothing had to be read, trained or encoded


def prepare_cached(corpus: Path, src: str, tgt: str, split_rule: str, settings: tuple[TokenizerSettings, ...],
                   sample_size: int = DEFAULT_TOKENIZER_SAMPLE, tokenizers: tuple[Tokenizer, Tokenizer] | None = None,
                   cache_root: Path | None = None,
                   on_status: Callable[[str], None] = lambda message: None) -> CachedCorpus:
    """The corpus at ``corpus`` through the cache: reused when its folder exists, built otherwise.
    ``tokenizers`` (a resumed run's) replace the cache's own for the id arrays."""
    corpus = Path(corpus)
    if not corpus.exists() and not corpus.is_symlink():
        raise DataError(f"corpus not found: {corpus}")
    require_regular(corpus, DataError, expected="a corpus file")  # a pipe would block the hashing, a device never end
    digest = corpus_digest(corpus, cache_root or token_cache_folder(), on_status)
    key = _key({"format": CACHE_FORMAT, "corpus": digest, "src": src, "tgt": tgt, "split_rule": split_rule,
                "caps": HELD_OUT_CAPS, "sample": sample_size, "tokenizers": [s.__dict__ for s in settings]})
    folder = (cache_root or token_cache_folder()) / key
    try:
        return _prepare(folder, corpus, src, tgt, split_rule, settings, sample_size, tokenizers, on_status)
    except StoredFileError as error:
        on_status(f"the token cache {folder} is damaged ({error}); rebuilding it")
        _discard(folder)
    try:
        return _prepare(folder, corpus, src, tgt, split_rule, settings, sample_size, tokenizers, on_status)
    except StoredFileError as error:
        raise DataError(f"the token cache {folder} could not be rebuilt whole ({error})") from None


def _discard(folder: Path) -> None:
    """Remove a damaged cache folder: renamed away first (one step), so no run ever opens half of it."""
    doomed = folder.parent / f".{folder.name}.damaged-{os.getpid()}"
    shutil.rmtree(doomed, ignore_errors=True)
    try:
        os.replace(folder, doomed)
    except OSError:
        return  # already gone (another process rebuilt it first)
    shutil.rmtree(doomed, ignore_errors=True)


def _prepare(folder: Path, corpus: Path, src: str, tgt: str, split_rule: str,
             settings: tuple[TokenizerSettings, ...], sample_size: int, tokenizers: tuple[Tokenizer, Tokenizer] | None,
             on_status: Callable[[str], None]) -> CachedCorpus:
    """The cache in ``folder``: used when whole, built where missing; StoredFileError when damaged."""
    reused = (folder / "corpus.json").is_file()
    if not reused:
        _build_corpus_folder(folder, corpus, src, tgt, split_rule, settings, sample_size, on_status)
    meta = read_corpus_meta(folder)
    own = (Tokenizer((folder / "src.model").read_bytes()), Tokenizer((folder / "tgt.model").read_bytes()))
    if [t.sha256 for t in own] != meta["tokenizer_sha256"]:
        raise StoredFileError(f"{folder / 'corpus.json'} names other tokenizers than the folder holds")
    source_tokenizer, target_tokenizer = tokenizers or own
    ids_folder = folder / f"ids-{source_tokenizer.sha256[:16]}-{target_tokenizer.sha256[:16]}"
    if not (ids_folder / "ids.json").is_file():
        reused = False
        _encode_training_pairs(folder, meta, ids_folder, source_tokenizer, target_tokenizer, on_status)
    valid, test = (tuple(Pair(**p) for p in meta[part]) for part in ("valid", "test"))
    report = CorpusReport(path=str(corpus), lines_read=meta["lines_read"], pairs_kept=meta["pairs_kept"],
                          duplicates_removed=meta["duplicates_removed"],
                          skipped=tuple(SkippedLine(**s) for s in meta["skipped"]), skipped_total=meta["skipped_total"])
    pairs = TokenPairs(ids_folder, [source_tokenizer.sha256, target_tokenizer.sha256])
    pairs.check_vocabularies(source_tokenizer.vocab_size, target_tokenizer.vocab_size)
    split = Split(train=(), valid=valid, test=test, train_removed_overlap=meta["train_removed_overlap"])
    return CachedCorpus(split, pairs, report, source_tokenizer, target_tokenizer, folder, reused)


def _key(values: dict) -> str:
    return hashlib.sha256(json.dumps(values, sort_keys=True).encode("utf-8")).hexdigest()[:24]


def _build_corpus_folder(folder: Path, corpus: Path, src: str, tgt: str, split_rule: str,
                         settings: tuple[TokenizerSettings, ...], sample_size: int,
                         on_status: Callable[[str], None]) -> None:
    """Steps 1 and 2: the streaming pass and the tokenizers, into ``folder`` (written whole or not at all)."""
    partial = _partial(folder)
    try:
        on_status(f"reading {corpus.name} (one streaming pass)")
        streamed = stream_pairs(corpus, src, tgt, split_rule, partial / "train.txt", sample_size, on_status)
        if streamed.train_written < 50 or not streamed.valid:
            raise DataError(f"{corpus}: too little data to train ({streamed.train_written} training and "
                            f"{len(streamed.valid)} validation pairs; at least 50 and 1 needed)")
        on_status(f"training the tokenizers on {len(streamed.sample):,} sampled pairs")
        tokenizers = [train_tokenizer((pair[side] for pair in streamed.sample), settings[side]) for side in (0, 1)]
        (partial / "src.model").write_bytes(tokenizers[0].model_bytes)
        (partial / "tgt.model").write_bytes(tokenizers[1].model_bytes)
        np.save(partial / "held_out_sources.npy", np.fromiter(streamed.held_out_sources, dtype=np.uint64))
        report = streamed.report
        meta = {
            "format": CACHE_FORMAT, "corpus": corpus.name, "split_rule": split_rule,
            "files": {name: file_sha256(partial / name) for name in ("src.model", "tgt.model",
                                                                     "held_out_sources.npy", "train.txt")},
            "lines_read": report.lines_read, "pairs_kept": report.pairs_kept,
            "duplicates_removed": report.duplicates_removed, "skipped_total": report.skipped_count,
            "skipped": [s.__dict__ for s in report.skipped], "train_written": streamed.train_written,
            "tokenizer_sample": len(streamed.sample), "tokenizer_sha256": [t.sha256 for t in tokenizers],
            "valid": [p.__dict__ for p in streamed.valid], "test": [p.__dict__ for p in streamed.test],
            "train_removed_overlap": 0,  # counted when the pairs are encoded
        }
        (partial / "corpus.json").write_text(json.dumps(with_digest(meta), ensure_ascii=False), encoding="utf-8")
        _publish(partial, folder)
    finally:
        shutil.rmtree(partial, ignore_errors=True)


def _encode_training_pairs(folder: Path, meta: dict, ids_folder: Path, source_tokenizer: Tokenizer,
                           target_tokenizer: Tokenizer, on_status: Callable[[str], None]) -> None:
    """Step 3: the training text, encoded chunk by chunk into flat id arrays and offsets."""
    text = folder / "train.txt"
    require_sha256(text, meta["files"]["train.txt"])  # a missing or damaged text: the cache is rebuilt
    held_out = set(np.load(folder / "held_out_sources.npy").tolist()) if meta["split_rule"] == "strict" else set()
    largest = max(source_tokenizer.vocab_size, target_tokenizer.vocab_size)
    dtype = np.uint16 if largest <= np.iinfo(np.uint16).max + 1 else np.uint32
    partial = _partial(ids_folder)
    total, done, removed = meta["train_written"], 0, 0
    clock = ProgressClock()
    try:
        with _IdArrays(partial, dtype) as arrays:
            for chunk in _chunks(text):
                trainable = _without_held_out(chunk, held_out)
                done += len(chunk)
                removed += len(chunk) - len(trainable)
                arrays.append(source_tokenizer.encode_many([p[0] for p in trainable]),
                              target_tokenizer.encode_many([p[1] for p in trainable]))
                if (seconds := clock.due()) is not None:
                    on_status(_encoding_progress(done, total, seconds))
        arrays.write_offsets()
        (partial / "ids.json").write_text(json.dumps(with_digest({
            "dtype": np.dtype(dtype).name, "pairs": arrays.kept, "left_out_too_long": total - removed - arrays.kept,
            "train_removed_overlap": removed, "seconds": round(time.monotonic() - clock.started, 2),
            "tokenizer_sha256": [source_tokenizer.sha256, target_tokenizer.sha256],
            "files": {f"{side}.{kind}": file_sha256(partial / f"{side}.{kind}") for side in _SIDES
                      for kind in ("ids", "offsets.npy")}})), encoding="utf-8")
        _publish(partial, ids_folder)
    finally:
        shutil.rmtree(partial, ignore_errors=True)
    on_status(f"encoded {arrays.kept:,} training pairs in {format_duration(time.monotonic() - clock.started)}")


def _without_held_out(chunk: list[tuple[str, str]], held_out: set[int]) -> list[tuple[str, str]]:
    """The chunk's pairs whose source is not a held-out source (the strict split rule)."""
    if not held_out:
        return chunk
    kept = [pair for pair in chunk if text_hash(pair[0]) not in held_out]
    return kept if len(kept) < len(chunk) else chunk


def _encoding_progress(done: int, total: int, seconds: float) -> str:
    """E.g. "encoding: 1,200,000 of 2,000,000 training pairs (60 %), 95,000 pairs/s, ETA 0:08"."""
    rate = done / seconds
    return (f"encoding: {done:,} of {total:,} training pairs ({done / max(total, 1):.0%}), "
            f"{rate:,.0f} pairs/s, ETA {format_duration((total - done) / max(rate, 1e-9))}")


class _IdArrays:
    """The id arrays being written into ``partial``: per side, one flat file of ids (``dtype``) and,
    once every pair is in, the offsets of each pair's ids. A pair with a side of no sub-words or of
    more than MAX_SOURCE_TOKENS is left out, as the trainer leaves it out."""

    def __init__(self, partial: Path, dtype: type[np.unsignedinteger]) -> None:
        self.partial, self.dtype = partial, dtype
        self.lengths: dict[str, list[np.ndarray]] = {side: [] for side in _SIDES}
        self.kept = 0  # pairs written
        self.handles = {side: (partial / f"{side}.ids").open("wb") for side in _SIDES}

    def __enter__(self) -> _IdArrays:
        return self

    def __exit__(self, *exc_info) -> None:
        for handle in self.handles.values():
            handle.close()

    def append(self, sources: list[list[int]], targets: list[list[int]]) -> None:
        """Write the pairs (ids of each side) that fit."""
        keep = [i for i, (s, t) in enumerate(zip(sources, targets, strict=True))
                if 0 < len(s) <= MAX_SOURCE_TOKENS and 0 < len(t) <= MAX_SOURCE_TOKENS]
        for side, encoded in zip(_SIDES, (sources, targets), strict=True):
            rows = [encoded[i] for i in keep]
            self.lengths[side].append(np.fromiter(map(len, rows), dtype=np.int64, count=len(rows)))
            flat = np.fromiter(chain.from_iterable(rows), dtype=self.dtype, count=int(self.lengths[side][-1].sum()))
            flat.tofile(self.handles[side])
        self.kept += len(keep)

    def write_offsets(self) -> None:
        for side in _SIDES:
            offsets = np.zeros(self.kept + 1, dtype=np.int64)
            if self.kept:
                np.cumsum(np.concatenate(self.lengths[side]), out=offsets[1:])
            np.save(self.partial / f"{side}.offsets.npy", offsets)


def _chunks(text: Path) -> Iterator[list[tuple[str, str]]]:
    with text.open(encoding="utf-8") as handle:
        chunk: list[tuple[str, str]] = []
        for line in handle:
            source, _, target = line.rstrip("\n").partition("\t")
            chunk.append((source, target))
            if len(chunk) == ENCODE_CHUNK:
                yield chunk
                chunk = []
        if chunk:
            yield chunk


def _partial(folder: Path) -> Path:
    """A fresh temporary folder beside ``folder`` (one per process: parallel builders never mix)."""
    partial = folder.parent / f".{folder.name}.partial-{os.getpid()}"
    shutil.rmtree(partial, ignore_errors=True)
    partial.mkdir(parents=True)
    return partial


def _publish(partial: Path, folder: Path) -> None:
    """Rename the complete ``partial`` folder to ``folder``; another process that got there first wins."""
    try:
        os.replace(partial, folder) if not folder.exists() else None
    except OSError:
        if not folder.exists():
            raise
