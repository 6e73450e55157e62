"""Words for alignment and the piece → word maps (engine/studies/align_words.py)."""

import numpy as np
import pytest

from engine.studies.align_words import piece_characters, piece_word_map, split_words, word_attention, word_strings


def texts(text: str, language: str) -> list[str]:
    return [word.text for word in split_words(text, language)]


def test_chinese_words_are_characters_with_latin_and_digit_runs_kept_whole():
    assert texts("汤姆有3个iPhone, 你呢?", "zh") == ["汤", "姆", "有", "3", "个", "iPhone", ",", "你", "呢", "?"]
    assert texts("我20岁。", "zh") == ["我", "20", "岁", "。"]


def test_english_words_split_off_punctuation():
    assert texts("Tom doesn't live in Boston.", "en") == ["Tom", "doesn", "'", "t", "live", "in", "Boston", "."]
    assert word_strings("I'm OK!", "en") == ["i", "'", "m", "ok", "!"]
    words = split_words("Hi, Tom.", "en")
    assert [(w.start, w.end) for w in words] == [(0, 2), (2, 3), (4, 7), (7, 8)]


def test_byte_pieces_spell_one_character_together():
    spelled = piece_characters(["▁I", "<0xF0>", "<0x9F>", "<0x98>", "<0x80>", "!"])
    assert spelled == [("I", (0,)), ("😀", (1, 2, 3, 4)), ("!", (5,))]
    assert piece_characters(["<0xF0>", "a"]) == [("a", (1,))]  # an unfinished character is dropped


def test_a_piece_overlapping_several_words_is_shared_evenly():
    text = "去波士顿。"
    mapping = piece_word_map(["▁", "去波士顿", "。"], text, split_words(text, "zh"))
    assert mapping.shape == (3, 5)
    assert np.array_equal(mapping[0], np.zeros(5))  # the lone ▁ spells nothing
    assert np.allclose(mapping[1], [0.25, 0.25, 0.25, 0.25, 0])
    assert np.array_equal(mapping[2], [0, 0, 0, 0, 1])


def test_pieces_and_words_that_cut_differently():
    text = "don't."
    words = split_words(text, "en")  # don ' t .
    mapping = piece_word_map(["▁do", "n't", "."], text, words)
    assert np.allclose(mapping, [[1, 0, 0, 0], [1 / 3, 1 / 3, 1 / 3, 0], [0, 0, 0, 1]])


def test_word_attention_sums_source_pieces_and_averages_output_pieces():
    # Source: pieces "▁Tom" "▁sl" "ept" → words Tom, slept. Output: pieces "汤姆" "睡" → words 汤 姆 睡.
    source_map = piece_word_map(["▁Tom", "▁sl", "ept"], "Tom slept", split_words("Tom slept", "en"))
    target_map = piece_word_map(["汤姆", "睡"], "汤姆睡", split_words("汤姆睡", "zh"))
    attention = np.array([[0.8, 0.1, 0.1],
                          [0.2, 0.5, 0.3]])  # T×S, rows sum to 1
    words = word_attention(attention, source_map, target_map)
    assert np.allclose(words, [[0.8, 0.2], [0.8, 0.2], [0.2, 0.8]])
    assert np.allclose(words.sum(axis=1), 1.0)


def test_word_attention_refuses_a_matrix_of_the_wrong_shape():
    source_map = np.eye(3)
    with pytest.raises(ValueError, match="does not match 2 output and 3 source pieces"):
        word_attention(np.ones((3, 3)) / 3, source_map, np.eye(2))
