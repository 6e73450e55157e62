"""Content kept: the clipped recall of a reference's content units, the check for dropped content."""

import pytest

from engine.evaluation.content_kept import content_kept, content_units


def test_the_dropped_verb_and_object_are_missed_in_chinese():
    result = content_kept(["我妹妹喜欢在花园里。"], ["我妹妹喜欢在花园里看书。"], "zh")
    # Content characters of the reference: 妹妹喜欢花园里看书 (我 and 在 are function characters).
    assert (result.kept, result.total) == (7, 9)
    assert result.share == pytest.approx(7 / 9)
    assert content_kept(["我妹妹喜欢在花园里看书。"], ["我妹妹喜欢在花园里看书。"], "zh").share == 1.0


def test_english_counts_content_words_clipped_by_their_count_in_the_output():
    assert content_units("The dog saw the other dog.", "en") == {"dog": 2, "saw": 1, "other": 1}
    result = content_kept(["A dog saw it.", "Nothing."], ["The dog saw the other dog.", "It is."], "en")
    assert (result.kept, result.total) == (2, 4)  # one "dog" of two, "saw"; the second reference has none


def test_empty_references_and_mismatched_lengths():
    assert content_kept([""], ["的了吗"], "zh").share == 1.0
    with pytest.raises(ValueError, match="2 outputs for 1 references"):
        content_kept(["a", "b"], ["a"], "en")
