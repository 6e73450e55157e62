"""The Length study opens whatever a model folder's stored figures hold: a study or attention
statistics with Infinity or NaN in them are left out (the scorer says it has no study), never an
error."""

from __future__ import annotations

import json
import shutil

import pytest

from engine.records.catalog import read_entry
from engine.settings import SCORER_TABLE
from gui.translate.choices import ScorerOption
from gui.translate.length_study.model import NO_STUDY, attention_table, gather, read_studies


@pytest.mark.slow  # a trained model, or the real window
def test_a_study_and_statistics_with_infinity_are_left_out_and_the_rest_is_read(tmp_path, dates_models):
    folder = tmp_path / "model"
    shutil.copytree(dates_models["additive"], folder, ignore=shutil.ignore_patterns("checkpoint*"))
    info = json.loads((folder / "config.json").read_text(encoding="utf-8"))
    study = {"beam": 1, "n": 2, "signature": "s", "buckets": [{"bucket": "1–10", "n": 2, "bleu": float("inf"),
                                                                 "chrf": 10.0}], "aggregates": [], "rows": []}
    info.setdefault("metrics", {})["length_study"] = {"beam1": study}
    info["metrics"]["test"] = {"bleu": 1.0, "attention": {"mean_entropy": float("nan"), "mean_max_weight": 0.5}}
    (folder / "config.json").write_text(json.dumps(info), encoding="utf-8")  # Infinity and NaN as Python writes them
    [scorer] = read_studies([ScorerOption(SCORER_TABLE["additive"], read_entry(folder, shipped=False), "")])
    assert scorer.study is None and scorer.note == NO_STUDY
    assert scorer.attention == {"mean_max_weight": 0.5}
    data = gather([scorer])
    assert data.series == () and attention_table(data)[0][1][:2] == ["—", "0.50"]
