"""The Length study's "How they attend" table with each scorer's attribution study (top α against top occlusion,
ρ(α, |IG|), tokens changed when α is shuffled) and its reading in words
(gui/translate/length_study/attribution.py), built from the shipped models' stored config.json figures."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine.records.catalog import read_entry
from engine.settings import SCORER_TABLE
from engine.studies import stored_attribution_study
from gui.translate.choices import ScorerOption
from gui.translate.length_study.alignment import table_rows
from gui.translate.length_study.attribution import (
    attribution_cells,
    attribution_rows,
    attribution_text,
    attribution_tooltip,
)
from gui.translate.length_study.model import ATTENTION_COLUMNS, ScorerStudy, attention_table, gather, read_studies
from gui.translate.length_study.view import LengthStudyView
from tests.gui.test_length_study import make_study, write_model

MODELS = Path(__file__).resolve().parents[2] / "resources" / "models"
SCORERS = ("additive", "dot", "none")


def shipped(direction: str = "zh-en", scorers=SCORERS):
    folders = [MODELS / f"{direction}-{scorer}" for scorer in scorers]
    if not all((folder / "config.json").is_file() for folder in folders):
        pytest.skip("the shipped models are not in resources/models")
    return gather(read_studies([ScorerOption(SCORER_TABLE[s], read_entry(f, True), "") for s, f in
                                zip(scorers, folders, strict=True)]))


def stored_summary(folder: str) -> dict:
    return json.loads((MODELS / folder / "config.json").read_text(encoding="utf-8"))["metrics"]["attribution"]["summary"]


def rows_of(data):
    return dict(attribution_rows(data, [name for name, _ in table_rows(data, attention_table(data),
                                                                       len(ATTENTION_COLUMNS))]))


def test_the_table_gets_each_shipped_models_stored_attribution_figures():
    data = shipped()
    rows = rows_of(data)
    for scorer in ("additive", "dot"):
        summary = stored_summary(f"zh-en-{scorer}")
        study = stored_attribution_study(json.loads((MODELS / f"zh-en-{scorer}" / "config.json").read_text("utf-8")))
        cells = rows[scorer]
        assert all(abs(study.figure(m) - summary[m]) < 1e-3 for m in ("agree", "rho", "changed"))
        assert cells == [f"{study.figure('agree'):.0%} ({study.chance_agreement:.0%})", f"{study.figure('rho'):.2f}",
                         f"{study.figure('changed'):.0%}"]
        assert cells[2] in (f"{summary['changed'] - 1e-3:.0%}", f"{summary['changed'] + 1e-3:.0%}")
    none = next(s for s in data.scorers if s.name == "none")
    assert none.attribution is not None and attribution_cells(none) == ["", "", ""]  # no α: no figures, no row
    assert "none" not in rows
    reading = attribution_text(data)
    assert reading.startswith("Is attention the explanation? (200 test sentences, 32 integrated-gradient steps")
    assert "most-attended piece is most often the one occlusion finds most needed" in reading
    assert "Without attention, None (fixed context C) draws" in reading  # the fixed C's share of attribution on the source


def test_a_model_without_a_study_shows_dashes_and_the_tooltip_names_it():
    data = gather([ScorerStudy("additive", "Additive", make_study({"1–10": 30.0}), attention={
        "mean_entropy": 0.8, "mean_max_weight": 0.6, "monotonic_share": 0.7, "coverage_deviation": 0.3}),
        ScorerStudy("dot", "Dot", None, attribution_note="the attribution study is refused: its steps differ")])
    rows = rows_of(data)
    assert rows["additive"] == ["—", "—", "—"]
    assert rows["dot"] == ["refused", "", ""]  # no statistics, but a refused study
    tip = attribution_tooltip(data, list(rows))
    assert "— : no attribution study stored for Additive (Bahdanau)" in tip and "refused: Dot product: the attribution" in tip
    assert attribution_text(data) == "Dot product: the attribution study is refused: its steps differ."


def test_read_studies_refuses_a_damaged_attribution_study_with_the_reason(tmp_path):
    folder = write_model(tmp_path, "zh-dot", "dot", study=make_study({"1–10": 30.0}))
    info = json.loads((folder / "config.json").read_text(encoding="utf-8"))
    stored = json.loads((MODELS / "zh-en-dot" / "config.json").read_text("utf-8"))["metrics"]["attribution"] \
        if (MODELS / "zh-en-dot" / "config.json").is_file() else pytest.skip("no shipped zh-en-dot")
    info["metrics"]["attribution"] = {**stored, "summary": {**stored["summary"], "rho": 0.9}}
    (folder / "config.json").write_text(json.dumps(info), encoding="utf-8")
    (dot,) = read_studies([ScorerOption(SCORER_TABLE["dot"], read_entry(folder, False), "")])
    assert dot.attribution is None and "its rho summary is 0.9" in dot.attribution_note


def test_the_view_shows_the_columns_the_reading_and_the_tooltip(qtbot):
    view = LengthStudyView()
    qtbot.addWidget(view)
    view.set_data(shipped("en-zh", ("additive", "scaled_dot", "none")))
    table = view.attention_label.text()
    assert "Does the output depend on where they attend?" in table and "AER vs aligner" in table
    assert "top α = top occlusion (chance)" in table and "ρ(α, |IG|)" in table and "changed when α shuffled" in table
    assert f"{stored_summary('en-zh-scaled_dot')['rho']:.2f}" in table
    assert "Is attention the explanation?" in view.reading_label.text()
    assert "Jain &amp; Wallace" in view.attention_label.toolTip() or "Jain & Wallace" in view.attention_label.toolTip()
