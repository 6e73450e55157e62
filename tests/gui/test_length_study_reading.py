"""The plain-language reading of the scorers' attention statistics (gui/translate/length_study/reading.py)."""

from __future__ import annotations

from gui.translate.length_study.model import ScorerStudy, gather
from gui.translate.length_study.reading import attention_reading
from gui.translate.length_study.view import LengthStudyView
from tests.gui.test_length_study import make_study


def stats(entropy: float, max_weight: float, monotonic: float, coverage: float) -> dict:
    return {"mean_entropy": entropy, "mean_max_weight": max_weight, "monotonic_share": monotonic,
            "coverage_deviation": coverage}


def data(soft_long_bleu: float, sharp_long_bleu: float):
    """A soft, evenly covering scorer and a sharp, unevenly covering one, plus the fixed C."""
    return gather([
        ScorerStudy("additive", "Additive (Bahdanau)", make_study({"1–10": 30.0, "41–60": soft_long_bleu}),
                    attention=stats(1.6, 0.39, 0.82, 0.45)),
        ScorerStudy("dot", "Dot product", make_study({"1–10": 28.0, "41–60": sharp_long_bleu}),
                    attention=stats(0.2, 0.92, 0.85, 0.90)),
        ScorerStudy("none", "Fixed C", make_study({"1–10": 20.0, "41–60": 3.0})),
    ])


def test_the_reading_names_the_softest_and_sharpest_and_the_most_and_least_even():
    text = attention_reading(data(9.0, 6.0))
    assert "Additive (Bahdanau) spreads its attention the most (row entropy 1.60 nats, 39% " in text
    assert "Dot product the least (0.20 nats, 92%)" in text
    assert "Additive (Bahdanau) covers the source most evenly (coverage deviation 0.45" in text and "Dot product least (0.90" in text
    assert "at 82%–85% of the steps" in text
    assert "On the longest inputs (41–60 source tokens) the even one translates better (BLEU 9.0 against 6.0)" in text
    assert "the fixed C, without attention, scores 3.0" in text


def test_the_verdict_follows_the_figures_either_way():
    text = attention_reading(data(5.0, 7.5))
    assert "the uneven one translates better here (BLEU 7.5 against 5.0)" in text
    assert "the even one translates better" not in text
    assert "both score BLEU 6.0" in attention_reading(data(6.0, 6.0))


def test_no_reading_without_two_attention_scorers_with_every_figure():
    one = gather([ScorerStudy("additive", "Additive (Bahdanau)", None, attention=stats(1.6, 0.39, 0.82, 0.45)),
                  ScorerStudy("dot", "Partial", None, attention={"mean_entropy": 0.2}),
                  ScorerStudy("none", "Fixed C", None)])
    assert attention_reading(one) == ""
    two_without_studies = gather([ScorerStudy("additive", "Additive (Bahdanau)", None, attention=stats(1.6, 0.39, 0.82, 0.45)),
                                  ScorerStudy("dot", "Dot product", None, attention=stats(0.2, 0.92, 0.85, 0.9))])
    text = attention_reading(two_without_studies)
    assert "Additive (Bahdanau) spreads" in text and "longest inputs" not in text  # no BLEU to compare: no verdict


def test_the_view_shows_the_reading_beside_the_table_and_hides_it_without_one(qtbot):
    view = LengthStudyView()
    qtbot.addWidget(view)
    view.set_data(data(9.0, 6.0))
    assert not view.reading_label.isHidden() and view.reading_label.text() == attention_reading(data(9.0, 6.0))
    view.set_data(gather([ScorerStudy("none", "Fixed C", make_study({"1–10": 20.0}))]))
    assert view.reading_label.isHidden()


def test_scorers_not_trained_alike_are_read_within_their_groups():
    from tests.engine.test_training_budget import config

    earlier = dict(reason="time budget", seconds=1500.0, tokens=None, max_minutes=25.0, lr_patience=1)
    converged = [ScorerStudy("additive", "Additive (Bahdanau)", make_study({"1–10": 30.0, "41–60": 9.0}),
                             attention=stats(1.6, 0.39, 0.82, 0.45), record=config("additive"))]
    short = [ScorerStudy("dot", "Dot product", make_study({"1–10": 28.0, "41–60": 6.0}),
                         attention=stats(0.2, 0.92, 0.85, 0.90), record=config("dot", **earlier)),
             ScorerStudy("bilinear", "Bilinear (Luong \"general\")", make_study({"1–10": 27.0, "41–60": 7.0}),
                         attention=stats(0.8, 0.70, 0.84, 0.70), record=config("bilinear", **earlier))]
    text = attention_reading(gather(converged + short))
    assert text.startswith("Among Bilinear (Luong \"general\") and Dot product (trained alike): Bilinear (Luong \"general\") spreads its attention the most")
    assert "Additive (Bahdanau)" not in text  # the converged model alone in its group is set against none of them
    both = converged + [ScorerStudy("scaled_dot", "Scaled dot product", make_study({"1–10": 29.0}),
                                    attention=stats(1.2, 0.5, 0.83, 0.5), record=config("scaled_dot"))]
    paragraphs = attention_reading(gather(both + short)).split("\n\n")
    assert [p.split(":")[0] for p in paragraphs] == ["Among Additive (Bahdanau) and Scaled dot product (trained alike)",
                                                     "Among Bilinear (Luong \"general\") and Dot product (trained alike)"]
    alone = attention_reading(gather(converged + short[:1]))
    assert alone == ""  # no two scorers trained alike: nothing is compared
