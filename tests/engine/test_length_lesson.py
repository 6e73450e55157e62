"""The length study's lesson is derived from its figures: falling lines and holding lines read differently."""

from engine.length_lesson import length_lesson
from engine.length_study import BucketScore, LengthStudy


def study(short: float, long: float) -> LengthStudy:
    buckets = (BucketScore("1–10", 50, short, 50.0), BucketScore("41–60", 20, long, 40.0))
    return LengthStudy(1, 70, buckets, (), "sig", aggregates=(BucketScore("41+", 20, long, 40.0),))


def test_falling_lines_are_described_as_falling_with_attentions_multiple_of_c():
    lesson = length_lesson({"additive": study(30.0, 8.0), "dot": study(28.0, 6.0), "none": study(26.0, 1.0)})
    assert lesson.best == "additive" and lesson.all_fall
    text = lesson.sentence({"additive": "Additive (Bahdanau)"})
    assert text.startswith("Every line falls with length")
    assert "Additive (Bahdanau) keeps 27% of its 1–10-token BLEU on 41+ tokens (8.0 against 30.0)" in text
    assert "the fixed C keeps 4%" in text and "8.0× C's BLEU" in text
    assert "hold up" not in text


def test_holding_lines_are_described_as_holding():
    lesson = length_lesson({"additive": study(30.0, 27.0), "none": study(26.0, 6.5)})
    assert not lesson.all_fall
    text = lesson.sentence()
    assert text.startswith("With attention, long inputs hold up: additive keeps 90%")
    assert "the fixed C keeps 25% (6.5 BLEU)" in text and "4.2× C's BLEU" in text


def test_c_not_behind_is_said_plainly_and_no_attention_figure_means_no_lesson():
    lesson = length_lesson({"dot": study(20.0, 3.0), "none": study(22.0, 4.0)})
    assert "do not show attention's advantage" in lesson.sentence()
    assert length_lesson({"none": study(22.0, 4.0)}) is None
    assert length_lesson({}) is None


def test_without_a_fixed_context_study_only_the_attention_line_is_described():
    text = length_lesson({"additive": study(30.0, 9.0)}).sentence()
    assert text == "Every line falls with length: the best scorer on the longest inputs, additive, keeps 30% of its " \
                   "1–10-token BLEU on 41+ tokens (9.0 against 30.0)."
