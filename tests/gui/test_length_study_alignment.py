"""The Length study's "How they attend" table with each scorer's AER against the word aligner, and the
reading of it in words (gui/translate/length_study/alignment.py)."""

from __future__ import annotations

import json

from engine.records.catalog import read_entry
from engine.settings import SCORER_TABLE
from engine.studies.alignment_scores import AlignmentStudy, LinkScores
from gui.translate.choices import ScorerOption
from gui.translate.length_study.alignment import alignment_cells, alignment_text, table_rows
from gui.translate.length_study.model import ATTENTION_COLUMNS, ScorerStudy, attention_table, gather, read_studies
from gui.translate.length_study.view import LengthStudyView
from tests.gui.test_length_study import make_study, write_model

STATS = {"mean_entropy": 0.8, "mean_max_weight": 0.61, "monotonic_share": 0.7, "coverage_deviation": 0.3}


def study(matched: int) -> AlignmentStudy:
    return AlignmentStudy(1708, 0, LinkScores(1000, 1000, matched), LinkScores(800, 1000, matched // 2), 0.3,
                          "eflomal 2.0.0, grow-diag-final-and, 27,617 pairs of cmn-eng.tsv", "0" * 16, 15.0)


def data(additive_long: float, dot_long: float):
    return gather([
        ScorerStudy("additive", "Additive", make_study({"1–10": 30.0, "41–60": additive_long}), attention=STATS,
                    alignment=study(420)),  # AER 0.58
        ScorerStudy("dot", "Dot", make_study({"1–10": 28.0, "41–60": dot_long}), attention=STATS,
                    alignment=study(350)),  # AER 0.65
        ScorerStudy("bilinear", "Bilinear", None, alignment_note="the alignment study is refused: it scored no sentence"),
        ScorerStudy("none", "Fixed C", make_study({"1–10": 20.0, "41–60": 3.0})),
    ])


def test_the_table_gets_the_aer_and_precision_recall_after_the_statistics():
    found = data(9.0, 6.0)
    rows = dict(table_rows(found, attention_table(found), len(ATTENTION_COLUMNS)))
    assert rows["additive"][-2:] == ["0.58", "0.42 / 0.42"]
    assert rows["dot"][-2:] == ["0.65", "0.35 / 0.35"]
    assert rows["bilinear"] == ["—"] * len(ATTENTION_COLUMNS) + ["refused", ""]  # no statistics, a refused study
    assert rows["none"][-2:] == ["", ""]  # the rows are keyed by the scorer's name
    assert alignment_cells(ScorerStudy("dot", "Dot", None)) == ["—", ""]


def test_the_reading_names_the_best_aligner_and_follows_the_long_input_bleu_either_way():
    text = alignment_text(data(9.0, 6.0))
    assert "Against a word aligner (eflomal 2.0.0, grow-diag-final-and" in text
    assert "Additive (Bahdanau) aligns best against the word aligner (AER 0.58" in text and "Dot product worst (AER 0.65)" in text
    assert "Aligning better goes with translating long inputs better" in text
    assert 'Bilinear (Luong "general"): the alignment study is refused: it scored no sentence.' in text
    assert "does not go with translating long inputs better" in alignment_text(data(5.0, 7.5))
    assert alignment_text(gather([ScorerStudy("dot", "Dot", None)])) == ""


def test_read_studies_reads_the_alignment_study_or_says_why_it_is_refused(tmp_path):
    good = write_model(tmp_path, "zh-add", "additive", study=make_study({"1–10": 30.0}))
    bad = write_model(tmp_path, "zh-dot", "dot")
    for folder, stored in ((good, study(420).to_json()), (bad, {**study(420).to_json(), "sentences": float("nan")})):
        info = json.loads((folder / "config.json").read_text(encoding="utf-8"))
        info["metrics"]["alignment"] = stored
        (folder / "config.json").write_text(json.dumps(info), encoding="utf-8")
    options = [ScorerOption(SCORER_TABLE["additive"], read_entry(good, False), ""),
               ScorerOption(SCORER_TABLE["dot"], read_entry(bad, False), "")]
    additive, dot = read_studies(options)
    assert additive.alignment == study(420) and additive.alignment_note == ""
    assert dot.alignment is None and "sentences must be a whole number" in dot.alignment_note


def test_the_view_shows_the_columns_and_the_reading(qtbot):
    view = LengthStudyView()
    qtbot.addWidget(view)
    view.set_data(data(9.0, 6.0))
    table = view.attention_label.text()
    assert "AER vs aligner" in table and "precision / recall" in table and "0.58" in table and "refused" in table
    assert "Additive (Bahdanau) aligns best" in view.reading_label.text()  # its registry row's label


def test_scorers_not_trained_alike_are_compared_against_the_aligner_within_their_groups():
    from tests.engine.test_training_budget import config

    earlier = dict(reason="time budget", seconds=1500.0, tokens=None, max_minutes=25.0, lr_patience=1)
    found = gather([
        ScorerStudy("additive", "Additive", make_study({"1–10": 30.0, "41–60": 29.0}), attention=STATS,
                    alignment=study(420), record=config("additive")),
        ScorerStudy("scaled_dot", "Scaled", make_study({"1–10": 29.0, "41–60": 28.0}), attention=STATS,
                    alignment=study(400), record=config("scaled_dot")),
        ScorerStudy("dot", "Dot", make_study({"1–10": 28.0, "41–60": 6.0}), attention=STATS,
                    alignment=study(450), record=config("dot", **earlier)),  # aligns best, trained 25 min
    ])
    text = alignment_text(found)
    assert ("Among Additive (Bahdanau) and Scaled dot product (trained alike): Additive (Bahdanau) aligns best "
            "against the word aligner") in text
    assert "Dot product" not in text  # alone in its group: set against no one
    alike = gather([ScorerStudy(s.name, s.label, s.study, attention=s.attention, alignment=s.alignment)
                    for s in found.scorers])  # no configs: read as one group, as before
    assert "Among" not in alignment_text(alike) and "Dot product aligns best" in alignment_text(alike)
