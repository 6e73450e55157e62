"""Every reader of a stored file refuses what is not a regular file, and a file over its cap, in one
line and at once (engine.files.safe_open): a pipe (it would block until a writer came), a link to a device
(``/dev/zero`` never ends), a folder, and a file larger than the reader's cap. Each case runs under a
guard (tests/engine/hang_guard.py), so a regression fails instead of hanging the suite."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from engine.corpus import read_tsv
from engine.corpus.cache_check import ID_FILES
from engine.corpus.token_cache import TokenPairs, prepare_cached
from engine.files import stored
from engine.files.paths import PROJECT_ROOT
from engine.files.stored import with_digest
from engine.models import bundle, config_file
from engine.models.bundle import load_model_folder
from engine.models.config_file import read_config
from engine.records import session_file
from engine.records.runs import RunFolder
from engine.records.session_values import SessionFileError
from engine.settings.errors import DataError, ModelFileError, StoredFileError
from engine.studies import alignment_store
from engine.studies.alignment_store import AlignmentFileError, load_alignment
from engine.studies.length_study import read_length_study
from engine.training import checkpoint_state, metrics_log, snapshots
from engine.training.checkpoint import load_checkpoint
from engine.training.metrics_log import last_finish_reason, read_log
from engine.training.run_lock import LOCK_FILE, lock_holder
from engine.training.snapshots import average_snapshots, read_snapshot
from tests.engine.hang_guard import ends_quickly, raises_quickly

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo") or not Path("/dev/zero").exists(),
                                reason="pipes and /dev/zero are POSIX only")

SHIPPED_MODEL = PROJECT_ROOT / "resources" / "models" / "en-zh-dot"
SMALL_CAP = 4096
KINDS = {"pipe": "a pipe (FIFO)", "device": "a device", "folder": "a folder"}
SNAPSHOT = "run/checkpoint/snapshots/step-00000010.safetensors"
SHA = "0" * 64


def _token_cache(root: Path) -> None:
    files = {name: SHA for name in ID_FILES}
    meta = with_digest({"dtype": "uint16", "pairs": 0, "tokenizer_sha256": [SHA, SHA], "files": files})
    (root / "cache").mkdir(parents=True, exist_ok=True)
    (root / "cache" / "ids.json").write_text(json.dumps(meta), encoding="utf-8")


def _model_folder(root: Path) -> None:
    shutil.copytree(SHIPPED_MODEL, root / "model", ignore=shutil.ignore_patterns("model.safetensors"))


@dataclass(frozen=True)
class Reader:
    target: str  # the stored file, relative to the test's folder
    call: Callable[[Path], Any]
    error: type[BaseException]
    cap: tuple[Any, str] | None  # (module, name) of the reader's size cap; None: no cap (read as a stream)
    setup: Callable[[Path], None] = lambda root: None


READERS = {
    "metrics log": Reader("run/metrics.jsonl", lambda root: read_log(root / "run"), StoredFileError, None),
    "metrics log, from its end": Reader("run/metrics.jsonl", lambda root: last_finish_reason(root / "run"),
                                        StoredFileError, None),
    "checkpoint state": Reader("run/checkpoint/state.json", lambda root: load_checkpoint(root / "run"),
                               StoredFileError, (checkpoint_state, "MAX_STATE_BYTES")),
    "weight snapshot": Reader(SNAPSHOT, lambda root: read_snapshot(root / SNAPSHOT), StoredFileError,
                              (snapshots, "MAX_SNAPSHOT_BYTES")),
    "snapshot averaging": Reader(SNAPSHOT, lambda root: average_snapshots(root / "run", 1), StoredFileError,
                                 (snapshots, "MAX_SNAPSHOT_BYTES")),
    "token cache record": Reader("cache/ids.json", lambda root: TokenPairs(root / "cache", [SHA, SHA]),
                                 StoredFileError, (stored, "MAX_JSON_BYTES")),
    "token cache ids": Reader("cache/source.ids", lambda root: TokenPairs(root / "cache", [SHA, SHA]),
                              StoredFileError, None, _token_cache),
    "session file": Reader("session.json", lambda root: session_file.load_session(root / "session.json"),
                           SessionFileError, (session_file, "MAX_SESSION_BYTES")),
    "alignment file": Reader("alignment.json.gz", lambda root: load_alignment(root / "alignment.json.gz"),
                             AlignmentFileError, (alignment_store, "MAX_FILE_BYTES")),
    "model config": Reader("model/config.json", lambda root: read_config(root / "model"), ModelFileError,
                           (config_file, "MAX_CONFIG_BYTES")),
    "length study": Reader("model/config.json", lambda root: read_length_study(root / "model"), ModelFileError,
                           (config_file, "MAX_CONFIG_BYTES")),
    "corpus": Reader("corpus.tsv", lambda root: read_tsv(root / "corpus.tsv", "en", "zh"), DataError, None),
    "token cache corpus": Reader("corpus.tsv", lambda root: prepare_cached(
        root / "corpus.tsv", "zh", "en", "strict", (), cache_root=root / "cache"), DataError, None),
    "model weights": Reader("model/model.safetensors", lambda root: load_model_folder(root / "model"),
                            ModelFileError, (bundle, "MAX_MODEL_FILE_BYTES"), _model_folder),
}


def _place(kind: str, path: Path) -> Callable[[], None]:
    """Put a ``kind`` where ``path`` should be; what releases a reader stuck on it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.exists() or path.is_symlink():
        path.unlink()
    if kind == "pipe":
        os.mkfifo(path)
        return lambda: os.close(os.open(path, os.O_WRONLY | os.O_NONBLOCK))  # the reader sees its end
    if kind == "device":
        path.symlink_to("/dev/zero")
    elif kind == "folder":
        path.mkdir()
    return lambda: None


