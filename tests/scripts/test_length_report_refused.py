"""length_report says what it leaves out: a stored study the app refuses, or a model folder it cannot
read, is one line on stderr — never dropped without a word."""

from __future__ import annotations

import json

from tests.scripts import load_script
from tests.scripts.test_length_report import _folder

report = load_script("length_report")


def test_a_refused_study_is_named_with_its_reason(tmp_path) -> None:
    _folder(tmp_path, "additive", [30, 29, 28, 27, 26, 25], 25.5)
    _folder(tmp_path, "none", [25, 18, 12, 8, 5, 3], 4.0)
    path = tmp_path / "zh-en-none" / "config.json"
    config = json.loads(path.read_text(encoding="utf-8"))
    beams = sorted(config["metrics"]["length_study"])
    for key in beams:
        config["metrics"]["length_study"][key]["buckets"] = "damaged"
    path.write_text(json.dumps(config), encoding="utf-8")
    said: list[str] = []
    found = report.gather(tmp_path, warn=said.append)
    assert set(found["zh-en"]) == {"additive"}
    assert len(said) == len(beams) and all("zh-en-none" in line and "length study is refused" in line
                                           and "\n" not in line for line in said)
    assert "beam-1 length study is refused" in said[0]


def test_an_unreadable_folder_is_named_and_the_others_still_reported(tmp_path) -> None:
    _folder(tmp_path, "additive", [30, 29, 28, 27, 26, 25], 25.5)
    (tmp_path / "zh-en-broken").mkdir()
    (tmp_path / "zh-en-broken" / "config.json").write_text("{", encoding="utf-8")
    said: list[str] = []
    found = report.gather(tmp_path, warn=said.append)
    assert set(found["zh-en"]) == {"additive"}
    assert len(said) == 1 and "zh-en-broken is left out" in said[0] and "not valid JSON" in said[0]
