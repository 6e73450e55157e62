"""What the map and the inspector make of attributions (gui/attention/attribution_math.py), by hand: Spearman's
ρ with ties, the top-word agreement over |a|, the store's matrix (NaN where a step is not in), per-word
shares, the diverging scale and the export record."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pytest

from gui.attention.attribution_math import (
    AttributionStore,
    DivergingScale,
    agreement,
    attribution_json,
    check_method,
    diverging_levels,
    merge_word_rows,
    ranks,
    spearman,
)


@dataclass(frozen=True)
class Step:
    """The fields of engine.explain.StepAttribution the GUI reads."""

    index: int
    method: str
    source: np.ndarray
    prefix: np.ndarray
    target_log_prob: float = -0.5
    contrast_token: str | None = None

    @property
    def source_share(self) -> float:
        on_source, on_prefix = float(np.abs(self.source).sum()), float(np.abs(self.prefix).sum())
        return 1.0 if on_source + on_prefix == 0 else on_source / (on_source + on_prefix)


def test_ranks_share_ties_and_spearman_matches_the_hand_computed_value():
    assert ranks(np.array([10.0, 30.0, 20.0, 20.0])).tolist() == [1.0, 4.0, 2.5, 2.5]
    # ranks (1, 2, 3, 4) against (1, 3, 2, 4): ρ = 1 − 6·Σd² / (n(n²−1)) = 1 − 6·2/60 = 0.8
    assert spearman(np.array([0.1, 0.2, 0.3, 0.4]), np.array([1.0, 3.0, 2.0, 4.0])) == pytest.approx(0.8)
    assert spearman(np.array([1.0, 2.0, 3.0]), np.array([3.0, 2.0, 1.0])) == pytest.approx(-1.0)
    assert math.isnan(spearman(np.array([1.0, 1.0]), np.array([1.0, 2.0])))  # a constant row ranks nothing
    assert math.isnan(spearman(np.array([1.0]), np.array([2.0])))


def test_agreement_ranks_the_attributions_magnitude():
    alpha = np.array([0.7, 0.2, 0.1])
    agree = agreement(alpha, np.array([-2.0, 0.5, 0.1]))  # the strongest is negative: still the top word
    assert agree.top_alpha == 0 and agree.top_attribution == 0 and agree.agrees
    assert agree.rho == pytest.approx(1.0)
    differ = agreement(alpha, np.array([0.1, 0.2, 3.0]))
    assert not differ.agrees and differ.rho == pytest.approx(-1.0)


def test_the_store_draws_the_steps_in_and_leaves_the_others_blank():
    store = AttributionStore(source_count=3)
    store.add(Step(0, "ig", np.array([1.0, -1.0, 0.0]), np.zeros(0)))
    store.add(Step(2, "ig", np.array([0.5, 0.5, 0.5]), np.array([0.5, 1.0])))
    store.add(Step(1, "ig", np.array([9.0, 9.0, 9.0]), np.array([1.0]), contrast_token="▁watching"))
    matrix = store.matrix("ig", 3)
    assert matrix[0].tolist() == [1.0, -1.0, 0.0] and np.isnan(matrix[1]).all() and matrix[2].tolist() == [0.5] * 3
    assert store.count("ig") == 2 and not store.complete("ig", 3) and store.complete("ig", 1)
    assert store.contrast("ig", 1, "▁watching").source[0] == 9.0  # kept apart, not in the map
    shares = store.shares("ig", 3)
    assert shares[0] == 1.0 and np.isnan(shares[1]) and shares[2] == pytest.approx(1.5 / 3.0)
    record = attribution_json(store, "ig", 3)
    assert record["method"] == "ig" and not record["complete"]
    assert [s["index"] for s in record["steps"]] == [0, 2]
    assert record["contrastive"][0]["contrast_token"] == "▁watching"
    assert attribution_json(store, "occlusion", 3) is None


def test_word_shares_average_a_words_pieces_and_skip_the_missing():
    shares = np.array([0.2, 0.4, np.nan, 0.9, np.nan])
    merged = merge_word_rows(shares, [0, 2, 4])  # words: pieces 0-1, 2-3, 4
    assert merged[0] == pytest.approx(0.3) and merged[1] == pytest.approx(0.9) and np.isnan(merged[2])


def test_the_diverging_scale_is_symmetric_around_zero():
    assert diverging_levels(np.array([[0.5, -2.0], [np.nan, 1.0]])) == 2.0
    assert diverging_levels(np.full((2, 2), np.nan)) == 1.0


def test_the_diverging_colours_by_map_or_by_row():
    matrix = np.array([[0.5, -2.0], [np.nan, np.nan], [0.25, 0.0]], np.float32)
    image, levels, label = DivergingScale("IG ±%1", "IG ÷ row").apply(matrix)
    assert levels == (-2.0, 2.0) and label == "IG ±2.00" and np.array_equal(image, matrix, equal_nan=True)
    image, levels, label = DivergingScale("IG ±%1", "IG ÷ row", per_row=True).apply(matrix)
    assert levels == (-1.0, 1.0) and label == "IG ÷ row"
    assert image[0].tolist() == [0.25, -1.0] and np.isnan(image[1]).all() and image[2].tolist() == [1.0, 0.0]


def test_an_unknown_map_content_names_the_choices():
    with pytest.raises(ValueError, match="alpha, ig, grad, occlusion"):
        check_method("saliency")
