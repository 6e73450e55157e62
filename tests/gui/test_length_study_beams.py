"""The length study's decoding chooser: greedy or a stored beam size, the loop line, and a row
translated in the Translate tab at the beam of the study on screen."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QComboBox, QLabel, QToolButton

from engine.records.catalog import read_entry
from gui.translate.choices import ModelChoices
from gui.translate.length_study.dialog import LengthStudyDialog
from gui.translate.length_study.model import gather
from gui.translate.length_study.table import LOOP_TINT, looping_words
from gui.translate.length_study.view import LengthStudyView
from gui.translate.tab import TranslateTab
from tests.gui.test_length_study import LABELS, make_study, write_model

GREEDY_ADDITIVE = replace(make_study({"1–10": 30.0, "41–60": 22.0}, {"1–10": "greedy short"}),
                          looping_share=0.02, references_looping_share=0.005)
BEAM_ADDITIVE = replace(make_study({"1–10": 32.0, "41–60": 29.0}, {"1–10": "beam short"}), beam=5,
                        looping_share=0.004, references_looping_share=0.005)
FIXED_SHORT = make_study({"1–10": 20.0}, {"1–10": "A short one."})
GREEDY_FIXED = replace(make_study({"1–10": 26.0, "41–60": 5.0}, {"1–10": "C short"}), looping_share=0.12,
                       references_looping_share=0.005)


def add_study(folder, study) -> None:
    """Store ``study`` beside the folder's others (config.json written as the engine writes it)."""
    path = folder / "config.json"
    info = json.loads(path.read_text(encoding="utf-8"))
    info["metrics"].setdefault("length_study", {})[f"beam{study.beam}"] = study.to_json()
    path.write_text(json.dumps(info, ensure_ascii=False), encoding="utf-8")


@pytest.fixture
def entries(tmp_path):
    root = tmp_path / "models"
    additive = write_model(root, "zh-add", "additive", study=GREEDY_ADDITIVE)
    add_study(additive, BEAM_ADDITIVE)
    return [read_entry(additive, False), read_entry(write_model(root, "zh-none", "none", study=GREEDY_FIXED), False),
            read_entry(write_model(root, "en-add", "additive", "en-zh", make_study({"21–30": 12.0})), False)]


@pytest.fixture
def tab(qtbot, entries, monkeypatch):
    tab = TranslateTab()
    qtbot.addWidget(tab)
    monkeypatch.setattr(tab.controller, "select", lambda direction, scorer: False)  # no model loads
    monkeypatch.setattr(tab, "translate", lambda: None)  # the input line is filled; nothing decodes
    tab.controller.choices = ModelChoices(entries)
    tab._on_catalog(tab.controller.choices)
    tab.show()
    return tab


def open_dialog(qtbot, tab) -> LengthStudyDialog:
    qtbot.mouseClick(tab.findChild(QToolButton, "lengthStudyButton"), Qt.MouseButton.LeftButton)
    return tab.findChild(LengthStudyDialog, "lengthStudyDialog")


def test_the_chooser_lists_the_stored_beams_and_draws_greedy_first(qtbot, tab):
    dialog = open_dialog(qtbot, tab)
    combo = dialog.findChild(QComboBox, "lengthStudyBeamCombo")
    assert [combo.itemData(i) for i in range(combo.count())] == [1, 5] and combo.isEnabled()
    assert dialog.beam == 1 and list(dialog.view.curves) == ["additive", "none"]
    assert dialog.view.data.target_language == "en"  # how the table finds a looping output
    assert "greedy decoding" in dialog.view.caption.text()
    loops = dialog.findChild(QLabel, "lengthStudyLoops").text()
    assert f"{LABELS['additive']} 2.0%" in loops and f"{LABELS['none']} 12.0%" in loops
    assert "the references 0.5%" in loops
    dialog.close()


