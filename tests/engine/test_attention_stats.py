"""Attention statistics: entropy, max weight, coverage, monotonicity."""

import math

import numpy as np
import pytest

from engine.decoding.attention_statistics import attention_stats, corpus_attention_stats, monotonic_share, row_entropy


def test_a_diagonal_attention_is_sharp_monotonic_and_covers_each_token_once():
    stats = attention_stats(np.eye(4))
    assert stats.mean_entropy == 0 and stats.mean_max_weight == 1
    assert stats.coverage == (1, 1, 1, 1) and stats.coverage_deviation == 0
    assert stats.monotonic_share == 1 and stats.steps == 4


def test_a_uniform_attention_has_the_largest_entropy_and_spreads_coverage():
    stats = attention_stats(np.full((2, 4), 0.25))
    assert stats.mean_entropy == pytest.approx(math.log(4))
    assert stats.mean_max_weight == 0.25
    assert stats.coverage == (0.5, 0.5, 0.5, 0.5) and stats.coverage_deviation == pytest.approx(0.5)


def test_a_step_that_jumps_back_counts_against_monotonicity_and_a_dropped_word_shows_in_coverage():
    attention = np.array([[1, 0, 0], [0, 0, 1], [1, 0, 0]], dtype=float)  # reads 0, 2, back to 0
    assert monotonic_share(attention) == 0.5
    stats = attention_stats(attention)
    assert stats.coverage == (2, 0, 1)  # token 0 twice, token 1 never
    assert np.isnan(monotonic_share(np.ones((1, 3)) / 3))


def test_entropy_treats_zero_weights_as_contributing_nothing():
    assert row_entropy(np.array([[0.5, 0.5, 0.0]]))[0] == pytest.approx(math.log(2))


def test_corpus_statistics_average_sentences_and_skip_missing_matrices():
    corpus = corpus_attention_stats([np.eye(3), None, np.full((2, 2), 0.5)])
    assert corpus.sentences == 2
    assert corpus.mean_max_weight == pytest.approx(0.75)
    assert corpus_attention_stats([None, None]) is None
    with pytest.raises(ValueError, match="at least one row"):
        attention_stats(np.zeros((0, 3)))
