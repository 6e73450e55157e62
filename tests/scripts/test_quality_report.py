"""The quality report's attention statistics and example picking."""

import importlib.util
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
spec = importlib.util.spec_from_file_location("quality_report", ROOT / "scripts" / "quality_report.py")
quality_report = importlib.util.module_from_spec(spec)
spec.loader.exec_module(quality_report)


def test_a_diagonal_alignment_is_diagonal_monotonic_and_sharp():
    eye = np.vstack([np.eye(5), np.full((1, 5), 0.2)])  # the last (EOS) row is excluded
    stats = quality_report.attention_statistics([eye])
    assert stats["diagonality"] == pytest.approx(1.0)
    assert stats["monotonicity"] == pytest.approx(1.0)
    assert stats["mean_row_entropy"] == pytest.approx(0.0, abs=1e-6)
    assert stats["last_token_share"] == pytest.approx(1 / 5)


def test_attention_stuck_on_the_final_token_is_reported():
    stuck = np.zeros((6, 5))
    stuck[:, -1] = 1.0
    stats = quality_report.attention_statistics([stuck])
    assert stats["last_token_share"] == pytest.approx(1.0)
    assert stats["monotonicity"] == pytest.approx(1.0)  # never moves back, yet aligns nothing


def test_a_reversed_uniform_alignment_scores_accordingly():
    reversed_rows = np.vstack([np.eye(4)[::-1], np.full((1, 4), 0.25)])
    uniform = np.full((5, 4), 0.25)
    stats = quality_report.attention_statistics([reversed_rows])
    assert stats["diagonality"] == pytest.approx(-1.0)
    assert stats["monotonicity"] == pytest.approx(0.0)
    assert quality_report.attention_statistics([uniform])["mean_row_entropy"] == pytest.approx(np.log(4), abs=1e-3)


def test_no_attention_means_no_statistics():
    assert quality_report.attention_statistics([None]) is None