def test_choosing_beam_5_draws_its_studies_and_names_the_scorer_without_one(qtbot, tab):
    dialog = open_dialog(qtbot, tab)
    combo = dialog.findChild(QComboBox, "lengthStudyBeamCombo")
    combo.setCurrentIndex(combo.findData(5))
    view = dialog.view
    assert dialog.beam == 5 and list(view.curves) == ["additive"]
    assert "beam search (beam 5)" in view.caption.text() and "greedy decoding" not in view.caption.text()
    assert LABELS["none"] in view.missing_label.text()
    assert "0.4%" in view.loops_label.text() and "12.0%" not in view.loops_label.text()
    view.select_bucket("1–10")
    assert view.table.output_texts(0)[2] == "beam short"
    assert "beam 5" in view.table.row_button(0).toolTip()


def test_a_row_of_the_beam_5_study_is_translated_at_beam_5_and_the_hint_says_so(qtbot, tab):
    dialog = open_dialog(qtbot, tab)
    assert dialog.show_beam(5) and not dialog.show_beam(3)
    dialog.view.select_bucket("1–10")
    spin = tab.view.choice_bar.beam_spin
    assert spin.value() == 1
    qtbot.mouseClick(dialog.view.table.row_button(0), Qt.MouseButton.LeftButton)
    assert tab.view.source_input.text() == "短句。"
    assert spin.value() == 5 and tab.controller.beam_size == 5
    assert "Beam set from 1 to 5 (beam search)" in tab.view.hint_label.text()
    dialog.show_beam(1)  # and back: the greedy study's row decodes greedily
    qtbot.mouseClick(dialog.view.table.row_button(0), Qt.MouseButton.LeftButton)
    assert spin.value() == 1 and "(greedy search)" in tab.view.hint_label.text()


def test_a_direction_with_greedy_studies_only_falls_back_to_greedy(qtbot, tab):
    dialog = open_dialog(qtbot, tab)
    dialog.show_beam(5)
    bar = tab.view.choice_bar
    bar.direction_combo.activated.emit(bar.direction_combo.findData("en-zh"))
    combo = dialog.beam_combo
    assert dialog.direction == "en-zh" and dialog.beam == 1 and combo.count() == 1 and not combo.isEnabled()
    assert list(dialog.view.curves) == ["additive"]
    bar.direction_combo.activated.emit(bar.direction_combo.findData("zh-en"))
    assert dialog.beam == 1  # greedy stays chosen where it is stored


def test_the_loop_line_is_hidden_for_studies_stored_before_loops_were_measured(qtbot):
    view = LengthStudyView()
    qtbot.addWidget(view)
    view.set_data(gather([("additive", LABELS["additive"], make_study({"1–10": 30.0}))]))
    assert view.loops_label.text() == "" and view.loops_label.isHidden()


def test_an_output_that_loops_is_tinted_and_its_tooltip_names_the_repeat(qtbot):
    looping = "I made a mistake. I made a mistake. I made a mistake."
    study = make_study({"1–10": 30.0}, {"1–10": looping})
    view = LengthStudyView()
    qtbot.addWidget(view)
    view.set_data(gather([("additive", LABELS["additive"], study), ("none", LABELS["none"], FIXED_SHORT)],
                         target_language="en"))
    view.select_bucket("1–10")
    additive, fixed = view.table.item(0, 3), view.table.item(0, 4)
    assert additive.text() == looping and "Loops: “I made a” 3 times" in additive.toolTip()
    assert additive.background().color().name() == LOOP_TINT
    assert "Loops" not in fixed.toolTip() and fixed.background().style() == Qt.BrushStyle.NoBrush
    reference = view.table.item(0, 2)
    assert "Loops" not in reference.toolTip()


def test_chinese_outputs_loop_on_characters():
    assert looping_words("我很好。我很好。我很好。", "zh") == "“我很好” 3 times"
    assert looping_words("我很好。", "zh") == "" and looping_words("a b c a b c", "en") == ""
