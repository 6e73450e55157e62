"""The record of a model's training words, and the input words it never saw (engine/text/training_words.py)."""

import hashlib
import json
import os

import pytest

import engine.text.training_words as tw
from engine.text.training_words import (
    NOT_RECORDED,
    TrainingWords,
    collect_training_words,
    load_training_words,
    parse_training_words,
    text_words,
    unseen_piece_indices,
)

SOURCES = ["My parents live here.", "I didn't like tea in 1999.", "我喜欢吃包子。", "他们的父母住在乡下。"]


@pytest.fixture(scope="module")
def record() -> TrainingWords:
    return collect_training_words(SOURCES, "en")


def test_english_words_are_recorded_lower_cased_as_the_word_view_splits_them(record):
    assert {"my", "parents", "didn't", "tea", "i"} <= record.words
    assert not {"1999", ".", "My"} & record.words  # numbers and punctuation are no words; the record is lower-cased
    assert record.sentences == len(SOURCES) and record.language == "en"


def test_english_input_words_never_seen_are_named_once_in_order_as_written(record):
    text = "My GRANDPARENTS didn't like Python in 2026! Python, again?"
    assert record.unseen_words(text) == ["GRANDPARENTS", "Python", "again"]
    assert record.unseen_words("my Parents LIVE here") == []
    assert record.unseen_characters(text) == []


def test_chinese_words_are_jieba_words_and_characters_are_recorded_too(record):
    assert {"喜欢", "包子", "父母", "乡下"} <= record.words
    assert {"包", "子", "乡"} <= record.characters
    assert text_words("我喜欢吃饺子。") == ["我", "喜欢", "吃", "饺子", "。"]
    assert record.unseen_words("我喜欢吃饺子。") == ["饺子"]
    assert record.unseen_characters("我喜欢吃饺子。") == ["饺"]
    assert record.unseen_words("父母住在城市") == ["城市"]  # seen characters, an unseen word


def test_a_single_chinese_character_seen_inside_a_longer_word_counts_as_seen(record):
    assert "子" not in record.words and "子" in record.characters
    assert record.knows("子") and not record.knows("饺")


def test_the_record_round_trips_byte_for_byte_and_sorted(record):
    data = record.to_bytes()
    again = parse_training_words(data, "words.json")
    assert again == record and again.to_bytes() == data
    document = json.loads(data)
    assert document["words"] == sorted(document["words"]) and document["format"] == tw.FORMAT
    assert record.config_entry(data) == {"file": "words.json", "sha256": hashlib.sha256(data).hexdigest(),
                                         "words": len(record.words), "characters": len(record.characters)}


def _folder_with(tmp_path, data: bytes, entry: dict | None = None) -> dict:
    (tmp_path / "words.json").write_bytes(data)
    return {"source_language": "en", "training_words": entry or {"file": "words.json",
                                                                  "sha256": hashlib.sha256(data).hexdigest()}}


def test_a_folder_without_the_record_says_the_check_is_unavailable(tmp_path):
    assert load_training_words(tmp_path, {"source_language": "en"}) == (None, NOT_RECORDED)


def test_a_good_record_loads(tmp_path, record):
    assert load_training_words(tmp_path, _folder_with(tmp_path, record.to_bytes())) == (record, "")


@pytest.mark.parametrize("damage, reason", [
    ("missing", "words.json is missing"),
    ("edited", "sha256 differs"),
    ("not json", "not valid JSON"),
    ("not utf-8", "not UTF-8"),
    ("wrong schema", "expected a string"),
    ("oversize", "larger than"),
    ("folder", "a folder, not a regular file"),
    ("other language", "language 'zh'"),
])
def test_a_damaged_record_gives_one_clear_note_and_never_raises(tmp_path, record, monkeypatch, damage, reason):
    data = record.to_bytes()
    info = _folder_with(tmp_path, data)
    path = tmp_path / "words.json"
    if damage == "missing":
        path.unlink()
    elif damage == "edited":
        path.write_bytes(data.replace(b'"tea"', b'"tee"'))
    elif damage in ("not json", "not utf-8", "wrong schema", "other language"):
        bad = {"not json": b"{not json", "not utf-8": b"\xff\xfe{}",
               "wrong schema": data.replace(b'"tea"', b"17"),
               "other language": data.replace(b'"language":"en"', b'"language":"zh"')}[damage]
        info = _folder_with(tmp_path, bad)
    elif damage == "oversize":
        monkeypatch.setattr(tw, "MAX_RECORD_BYTES", 100)
    elif damage == "folder":
        path.unlink()
        path.mkdir()
    found, note = load_training_words(tmp_path, info)
    assert found is None and reason in note and "\n" not in note
    assert note.endswith("words it never saw cannot be named")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes here")
def test_a_pipe_in_place_of_the_record_is_refused_without_blocking(tmp_path, record):
    info = _folder_with(tmp_path, record.to_bytes())
    (tmp_path / "words.json").unlink()
    os.mkfifo(tmp_path / "words.json")
    found, note = load_training_words(tmp_path, info)
    assert found is None and "a pipe (FIFO)" in note


def test_the_source_pieces_of_an_unseen_word_are_the_ones_underlined():
    pieces = ["▁My", "▁grand", "par", "ents", "▁like", "▁P", "y", "t", "h", "o", "n", "."]
    assert unseen_piece_indices(pieces, ["grandparents", "Python"]) == [1, 2, 3, 5, 6, 7, 8, 9, 10]
    assert unseen_piece_indices(pieces, []) == []
    chinese = ["▁我", "喜欢", "吃", "<0xE9>", "<0xA5>", "<0xBA>", "子", "。"]  # 饺 as bytes
    assert unseen_piece_indices(chinese, ["饺子"]) == [3, 4, 5, 6]


def test_too_many_words_to_record_gives_no_record(monkeypatch):
    monkeypatch.setattr(tw, "MAX_WORDS", 3)
    assert collect_training_words(SOURCES, "en") is None
