"""Paired bootstrap significance of a BLEU gain over a baseline."""

import pytest

from engine.evaluation.evaluate import corpus_scores
from engine.evaluation.significance import paired_bleu_gains

REFERENCES = ["The cat sat on the mat.", "A dog ran in the park.", "She reads a book every night.",
              "We went home early."] * 60
BASELINE = ["A cat sat on a mat.", "The dog walked.", "She read book.", "We go home."] * 60
BETTER = ["The cat sat on the mat.", "A dog ran in a park.", "She reads a book each night.", "We went home."] * 60


def test_a_clear_gain_is_significant_and_matches_the_corpus_scores():
    gains = paired_bleu_gains(BASELINE, {"better": BETTER}, REFERENCES, "en")
    better = gains["better"]
    assert better.bleu == pytest.approx(corpus_scores(BETTER, REFERENCES, "en").bleu)
    assert better.baseline_bleu == pytest.approx(corpus_scores(BASELINE, REFERENCES, "en").bleu)
    assert better.gain > 30 and better.p_value < 0.01 and 0 < better.interval < 10


def test_outputs_no_better_than_the_baseline_are_not_called_a_gain():
    # One sentence of 240 differs, once better, once worse: nothing a bootstrap should call real.
    nudged = list(BASELINE)
    nudged[0] = "The cat sat on a mat."
    gains = paired_bleu_gains(BASELINE, {"same": list(BASELINE), "nudged": nudged}, REFERENCES, "en")
    assert gains["same"].gain == 0 and gains["same"].p_value == 1.0
    assert gains["nudged"].p_value > 0.05


def test_the_resampling_is_reproducible_and_lengths_must_match():
    first = paired_bleu_gains(BASELINE, {"better": BETTER}, REFERENCES, "en", samples=200)
    assert paired_bleu_gains(BASELINE, {"better": BETTER}, REFERENCES, "en", samples=200) == first
    with pytest.raises(ValueError, match="short has 3 sentences, the references 240"):
        paired_bleu_gains(BASELINE, {"short": BETTER[:3]}, REFERENCES, "en")
    assert paired_bleu_gains(BASELINE, {}, REFERENCES, "en") == {}
