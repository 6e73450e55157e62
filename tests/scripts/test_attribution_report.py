"""scripts/attribution_report.py's report: each direction's table and a reading that follows the stored figures."""

from engine.studies.attribution_scores import AttributionStudy
from tests.scripts import load_script

attribution_report = load_script("attribution_report")


def study(agree: tuple[float, ...] | None, changed: tuple[float, ...] | None) -> AttributionStudy:
    attends = agree is not None
    return AttributionStudy(3, 500, 0, 32, 5, agree, (0.4, 0.6, None) if attends else None, changed,
                            (0.1, 0.2, 0.3) if attends else None, (0.8, 0.6, 0.7), (5, 5, 5), 12.0)


def test_the_report_tabulates_each_direction_and_reads_its_figures():
    found = {"en-zh": [("dot", study((1.0, 1.0, 0.0), (0.6, 0.4, 0.2)))],
             "zh-en": [("additive", study((1.0, 0.0, 0.0), (0.0, 0.0, 0.2))),
                       ("dot", study((1.0, 1.0, 1.0), (0.4, 0.6, 0.2))),
                       ("none", study(None, None)), ("bilinear", None)]}
    text = attribution_report.render(found, 2)
    assert text.index("## zh-en") < text.index("## en-zh")
    assert "| additive | 3 | 3 | 33% | 20% | 0.50 | 7% | 0.20 | 70% | 12 s |" in text
    assert "| none | 3 | 3 | — | — | — | — | — | 70% | 12 s |" in text
    assert "| bilinear | — | no study stored |" in text
    assert "`dot`'s most-attended piece is most often the one occlusion finds most needed (100% of the steps" in text
    assert "`additive`'s at 7%" in text and "barely depends on where α falls" in text
    assert "`none` draws 70% of its attribution from the source, about as much as the attention models" in text
