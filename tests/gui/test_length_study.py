"""The length study in the app: series and bucket rows from stored studies, the plot and its
bucket table, and the dialog opened from the Translate tab."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from PySide6.QtCore import QPointF, Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QComboBox, QTableWidget, QToolButton

from engine.files import user_models_folder
from engine.records.catalog import read_entry
from engine.settings.scorer_table import SCORER_TABLE
from engine.studies.length_study import BucketScore, LengthStudy, StudyRow, read_length_study, record_length_study
from gui.translate.choices import ModelChoices
from gui.translate.length_study.dialog import LengthStudyDialog
from gui.translate.length_study.model import (
    BUCKET_LABELS,
    MISSING_OUTPUT,
    NO_MODEL,
    NO_STUDY,
    attention_table,
    gather,
    read_studies,
)
from gui.translate.length_study.view import HIGHLIGHT_COLOUR, LengthStudyView
from gui.translate.tab import TranslateTab
from tests.gui.test_translate_support import (
    LOAD_MS,
    RUN_MS,
    install_models,
    open_window,
    wait_for_model,
    wait_run_end,
)

LABELS = {name: info.label for name, info in SCORER_TABLE.items()}
SHARED = {"1–10": ("短句。", "Short."), "41–60": ("一个很长的句子。" * 4, "A long sentence. " * 4)}


def make_study(bleu: dict[str, float], outputs: dict[str, str] | None = None, extra: str | None = None) -> LengthStudy:
    """A study with the given BLEU per bucket; a row per bucket in SHARED (output: ``outputs``
    per bucket, else "out <bucket>"); ``extra`` adds a source only this study has, in 1–10."""
    outputs = outputs or {}
    buckets = tuple(BucketScore(label, 10 * (i + 1), value, value + 20)
                    for i, (label, value) in enumerate(bleu.items()))
    rows = [StudyRow(label, source, reference, outputs.get(label, f"out {label}"), 5)
            for label, (source, reference) in SHARED.items() if label in bleu]
    if extra:
        rows.append(StudyRow("1–10", extra, "only reference", "only output", 3))
    return LengthStudy(1, sum(b.n for b in buckets), buckets, tuple(rows), "sig")


ADDITIVE = make_study({"1–10": 30.0, "11–20": 28.0, "41–60": 25.0}, {"1–10": "add short"}, extra="独有的句子")
FIXED = make_study({"1–10": 26.0, "11–20": 15.0, "41–60": 4.0}, {"1–10": "C short"})


def write_model(root: Path, name: str, scorer: str, direction: str = "zh-en", study: LengthStudy | None = None) -> Path:
    """A fake model folder: config.json only, enough for the catalog and the length study."""
    folder = root / name
    folder.mkdir(parents=True)
    source, target = direction.split("-")
    digest = "0" * 64  # never checked: the catalog and the study read config.json only
    info = {"format": "attention-studio-model", "format_version": 1,
            "model": {"scorer": scorer, "src_vocab_size": 4000, "tgt_vocab_size": 4000},
            "weights": {"file": "model.safetensors", "dtype": "float16", "sha256": digest},
            "tokenizers": {"source": {"file": "src.model", "sha256": digest},
                           "target": {"file": "tgt.model", "sha256": digest}},
            "source_language": source, "target_language": target, "metrics": {}}
    if study is not None:
        info["metrics"]["length_study"] = {"beam1": study.to_json()}
    if scorer != "none":
        info["metrics"]["test"] = {"bleu": 20.0, "attention": {"mean_entropy": 0.8, "mean_max_weight": 0.61,
                                                                "monotonic_share": 0.7, "coverage_deviation": 0.3}}
    (folder / "config.json").write_text(json.dumps(info, ensure_ascii=False), encoding="utf-8")
    return folder


@pytest.fixture
def entries(tmp_path):
    root = tmp_path / "models"
    return [read_entry(write_model(root, "zh-add", "additive", study=ADDITIVE), False),
            read_entry(write_model(root, "zh-none", "none", study=FIXED), False),
            read_entry(write_model(root, "zh-dot", "dot"), False),
            read_entry(write_model(root, "en-add", "additive", "en-zh", make_study({"21–30": 12.0})), False)]


@pytest.fixture
def view(qtbot):
    view = LengthStudyView()
    qtbot.addWidget(view)
    view.resize(900, 700)
    view.set_data(gather([("none", LABELS["none"], FIXED), ("dot", LABELS["dot"], None),
                          ("additive", LABELS["additive"], ADDITIVE)]))
    view.show()
    qtbot.waitExposed(view)
    return view


# -- the pure model -------------------------------------------------------------------------------
def test_gather_keeps_the_engine_scorer_order_and_the_stored_bleu():
    data = gather([("none", "C", FIXED), ("dot", "Dot", None), ("additive", "Add", ADDITIVE)])
    assert [s.name for s in data.series] == ["additive", "none"]
    assert [s.name for s in data.scorers] == ["additive", "dot", "none"]
    additive, fixed = data.series
    assert additive.xs == (0, 1, 4) and additive.bleu == (30.0, 28.0, 25.0)
    assert fixed.highlight and not additive.highlight
    assert [(s.label, s.note) for s in data.missing] == [("Dot", NO_STUDY)]
    assert data.buckets() == ("1–10", "11–20", "41–60") and data.count("11–20") == 20


def test_rows_are_joined_by_source_with_a_dash_where_a_scorer_lacks_one():
    data = gather([("additive", "Add", ADDITIVE), ("none", "C", FIXED)])
    rows = data.rows("1–10")
    assert [r.source for r in rows] == ["短句。", "独有的句子"]
    assert rows[0].reference == "Short." and rows[0].outputs == ("add short", "C short")
    assert rows[1].outputs == ("only output", MISSING_OUTPUT)
    assert data.rows("21–30") == []


def test_read_studies_reads_config_json_and_says_what_is_missing(entries):
    choices = ModelChoices(entries)
    studies = read_studies(choices.options("zh-en"))
    assert [s.name for s in studies] == list(SCORER_TABLE)
    by_name = {s.name: s for s in studies}
    assert by_name["additive"].study == read_length_study(entries[0].folder) == ADDITIVE
    assert (by_name["dot"].study, by_name["dot"].note) == (None, NO_STUDY)
    assert (by_name["bilinear"].study, by_name["bilinear"].note) == (None, NO_MODEL)
    assert by_name["additive"].attention == {"mean_entropy": 0.8, "mean_max_weight": 0.61, "monotonic_share": 0.7,
                                             "coverage_deviation": 0.3}
    table = dict(attention_table(gather(studies)))
    assert table["additive"] == ["0.80", "0.61", "0.70", "0.30"] and "no attention" in table["none"][0]  # by name


# -- the view -------------------------------------------------------------------------------------
def test_view_draws_one_line_per_stored_study_and_the_fixed_context_line_stands_out(view):
    assert view.findChild(type(view.plot), "lengthStudyPlot") is view.plot
    curves = view.plot.getPlotItem().listDataItems()
    assert len(curves) == 2 and list(view.curves) == ["additive", "none"]
    for name, study in (("additive", ADDITIVE), ("none", FIXED)):
        xs, ys = view.curves[name].getData()
        assert list(ys) == [b.bleu for b in study.buckets]
        assert [BUCKET_LABELS[int(x)] for x in xs] == [b.label for b in study.buckets]
    fixed, additive = view.curves["none"].opts["pen"], view.curves["additive"].opts["pen"]
    assert fixed.color().name() == HIGHLIGHT_COLOUR and fixed.style() == Qt.PenStyle.DashLine
    assert fixed.widthF() > additive.widthF() and additive.color().name() != HIGHLIGHT_COLOUR
    assert [label.text for _sample, label in view.legend.items] == [LABELS["additive"], LABELS["none"]]
    ticks = view.plot.getPlotItem().getAxis("bottom")._tickLevels[0]
    assert [text.split("\n")[0] for _x, text in ticks] == list(BUCKET_LABELS)
    assert "n = 20" in ticks[1][1]


def test_a_scorer_without_a_study_is_named_not_drawn(view):
    assert view.missing_label.isVisible()
    assert f"{LABELS['dot']}: {NO_STUDY}" in view.missing_label.text()
    view.set_data(gather([("additive", LABELS["additive"], None)]))
    assert view.curves == {} and not view.bucket_combo.isEnabled() and view.table.rowCount() == 0
    assert "No length study" in view.plot.getPlotItem().titleLabel.text


def test_choosing_a_bucket_lists_its_inputs_with_every_output_and_the_reference(view):
    combo = view.findChild(QComboBox, "lengthStudyBucketCombo")
    table = view.findChild(QTableWidget, "lengthStudyTable")
    assert [combo.itemData(i) for i in range(combo.count())] == ["1–10", "11–20", "41–60"]
    combo.setCurrentIndex(combo.findData("41–60"))
    headers = [table.horizontalHeaderItem(c).text() for c in range(table.columnCount())]
    assert headers[1:] == ["Source", "Reference", "Additive", "None"]  # short titles: the whole label in the tooltip
    tips = [table.horizontalHeaderItem(c).toolTip() for c in range(table.columnCount())]
    assert tips[1:] == ["Source", "Reference", LABELS["additive"], LABELS["none"]]
    assert table.rowCount() == 1
    assert view.table.output_texts(0) == [SHARED["41–60"][0], SHARED["41–60"][1], "out 41–60", "out 41–60"]
    assert "BLEU 25.0" in view.scores_label.text() and "chrF 24.0" in view.scores_label.text()
    assert view.selection.getRegion() == (3.5, 4.5)


def test_a_mouse_click_on_the_plot_chooses_the_bucket_under_it(qtbot, view):
    hints = QGuiApplication.styleHints()
    interval = hints.mouseDoubleClickInterval()
    hints.setMouseDoubleClickInterval(0)  # two clicks in a row are two clicks, not a double click
    view_box = view.plot.getPlotItem().getViewBox()
    for index in (4, 0):
        scene_point = view_box.mapViewToScene(QPointF(index + 0.1, 10.0))
        point = view.plot.mapFromScene(scene_point)
        with qtbot.waitSignal(view.bucketChosen, timeout=2000) as blocker:
            qtbot.mouseClick(view.plot.viewport(), Qt.MouseButton.LeftButton, pos=point)
        assert blocker.args == [BUCKET_LABELS[index]]
        assert view.current_bucket() == BUCKET_LABELS[index]
    hints.setMouseDoubleClickInterval(interval)
    assert view.table.output_texts(0)[2:] == ["add short", "C short"]


def test_a_row_button_or_a_double_click_chooses_the_row(qtbot, view):
    view.select_bucket("1–10")
    button = view.table.row_button(1)
    assert isinstance(button, QToolButton) and button.objectName() == "lengthStudyRowButton"
    with qtbot.waitSignal(view.rowChosen, timeout=1000) as blocker:
        qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
    assert blocker.args == ["独有的句子"]
    with qtbot.waitSignal(view.rowChosen, timeout=1000) as blocker:
        view.table.cellDoubleClicked.emit(0, 2)
    assert blocker.args == ["短句。"]


# -- from the Translate tab -----------------------------------------------------------------------
def test_the_translate_tab_opens_the_study_of_its_direction_and_follows_it(qtbot, entries, monkeypatch):
    tab = TranslateTab()
    qtbot.addWidget(tab)
    monkeypatch.setattr(tab.controller, "select", lambda direction, scorer: False)  # no model loads
    translated = []
    monkeypatch.setattr(tab, "translate_text", translated.append)
    tab.controller.choices = ModelChoices(entries)
    tab._on_catalog(tab.controller.choices)
    tab.show()
    button = tab.findChild(QToolButton, "lengthStudyButton")
    assert button.isEnabled()
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
    dialog = tab.findChild(LengthStudyDialog, "lengthStudyDialog")
    assert dialog is not None and dialog.isVisible() and not dialog.isModal()
    assert list(dialog.view.curves) == ["additive", "none"] and "Chinese → English" in dialog.windowTitle()
    dialog.view.select_bucket("1–10")
    dialog.view.table.choose(0)
    assert translated == ["短句。"]
    assert tab.reference_for("短句。") == "Short."  # known now: the Compare tab will score against it
    bar = tab.view.choice_bar
    bar.direction_combo.activated.emit(bar.direction_combo.findData("en-zh"))
    assert dialog.direction == "en-zh" and list(dialog.view.curves) == ["additive"]
    assert dialog.view.current_bucket() == "21–30"
    dialog.close()


@pytest.mark.slow  # a trained model, or the real window
def test_the_main_window_button_opens_the_study_and_a_row_decodes(qtbot, dates_models):
    root = install_models(dates_models, ("additive", "none"))
    sources = {"1–10": ("29 Nov 2026", "2026-11-29")}
    for scorer, bleu in (("additive", 90.0), ("none", 60.0)):
        study = LengthStudy(1, 4, (BucketScore("1–10", 4, bleu, bleu),),
                            tuple(StudyRow(b, s, r, r, 6) for b, (s, r) in sources.items()), "sig")
        record_length_study(root / f"dates-{scorer}", study)
    assert root == user_models_folder()
    window = open_window(qtbot)
    wait_for_model(qtbot, window)
    qtbot.mouseClick(window.findChild(QToolButton, "lengthStudyButton"), Qt.MouseButton.LeftButton)
    dialog = window.findChild(LengthStudyDialog, "lengthStudyDialog")
    assert dialog.isVisible() and list(dialog.view.curves) == ["additive", "none"]
    qtbot.mouseClick(dialog.view.table.row_button(0), Qt.MouseButton.LeftButton)
    assert window.translate_tab.view.source_input.text() == "29 Nov 2026"
    wait_run_end(qtbot, window)
    assert window.translate_tab.view.target_output.text()
    dialog.close()
    window.translate_tab.view.compare_button.click()  # the row's reference comes along to Compare
    compare = window.compare_tab
    assert compare.input.text() == "29 Nov 2026" and compare.reference.text() == "2026-11-29"
    qtbot.waitUntil(lambda: compare.controller.run is not None and not compare.controller.busy
                    and compare.panels["additive"].matrix is not None, timeout=LOAD_MS + RUN_MS)
    assert "chrF" in compare.panels["additive"].numbers.text()


def _with_long(study: LengthStudy, long_bleu: float) -> LengthStudy:
    return LengthStudy(study.beam, study.n, study.buckets, study.rows, study.signature,
                       aggregates=(BucketScore("41+", 10, long_bleu, long_bleu + 20),))


@pytest.mark.parametrize(("additive_long", "fixed_long", "said", "not_said"), [
    (6.0, 1.0, "Every line falls with length", "hold up"),
    (27.0, 4.0, "long inputs hold up", "Every line falls"),
])
def test_the_caption_says_what_the_stored_figures_show(view, additive_long, fixed_long, said, not_said):
    view.set_data(gather([("none", LABELS["none"], _with_long(FIXED, fixed_long)),
                          ("additive", LABELS["additive"], _with_long(ADDITIVE, additive_long))]))
    caption = view.caption.text()
    assert said in caption and not_said not in caption
    assert f"{LABELS['additive']} keeps {additive_long / 30.0:.0%}" in caption
    view.set_data(gather([("none", LABELS["none"], FIXED)]))  # no attention figure: the theory alone
    assert "What these models show" not in view.caption.text()


def test_models_not_trained_alike_are_named_and_the_lesson_sets_c_against_its_own_build(view):
    from gui.translate.length_study.model import ScorerStudy
    from tests.engine.test_training_budget import config

    earlier = dict(reason="time budget", seconds=1500.0, tokens=None, max_minutes=25.0, lr_patience=1)
    studies = [ScorerStudy("none", LABELS["none"], _with_long(FIXED, 4.0), record=config("none")),
               ScorerStudy("additive", LABELS["additive"], _with_long(ADDITIVE, 27.0), record=config("additive")),
               ScorerStudy("scaled_dot", LABELS["scaled_dot"], _with_long(ADDITIVE, 29.0),
                           record=config("scaled_dot", **earlier))]
    view.set_data(gather(studies))
    caption = view.caption.text()
    assert f"{LABELS['additive']} keeps 90%" in caption  # the lesson reads C's own build, not the best line
    assert "Not trained alike" in caption and "for 25 min (its time budget)" in caption
    view.set_data(gather(studies[:2]))  # trained alike: no note
    assert "Not trained alike" not in view.caption.text() and "What these models show" in view.caption.text()
