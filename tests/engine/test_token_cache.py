"""The token cache for big corpora: the streamed path gives the same training ids as reading the
whole file, is reused by a later run, is rebuilt when the corpus or the tokenizers change, and
rebuilds a damaged cache, saying where it is."""

from __future__ import annotations

import pytest

import engine.corpus.token_cache as token_cache
from engine.corpus import read_tsv
from engine.corpus.data import split_pairs
from engine.corpus.token_cache import TokenPairs, prepare_cached
from engine.settings.errors import DataError
from engine.text.tokenizer import TokenizerSettings
from engine.training.batches import make_batches

SETTINGS = (TokenizerSettings.for_language("zh", 300), TokenizerSettings.for_language("en", 300))
WORDS = ["猫", "狗", "书", "茶", "山", "河", "车", "花"]
ENGLISH = ["cat", "dog", "book", "tea", "mountain", "river", "car", "flower"]


def _corpus(tmp_path, count: int = 400, extra: str = ""):
    lines = [f"The {ENGLISH[i % 8]} number {i} is here.\t第{i}只{WORDS[i % 8]}在这里。\tCC-BY test #{i}"
             for i in range(count)]
    lines += lines[:5]  # exact duplicates
    lines.insert(7, "a line without any tab")
    tmp_path.mkdir(parents=True, exist_ok=True)
    path = tmp_path / "pairs.tsv"
    path.write_text("\n".join(lines) + "\n" + extra, encoding="utf-8")
    return path


def _prepare(path, root, **options):
    return prepare_cached(path, "zh", "en", "strict", SETTINGS, sample_size=1000, cache_root=root, **options)


def test_the_streamed_corpus_gives_the_ids_of_reading_it_whole(tmp_path):
    path = _corpus(tmp_path)
    cached = _prepare(path, tmp_path / "cache")
    pairs, report = read_tsv(path, "zh", "en")
    split = split_pairs(pairs, "strict")
    expected = [(cached.source_tokenizer.encode(p.source), cached.target_tokenizer.encode(p.target))
                for p in split.train]
    assert [cached.train_pairs[i] for i in range(len(cached.train_pairs))] == expected
    assert cached.split.valid == split.valid and cached.split.test == split.test and cached.split.train == ()
    assert (cached.report.lines_read, cached.report.pairs_kept, cached.report.duplicates_removed,
            cached.report.skipped_count) == (report.lines_read, report.pairs_kept, report.duplicates_removed, 1)
    sources, targets = cached.train_pairs.lengths()
    assert sources == [len(s) for s, _ in expected] and targets == [len(t) for _, t in expected]
    assert make_batches(cached.train_pairs, 16, seed=3) == make_batches(expected, 16, seed=3)
    assert not cached.reused


def test_a_later_run_reuses_the_cache_without_reading_the_corpus(tmp_path, monkeypatch):
    path = _corpus(tmp_path)
    first = _prepare(path, tmp_path / "cache")
    monkeypatch.setattr(token_cache, "stream_pairs", lambda *a, **k: pytest.fail("the corpus was read again"))
    monkeypatch.setattr(token_cache, "file_sha256", lambda *a, **k: pytest.fail("an unchanged corpus was hashed again"))
    again = _prepare(path, tmp_path / "cache")
    assert again.reused and again.folder == first.folder and len(again.train_pairs) == len(first.train_pairs)
    assert again.source_tokenizer.sha256 == first.source_tokenizer.sha256


def test_a_changed_corpus_or_other_settings_get_a_cache_of_their_own(tmp_path):
    path = _corpus(tmp_path)
    first = _prepare(path, tmp_path / "cache")
    path.write_text(path.read_text(encoding="utf-8") + "A new line.\t新的一行。\n", encoding="utf-8")
    changed = _prepare(path, tmp_path / "cache")
    assert changed.folder != first.folder and not changed.reused
    assert len(changed.train_pairs) + len(changed.split.valid) + len(changed.split.test) == (
        len(first.train_pairs) + len(first.split.valid) + len(first.split.test) + 1)
    larger = prepare_cached(path, "zh", "en", "strict", (SETTINGS[0], TokenizerSettings.for_language("en", 400)),
                            sample_size=1000, cache_root=tmp_path / "cache")
    assert larger.folder not in (first.folder, changed.folder)


def test_a_resumed_runs_own_tokenizers_get_ids_of_their_own(tmp_path):
    path = _corpus(tmp_path)
    first = _prepare(path, tmp_path / "cache")
    other = _prepare(_corpus(tmp_path / "other", 200), tmp_path / "cache-b")
    resumed = _prepare(path, tmp_path / "cache", tokenizers=(other.source_tokenizer, other.target_tokenizer))
    assert resumed.folder == first.folder and not resumed.reused
    assert resumed.train_pairs.folder != first.train_pairs.folder
    source, target = resumed.train_pairs[0]
    assert source == other.source_tokenizer.encode(first.source_tokenizer.decode(first.train_pairs[0][0]))


@pytest.mark.parametrize("damage", [
    lambda folder, ids, other: (folder / "src.model").write_bytes(other.source_tokenizer.model_bytes),
    lambda folder, ids, other: (ids / "source.ids").write_bytes((ids / "source.ids").read_bytes()[:-3]),
    lambda folder, ids, other: (ids / "target.offsets.npy").write_bytes(b"garbage offsets"),
    lambda folder, ids, other: (ids / "ids.json").write_text('{"dtype": "uint16"}'),
    lambda folder, ids, other: (folder / "corpus.json").write_text("{"),
    lambda folder, ids, other: (folder / "train.txt").unlink(),
])
def test_a_damaged_cache_is_rebuilt_with_a_message_naming_its_folder(tmp_path, damage):
    path = _corpus(tmp_path)
    first = _prepare(path, tmp_path / "cache")
    expected = [first.train_pairs[i] for i in range(len(first.train_pairs))]
    other = _prepare(_corpus(tmp_path / "other", 150), tmp_path / "cache-b")
    damage(first.folder, first.train_pairs.folder, other)
    if not (first.folder / "train.txt").exists():  # the text is needed only for other tokenizers' ids
        for name in ("ids.json",):
            (first.train_pairs.folder / name).unlink()
    said = []
    again = _prepare(path, tmp_path / "cache", on_status=said.append)
    assert not again.reused and again.folder == first.folder
    assert any(f"the token cache {first.folder} is damaged" in line and "rebuilding it" in line for line in said)
    assert [again.train_pairs[i] for i in range(len(again.train_pairs))] == expected
    assert _prepare(path, tmp_path / "cache").reused  # whole again


def test_a_file_that_is_not_a_corpus_is_refused_and_leaves_no_cache(tmp_path):
    binary = tmp_path / "binary.tsv"
    binary.write_bytes(bytes(range(256)) * 64)
    with pytest.raises(DataError):
        _prepare(binary, tmp_path / "cache")
    assert not [p for p in (tmp_path / "cache").glob("*") if p.is_dir()]  # only the digest memo is written
    assert not list((tmp_path / "cache").glob(".*partial*"))


def test_token_pairs_read_back_what_was_written(tmp_path):
    cached = _prepare(_corpus(tmp_path, 120), tmp_path / "cache")
    reopened = TokenPairs(cached.train_pairs.folder)
    assert len(reopened) == len(cached.train_pairs) > 50
    assert reopened[len(reopened) - 1] == cached.train_pairs[len(reopened) - 1]
