"""The alignment figures in the quality report: read from the model folders, refused ones said so."""

from pathlib import Path

from engine.studies.alignment_scores import AlignmentStudy, LinkScores
from tests.scripts import load_script

alignment_report = load_script("alignment_report")


def study(matched: int) -> dict:
    return AlignmentStudy(100, 0, LinkScores(500, 500, matched), LinkScores(400, 500, matched // 2), 0.3,
                          "eflomal 2.0.0, grow-diag-final-and, 9 pairs of x.tsv", "0" * 16, 2.0).to_json()


def length_study(bleu: float) -> dict:
    return {"beam1": {"beam": 1, "n": 10, "signature": "", "rows": [],
                      "buckets": [{"bucket": "41–60", "n": 10, "bleu": bleu, "chrf": 40.0}],
                      "aggregates": [{"bucket": "41+", "n": 10, "bleu": bleu, "chrf": 40.0}]}}


CONFIGS = {
    "zh-en-additive": {"metrics": {"alignment": study(300), "length_study": length_study(20.0)}},
    "zh-en-dot": {"metrics": {"alignment": study(200), "length_study": length_study(12.0)}},
    "zh-en-bilinear": {"metrics": {"alignment": {**study(250), "sentences": -1}}},
    "zh-en-none": {"metrics": {"length_study": length_study(5.0)}},
}


def results() -> list[dict]:
    return [{"name": name, "scorer": name.split("-", 2)[-1], "direction": "zh-en"} for name in CONFIGS]


def test_stored_studies_are_read_and_reported_with_the_reading(monkeypatch):
    monkeypatch.setattr(alignment_report, "read_config", lambda folder: CONFIGS[Path(folder).name])
    found = results()
    alignment_report.add_alignment_studies(found, Path("models"))
    by_name = {r["name"]: r for r in found}
    assert by_name["zh-en-additive"]["alignment"]["argmax"]["aer"] == 0.4
    assert by_name["zh-en-additive"]["long_bleu"] == 20.0
    assert "sentences must be a whole number" in by_name["zh-en-bilinear"]["alignment"]["refused"]
    assert by_name["zh-en-none"]["alignment"] is None and by_name["zh-en-none"]["long_bleu"] == 5.0
    text = "\n".join(alignment_report.alignment_section(found))
    assert "| zh-en-additive | 0.400 / 0.600 / 0.600 | 0.667 / 0.375 / 0.300 | 20.0 |" in text
    assert "| zh-en-dot | 0.600 / 0.400 / 0.400 |" in text
    assert "| zh-en-bilinear | refused: the alignment study is refused: sentences must be" in text
    assert "| zh-en-none | — (no attention: fixed C) | — | 5.0 |" in text
    assert "zh-en: `additive` aligns best against the word aligner (AER 0.40" in text
    assert "Aligning better goes with translating long inputs better" in text


def test_no_study_anywhere_means_no_section(monkeypatch):
    monkeypatch.setattr(alignment_report, "read_config", lambda folder: {"metrics": {}})
    found = results()
    alignment_report.add_alignment_studies(found, Path("models"))
    assert alignment_report.alignment_section(found) == []