@pytest.mark.parametrize("kind", sorted(KINDS))
@pytest.mark.parametrize("name", sorted(READERS))
def test_a_reader_refuses_what_is_not_a_regular_file_at_once(tmp_path: Path, name: str, kind: str) -> None:
    reader = READERS[name]
    reader.setup(tmp_path)
    release = _place(kind, tmp_path / reader.target)
    error = raises_quickly(reader.error, lambda: reader.call(tmp_path), on_hang=release)
    assert KINDS[kind] in str(error) and "not a regular file" in str(error)
    assert Path(reader.target).name in str(error)


@pytest.mark.parametrize("name", sorted(name for name, reader in READERS.items() if reader.cap is not None))
def test_a_reader_refuses_a_file_over_its_cap_by_what_it_reads(tmp_path: Path, name: str,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    reader = READERS[name]
    reader.setup(tmp_path)
    module, cap = reader.cap
    monkeypatch.setattr(module, cap, SMALL_CAP)
    path = tmp_path / reader.target
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b" " * (SMALL_CAP + 1))
    real_stat = Path.stat

    def small_stat(self: Path, **options: Any) -> os.stat_result:  # the size stat reports is not trusted
        result = real_stat(self, **options)
        return os.stat_result((*result[:6], 1, *result[7:])) if self == path else result

    monkeypatch.setattr(Path, "stat", small_stat)
    error = raises_quickly(reader.error, lambda: reader.call(tmp_path))
    assert f"larger than {SMALL_CAP:,} bytes" in str(error)


def test_an_overlong_metrics_line_is_skipped_at_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(metrics_log, "MAX_LINE_BYTES", SMALL_CAP)
    (tmp_path / "run").mkdir()
    (tmp_path / "run" / "metrics.jsonl").write_bytes(b"x" * (10 * SMALL_CAP) + b"\n" + b"y" * (10 * SMALL_CAP))
    read = ends_quickly(lambda: read_log(tmp_path / "run")).value
    assert (read.records, read.skipped, read.offset) == ([], 1, 10 * SMALL_CAP + 1)
    assert ends_quickly(lambda: last_finish_reason(tmp_path / "run")).value is None


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_a_run_whose_log_is_not_a_file_is_not_offered_and_says_why(tmp_path: Path, kind: str) -> None:
    run = tmp_path / "run"
    (run / "checkpoint").mkdir(parents=True)
    (run / "checkpoint" / "state.json").write_text("{}", encoding="utf-8")
    (run / "checkpoint" / "tensors-0000000000000000.safetensors").write_bytes(b"")
    release = _place(kind, run / "metrics.jsonl")
    offer = ends_quickly(lambda: RunFolder(run).resumable(), on_hang=release).value
    assert offer is None
    why = ends_quickly(lambda: RunFolder(run).why_not_resumable(), on_hang=release).value
    assert KINDS[kind] in why and "\n" not in why


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_a_lock_file_that_is_not_a_file_holds_nothing_and_never_blocks_its_reader(tmp_path: Path, kind: str) -> None:
    run = tmp_path / "run"
    release = _place(kind, run / LOCK_FILE)
    assert ends_quickly(lambda: lock_holder(run), on_hang=release).value is None
    assert ends_quickly(lambda: RunFolder(run).phase(), on_hang=release).value is not None
