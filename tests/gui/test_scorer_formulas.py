"""The registry's formulas in the interface's language: their words translated, their mathematics as written."""

from __future__ import annotations

import re

import pytest

from engine.settings.scorer_table import SCORER_TABLE
from gui.i18n import set_language
from gui.scorer_labels import scorer_formula

FORMULAS = sorted({text for row in SCORER_TABLE.values()
                   for text in (row.formula, row.context, row.formula_in_brief, row.head_score) if text})
ENGLISH_WORDS = re.compile(r"\b[A-Za-z]{2,}\b[ ;:,]+\b[A-Za-z]{2,}\b")  # two words in a row: "last layer"


@pytest.fixture(autouse=True)
def english_afterwards():
    yield
    set_language("en", remember=False)


def test_in_english_every_formula_reads_as_the_registry_writes_it(qtbot):
    assert [scorer_formula(text) for text in FORMULAS] == FORMULAS


def test_in_chinese_no_formula_keeps_english_words_and_its_mathematics_is_unchanged(qtbot):
    assert set_language("zh_CN", remember=False) == ""
    for text in FORMULAS:
        shown = scorer_formula(text)
        assert not ENGLISH_WORDS.search(shown.replace("softmax_j", "").replace("log ¼", "")), shown
        math = re.findall(r"[α-ωΣ√¼ᵀ^_{}()\[\]=/]+", text)
        assert math == re.findall(r"[α-ωΣ√¼ᵀ^_{}()\[\]=/]+", shown), (text, shown)
    assert scorer_formula(SCORER_TABLE["transformer"].formula_in_brief) == "e_ij = log ¼ Σ_h α^h_ij (最后一层)"
