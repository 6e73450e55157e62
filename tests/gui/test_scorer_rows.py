"""A scorer is carried through the app as its registry row (engine.settings.scorer_row), never as its display
text: a row added to the registry shows up in every scorer box with its label and formula with no other edit,
and no code looks a mechanism up by its label or formula (read from the source with ``ast``)."""

from __future__ import annotations

import ast
import re
from dataclasses import replace
from pathlib import Path

import pytest

from engine.records.catalog import ModelEntry
from engine.settings import SCORER_TABLE, scorer_row
from gui.attention.inspector import StepInspector
from gui.compare.decisions import difference_scorers
from gui.compare.model import OUTPUT_PREFIX, panel_title, plan_slots, target_choices
from gui.training.form import TrainingForm
from gui.translate.choices import ModelChoices
from gui.translate.controls import ChoiceBar
from tests.source_tree import ROOT, parsed, python_files, source_text

COSINE = replace(SCORER_TABLE["dot"], name="cosine", label="Cosine (Graves)", formula="e_ij = cos(s_{i-1}, h_j)",
                 colour="#123456")


@pytest.fixture
def cosine(monkeypatch):
    """The registry with one more row, as a new mechanism adds it (engine/settings/scorer_table.py)."""
    monkeypatch.setitem(SCORER_TABLE, COSINE.name, COSINE)
    return COSINE


def entry(scorer: str) -> ModelEntry:
    return ModelEntry(Path(f"/models/zh-en-{scorer}"), "zh", "en", scorer, True, None, 0.0)


def combo_items(combo) -> dict[str, tuple[str, str]]:
    """data → (text, tooltip) of every item of ``combo``."""
    from PySide6.QtCore import Qt

    return {combo.itemData(i): (combo.itemText(i), combo.itemData(i, Qt.ItemDataRole.ToolTipRole))
            for i in range(combo.count())}


def test_a_new_registry_row_is_offered_in_the_translate_box_with_its_label(qtbot, cosine):
    choices = ModelChoices([entry("additive"), entry("cosine")])
    options = {option.name: option for option in choices.options("zh-en")}
    assert list(options) == list(SCORER_TABLE) and options["cosine"].row is cosine and options["cosine"].enabled
    bar = ChoiceBar()
    qtbot.addWidget(bar)
    bar.set_scorers(list(options.values()), "cosine")
    assert combo_items(bar.scorer_combo)["cosine"][0] == "Cosine (Graves)"
    assert bar.scorer_combo.currentData() == "cosine"


def test_a_new_registry_row_is_offered_for_training_with_its_formula(qtbot, cosine):
    form = TrainingForm()
    qtbot.addWidget(form)
    assert combo_items(form.scorer_combo)["cosine"] == ("Cosine (Graves)", cosine.formula)
    assert f"All {len(SCORER_TABLE)}" in form.scorer_combo.itemText(form.scorer_combo.count() - 1)


def test_a_new_registry_row_gets_its_compare_panel_and_inspector_formulas(qtbot, cosine):
    slots = {slot.scorer: slot for slot in plan_slots([entry("cosine")], "zh-en")}
    assert list(slots) == list(SCORER_TABLE) and slots["cosine"].usable and not slots["dot"].usable
    assert "Cosine (Graves)" in panel_title(slots["cosine"]) and cosine.formula in panel_title(slots["cosine"])
    assert "Dot product" in slots["dot"].reason  # a scorer without a model: named by its row's label
    targets = dict(target_choices(list(slots.values()), has_reference=False))
    assert targets[OUTPUT_PREFIX + "cosine"] == "The Cosine (Graves) output, forced on every model"
    assert ("cosine", "Cosine (Graves)") in difference_scorers(list(slots.values()))  # the difference map's boxes
    inspector = StepInspector()
    qtbot.addWidget(inspector)
    inspector.clear(slots["cosine"].row)
    assert cosine.formula in inspector.formula.text()


def test_a_name_the_registry_does_not_hold_gets_a_row_of_what_its_file_says():
    row = scorer_row("from-a-newer-version", "Newer", "e_ij = f(s, h)", uses_attention=False)
    assert (row.name, row.label, row.formula, row.uses_attention, row.heads) == (
        "from-a-newer-version", "Newer", "e_ij = f(s, h)", False, 1)
    assert scorer_row("additive", "anything", "else") is SCORER_TABLE["additive"]  # the registry's row wins
    assert scorer_row("x").label == "x"


DISPLAY_TEXTS = {"label", "formula", "brief_formula", "formula_in_brief"}  # a scorer row's texts for people
ROW_NAMES = {"info", "row", "slot", "scorer", "option", "series", "s"}  # what code calls a scorer's row or holder


def _display_text(node: ast.AST) -> bool:
    """Whether ``node`` reads a scorer's display text: ``row.formula``, ``slot.label``, ``info.brief_formula``…"""
    return (isinstance(node, ast.Attribute) and node.attr in DISPLAY_TEXTS
            and (node.attr != "label" or (isinstance(node.value, ast.Name) and node.value.id in ROW_NAMES)))


def _looks_up(node: ast.AST) -> bool:
    """A comparison with a scorer's display text, a mapping asked for it (``by_label.get(s.label)``), or a label
    translated as text rather than from its row (``scorer_label`` takes the row)."""
    if isinstance(node, ast.Compare):
        return any(_display_text(n) for n in (node.left, *node.comparators))
    if not isinstance(node, ast.Call) or not node.args:
        return False
    first = node.args[0]
    if isinstance(node.func, ast.Attribute) and node.func.attr == "get":
        return _display_text(first)
    return isinstance(node.func, ast.Name) and node.func.id == "scorer_label" and (
        _display_text(first) or isinstance(first, ast.Constant) or (isinstance(first, ast.Name) and "label" in first.id))


def display_text_lookups(tree: ast.AST) -> list[int]:
    """Lines of ``tree`` that look a scorer up by its display text (:func:`_looks_up`), in order."""
    return sorted(node.lineno for node in ast.walk(tree) if _looks_up(node))


# Only the files that mention a display text or scorer_label are parsed (parsing every file took seconds).
MENTIONS = re.compile(r"\.(formula|brief_formula|formula_in_brief)\b|scorer_label\(|\b(" + "|".join(ROW_NAMES)
                      + r")\.label\b")


def test_no_code_looks_a_scorer_up_by_its_display_text():
    found = [f"{path.relative_to(ROOT)}:{line}" for folder in ("engine", "gui") for path in python_files(folder)
             if MENTIONS.search(source_text(path)) for line in display_text_lookups(parsed(path))]
    assert found == []


def test_the_display_text_check_can_fail():
    source = ("a = next(i for i in rows if i.formula == formula)\nb = by_label.get(scorer.label)\n"
              "c = scorer_label(label)\nd = scorer_label(row)\ne = [b for b in buckets if b.label == 'x']\n")
    assert display_text_lookups(ast.parse(source)) == [1, 2, 3]
