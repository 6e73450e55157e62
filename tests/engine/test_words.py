"""The word view's merge (engine/text/words.py): where words start, and attention merged with them —
every merged row still sums to 1, and the word scores give back the summed weights."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.text import segment as segment_module
from engine.text.words import (
    WordSplit,
    merge_attention,
    merge_columns,
    merge_rows,
    merge_scores,
    split_words,
)

ZH_PIECES = ("▁", "虽", "然", "这本书", "很", "长", "<0xEF>", "<0xBC>", "<0x8C>", "但是", "我", "还是", "。", "</s>")
EN_PIECES = ("▁Tom", "▁did", "n", "'", "t", "▁sleep", ".", "▁I", "'", "m", "▁Al", "though", ",", "▁3", ".", "5", "</s>")


def words_of(pieces, segmenter=None) -> list[str]:
    split = split_words(pieces) if segmenter is None else split_words(pieces, segmenter)
    return list(split.words)


def test_english_words_start_at_the_word_start_marks_and_punctuation_stands_alone():
    assert words_of(EN_PIECES) == ["Tom", "didn't", "sleep", ".", "I'm", "Although", ",", "3.5", "</s>"]
    assert words_of(("▁2026", "-", "11", "-", "29")) == ["2026", "-", "11", "-", "29"]
    assert words_of(("▁well", "-", "known")) == ["well", "-", "known"]
    assert words_of(("▁rock", "'", "▁n", "'", "▁roll")) == ["rock", "'", "n", "'", "roll"]


def test_chinese_words_come_from_the_segmenter_and_byte_pieces_are_decoded():
    split = split_words(ZH_PIECES)
    # 这本书 is one piece over the segmenter's 这 | 本书: kept whole; 很 长 are the segmenter's 很长
    assert split.words == ("虽然", "这本书", "很长", "，", "但是", "我", "还是", "。", "</s>")
    assert list(split.pieces_of(3)) == [6, 7, 8]  # the comma's three byte pieces
    assert split.word_of(0) == split.word_of(2) == 0  # the lone ▁ joins the word after it


def test_a_piece_spanning_two_words_keeps_them_together():
    by_characters = words_of(("▁我明天", "要去", "图书馆"), list)
    assert by_characters == ["我明天", "要去", "图书馆"]  # pieces are never split


def test_a_script_change_is_a_word_boundary():
    assert words_of(("▁学了", "6", "年"), list) == ["学了", "6", "年"]
    assert words_of(("▁iPhone", "手机"), list) == ["iPhone", "手机"]


def test_a_lone_word_start_mark_and_undecodable_bytes_stay_visible():
    assert words_of(("▁",)) == ["▁"]
    assert words_of(("▁hello", "▁")) == ["hello", "▁"]
    assert words_of(("▁", "<0xEF>")) == ["<0xEF>"]  # an incomplete character (a stream cut mid-way)
    assert words_of(("<0xF0>", "<0x9F>", "<0x98>", "<0x80>", "▁ok")) == ["😀", "ok"]


def test_index_maps_between_pieces_and_words():
    split = split_words(EN_PIECES)
    assert [split.word_of(k) for k in range(5)] == [0, 1, 1, 1, 1]
    assert split.word_of(-1) == split.word_of(len(EN_PIECES)) == -1
    assert list(split.pieces_of(1)) == [1, 2, 3, 4] and list(split.pieces_of(99)) == []
    assert [split.continues(k) for k in range(5)] == [False, False, True, True, True]
    assert split.sizes().sum() == len(EN_PIECES) and not split.identity
    assert split_words(("▁a", "▁b")).identity and split_words(()).count == 0


def test_merged_attention_sums_columns_and_averages_rows():
    source = WordSplit(("▁a", "b", "▁c"), ("ab", "c"), (0, 2))
    target = WordSplit(("▁x", "y", "▁z"), ("xy", "z"), (0, 2))
    matrix = np.array([[0.2, 0.3, 0.5], [0.6, 0.2, 0.2], [0.0, 0.1, 0.9]], np.float32)
    np.testing.assert_allclose(merge_columns(matrix, source), [[0.5, 0.5], [0.8, 0.2], [0.1, 0.9]], atol=1e-6)
    np.testing.assert_allclose(merge_attention(matrix, source, target), [[0.65, 0.35], [0.1, 0.9]], atol=1e-6)
    np.testing.assert_allclose(merge_rows(matrix[:2], target), [[0.4, 0.25, 0.35]], atol=1e-6)  # streaming
    assert merge_rows(np.zeros((0, 3)), target).shape == (0, 3)


def test_word_scores_give_back_the_summed_weights():
    split = WordSplit(("▁a", "b", "▁c", "d"), ("ab", "cd"), (0, 2))
    scores = np.array([1.0, -2.0, 0.5, 3.0])
    weights = np.exp(scores) / np.exp(scores).sum()
    word_scores = merge_scores(scores, split)
    np.testing.assert_allclose(np.exp(word_scores) / np.exp(word_scores).sum(),
                               merge_columns(weights[None, :], split)[0], atol=1e-6)


PIECE = st.sampled_from(["▁the", "▁", "ing", ",", "'", "s", "我", "▁我", "喜欢", "。", "<0xEF>", "<0xBC>", "<0x8C>",
                         "6", "</s>", ".", "▁3"])


@settings(max_examples=150, deadline=None)
@given(st.lists(PIECE, min_size=1, max_size=30), st.lists(PIECE, min_size=1, max_size=30), st.integers(0, 2**31 - 1))
def test_every_merged_row_still_sums_to_one(source_pieces, target_pieces, seed):
    rng = np.random.default_rng(seed)
    logits = rng.normal(0, 3, (len(target_pieces), len(source_pieces)))
    matrix = (np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)).astype(np.float32)
    source, target = split_words(source_pieces), split_words(target_pieces)
    assert source.starts[0] == 0 and list(source.starts) == sorted(set(source.starts))
    merged = merge_attention(matrix, source, target)
    assert merged.shape == (target.count, source.count)
    np.testing.assert_allclose(merged.sum(axis=1), 1.0, atol=1e-5)
    streamed = merge_attention(matrix[: max(1, len(target_pieces) // 2)], source, target)
    np.testing.assert_allclose(streamed.sum(axis=1), 1.0, atol=1e-5)


def test_without_jieba_the_segmenter_falls_back_to_characters(monkeypatch):
    monkeypatch.setitem(sys.modules, "jieba", None)  # import jieba → ImportError
    cut, name = segment_module._load()
    assert name == segment_module.CHARACTERS and cut("图书馆") == ["图", "书", "馆"]


def test_the_segmenter_cuts_chinese_into_words_that_join_back():
    assert segment_module.segment("我明天要去图书馆借书") == ["我", "明天", "要", "去", "图书馆", "借书"]
    assert segment_module.segment("") == []
    assert "jieba" in segment_module.segmenter_name()


@pytest.mark.parametrize("module", ["engine.text.words", "engine.text.segment"])
def test_the_merge_loads_neither_torch_nor_qt(module):
    code = f"import sys, {module}; print(sorted(m for m in ('torch', 'PySide6') if m in sys.modules))"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "[]"
