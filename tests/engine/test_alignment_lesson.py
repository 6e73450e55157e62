"""The alignment reading says what the figures show, whichever way they come out (engine/studies/alignment_lesson.py)."""

from engine.studies.alignment_lesson import AlignmentFigures, agreement, alignment_reading


def figures(*rows) -> list[AlignmentFigures]:
    return [AlignmentFigures(name, name.title(), aer, 0.5, 0.4, bleu) for name, aer, bleu in rows]


def test_better_aligners_that_translate_long_inputs_better():
    text = alignment_reading(figures(("additive", 0.40, 20.0), ("dot", 0.60, 12.0), ("bilinear", 0.50, 15.0)))
    assert text.startswith("Additive aligns best against the word aligner (AER 0.40: 50% of its argmax links")
    assert "Dot worst (AER 0.60)" in text
    assert "Aligning better goes with translating long inputs better" in text
    assert "The best aligner scores" not in text  # it is also the best translator


def test_better_aligners_that_translate_long_inputs_worse():
    text = alignment_reading(figures(("additive", 0.40, 10.0), ("dot", 0.60, 20.0)))
    assert "Aligning better does not go with translating long inputs better" in text
    assert "The best aligner scores 10.0 BLEU there; Dot scores the most, 20.0, with AER 0.60." in text


def test_mixed_orders_are_counted():
    rows = figures(("a", 0.1, 10.0), ("b", 0.2, 12.0), ("c", 0.3, 8.0))  # a-b disagree, a-c agree, b-c agree
    assert agreement(rows).agree == 2 and agreement(rows).disagree == 1
    assert "mostly goes with translating the longest inputs (41+ source sub-words) better (2 of 3" in (
        alignment_reading(rows))
    rows = figures(("a", 0.1, 10.0), ("b", 0.2, 12.0), ("c", 0.3, 11.0), ("d", 0.4, 10.5))
    assert agreement(rows).agree == 3 and agreement(rows).disagree == 3
    assert "show no common order (3 of 6 pairs of scorers agree, 3 disagree)" in alignment_reading(rows)


def test_nothing_to_compare_and_missing_bleu():
    assert alignment_reading(figures(("additive", 0.4, 20.0))) == ""
    text = alignment_reading(figures(("additive", 0.4, None), ("dot", 0.5, None)))
    assert text.startswith("Additive aligns best") and "long inputs" not in text
    assert alignment_reading(figures(("a", 0.5, 1.0), ("b", 0.5, 2.0))).startswith(
        "All 2 scorers align equally well against the word aligner (AER 0.50).")
