"""Token-cache ids are checked against the tokenizers' vocabularies: an id beyond one (its file's digest
recomputed, so the sha256 checks pass) makes the cache damaged — rebuilt with a message — never an
index past the embedding during training."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from engine.corpus.token_cache import TokenPairs, prepare_cached
from engine.files.stored import file_sha256, with_digest
from engine.settings.errors import StoredFileError
from engine.text.tokenizer import TokenizerSettings

SETTINGS = (TokenizerSettings.for_language("zh", 300), TokenizerSettings.for_language("en", 300))
WORDS = ["猫", "狗", "书", "茶", "山", "河", "车", "花"]
ENGLISH = ["cat", "dog", "book", "tea", "mountain", "river", "car", "flower"]


def _corpus(tmp_path: Path) -> Path:
    lines = [f"The {ENGLISH[i % 8]} number {i} is here.\t第{i}只{WORDS[i % 8]}在这里。" for i in range(300)]
    path = tmp_path / "pairs.tsv"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _prepare(path: Path, root: Path, **options):
    return prepare_cached(path, "zh", "en", "strict", SETTINGS, sample_size=1000, cache_root=root, **options)


def _plant(ids_folder: Path, side: str, value: int) -> None:
    """Set the first id of ``side`` to ``value`` and record the file's new sha256 (a consistent edit)."""
    meta = json.loads((ids_folder / "ids.json").read_text(encoding="utf-8"))
    path = ids_folder / f"{side}.ids"
    ids = np.fromfile(path, dtype=np.dtype(meta["dtype"]))
    ids[0] = value
    ids.tofile(path)
    meta.pop("digest")
    meta["files"][f"{side}.ids"] = file_sha256(path)
    (ids_folder / "ids.json").write_text(json.dumps(with_digest(meta)), encoding="utf-8")


@pytest.mark.parametrize("side", ["source", "target"])
def test_an_id_beyond_the_vocabulary_is_refused_and_the_cache_rebuilt(tmp_path: Path, side: str) -> None:
    path = _corpus(tmp_path)
    first = _prepare(path, tmp_path / "cache")
    expected = [first.train_pairs[i] for i in range(len(first.train_pairs))]
    size = (first.source_tokenizer if side == "source" else first.target_tokenizer).vocab_size
    _plant(first.train_pairs.folder, side, size)  # one past the last id
    with pytest.raises(StoredFileError, match=f"{side}.ids holds the id {size:,}, beyond the {side} vocabulary"):
        TokenPairs(first.train_pairs.folder).check_vocabularies(first.source_tokenizer.vocab_size,
                                                                 first.target_tokenizer.vocab_size)
    said: list[str] = []
    again = _prepare(path, tmp_path / "cache", on_status=said.append)
    assert not again.reused
    assert any("is damaged" in line and "beyond the" in line and "rebuilding it" in line for line in said)
    assert [again.train_pairs[i] for i in range(len(again.train_pairs))] == expected
