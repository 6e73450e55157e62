"""The length study's lesson is derived from its figures: falling lines and holding lines read differently."""

from engine.studies.length_reading import length_lesson
from engine.studies.length_study import BucketScore, LengthStudy


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


def test_lines_that_score_nothing_never_hold_up_and_ties_on_long_inputs_go_to_the_better_short_figure():
    lesson = length_lesson({"additive": study(0.4, 0.0), "multihead": study(0.0, 0.0)})
    assert lesson.best == "additive" and lesson.all_fall and not lesson.holds
    assert lesson.sentence().startswith("Every line falls with length: the best scorer on the longest inputs, additive")
    assert lesson.headline() == "every line falls"


def test_attention_falling_as_far_as_c_is_not_called_falling_less():
    lesson = length_lesson({"additive": study(30.0, 9.0), "none": study(10.0, 3.0)})  # both keep 30%
    text = lesson.sentence()
    assert text.startswith("Every line falls with length") and "falls less" not in text
    assert "attention falls as far, from higher up" in text and "3.0× C's BLEU" in text
    assert lesson.headline() == "every line falls"
    falling_less = length_lesson({"additive": study(30.0, 9.0), "none": study(20.0, 1.0)})
    assert "but attention falls less" in falling_less.sentence()
    assert falling_less.headline() == "every line falls, attention less"


def test_hold_up_is_said_of_the_named_scorer_only_and_every_line_falls_only_when_c_falls_too():
    # dot holds (100 %) but additive, best on long inputs, falls: neither "hold up" nor "every line falls"
    lesson = length_lesson({"additive": study(30.0, 10.0), "dot": study(5.0, 5.0), "none": study(20.0, 2.0)})
    assert lesson.best == "additive" and not lesson.holds and not lesson.all_fall
    text = lesson.sentence()
    assert text.startswith("Long inputs are harder: the best scorer on the longest inputs, additive, keeps 33%")
    assert "hold up" not in text and "Every line falls" not in text
    assert lesson.headline() == "the best on long inputs keeps 33%"
    c_holds = length_lesson({"additive": study(30.0, 10.0), "none": study(5.0, 4.5)})  # C holds, from low down
    assert not c_holds.all_fall and "Every line falls" not in c_holds.sentence()
    holding = length_lesson({"additive": study(30.0, 27.0), "none": study(26.0, 6.5)})
    assert holding.headline() == "attention holds up, C falls"
    assert length_lesson({"dot": study(20.0, 3.0), "none": study(22.0, 4.0)}).headline() == \
        "the fixed context C is not behind"
