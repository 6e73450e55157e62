"""The length-study report is drawn from the studies stored in model folders."""

import json
from pathlib import Path

from engine.studies.length_study import BucketScore, LengthStudy
from tests.scripts import load_script

report = load_script("length_report")

LABELS = ["1–10", "11–20", "21–30", "31–40", "41–60", "61+"]


def _folder(root: Path, scorer: str, bleus: list[float], long_bleu: float, loops: float | None = None) -> None:
    studies = {f"beam{beam}": LengthStudy(beam, 60, tuple(BucketScore(label, 10, bleu, bleu + 20) for label, bleu in
                                                         zip(LABELS, bleus, strict=True)),
                                          (), "sig", (BucketScore("41+", 20, long_bleu, long_bleu + 20),),
                                          loops if beam == 5 else None, 0.01 if beam == 5 and loops is not None
                                          else None).to_json() for beam in (1, 5)}
    folder = root / f"zh-en-{scorer}"
    folder.mkdir(parents=True)
    digest = "0" * 64  # never checked: the report reads config.json only
    config = {"format": "attention-studio-model", "format_version": 1, "source_language": "zh",
              "target_language": "en", "model": {"scorer": scorer, "src_vocab_size": 4000, "tgt_vocab_size": 4000},
              "weights": {"sha256": digest}, "tokenizers": {"source": {"sha256": digest}, "target": {"sha256": digest}},
              "metrics": {"length_study": studies}}
    (folder / "config.json").write_text(json.dumps(config, ensure_ascii=False), encoding="utf-8")


def test_the_report_tabulates_the_stored_studies_and_checks_the_targets(tmp_path):
    _folder(tmp_path, "additive", [30, 29, 28, 27, 26, 25], 25.5)
    _folder(tmp_path, "none", [25, 18, 12, 8, 5, 3], 4.0)
    found = report.gather(tmp_path)
    assert set(found["zh-en"]) == {"additive", "none"}
    text = report.render(found, [])
    assert "| additive | 30.0 | 29.0 | 28.0 | 27.0 | 26.0 | 25.0 | 25.5 |" in text
    assert "| additive | +5.0 | +11.0 | +16.0 | +19.0 | +21.0 | +22.0 | +21.5 |" in text  # lead over C
    assert "**0.85×**" in text  # 25.5 / 30 on 41+ against 1–10
    assert "**4.3×**" in text  # lead +21.5 against +5.0


def test_a_study_with_an_infinite_figure_is_left_out_of_the_report(tmp_path):
    _folder(tmp_path, "additive", [30, 29, 28, 27, 26, 25], 25.5)
    _folder(tmp_path, "none", [25, 18, 12, 8, 5, 3], 4.0)
    path = tmp_path / "zh-en-none" / "config.json"
    path.write_text(path.read_text(encoding="utf-8").replace('"bleu": 25,', '"bleu": Infinity,'), encoding="utf-8")
    found = report.gather(tmp_path)
    assert set(found["zh-en"]) == {"additive"}
    assert "| additive | 30.0 |" in report.render(found, [])


def test_the_report_checks_each_models_looping_share_against_the_references_bound(tmp_path):
    _folder(tmp_path, "additive", [30, 29, 28, 27, 26, 25], 25.5, loops=0.02)
    _folder(tmp_path, "dot", [30, 29, 28, 27, 26, 25], 25.0, loops=0.05)
    _folder(tmp_path, "none", [25, 18, 12, 8, 5, 3], 4.0, loops=0.0)
    text = report.render(report.gather(tmp_path), [])
    beam_section = text[text.index("## zh-en, beam 5"):]
    assert "target ≤ 3%: twice the references' 1.0%, at least 3 %): `additive` 2.0%, `dot` 5.0%, `none` 0.0% — " \
           "over it: `dot`." in beam_section
    assert "Outputs that loop" not in text[:text.index("## zh-en, beam 5")]  # greedy studies did not measure it
