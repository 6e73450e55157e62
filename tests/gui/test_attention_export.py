"""Exports of the heatmap and the matrix, from a real translation."""

from __future__ import annotations

import csv
import json
import xml.etree.ElementTree as ElementTree

import numpy as np
import pytest

from gui.attention.export import CORNER, CORNER_WORDS, ExportError
from tests.gui.test_translate_support import (
    install_models,
    open_window,
    type_and_translate,
    wait_for_model,
    wait_run_end,
)


@pytest.fixture
def translated(qtbot, dates_models):
    install_models(dates_models, ("additive", "none"))
    window = open_window(qtbot, ["--model", str(dates_models["additive"])])
    wait_for_model(qtbot, window, "additive")
    type_and_translate(qtbot, window, "二〇二六年十一月二十九日")
    wait_run_end(qtbot, window)
    return window


@pytest.mark.slow  # a trained model, or the real window
def test_png_and_svg(translated, tmp_path):
    tab = translated.translate_tab
    png = tab.export("png", tmp_path / "heatmap.png")
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 2000
    svg = tab.export("svg", tmp_path / "heatmap.svg")
    root = ElementTree.parse(svg).getroot()
    assert root.tag.endswith("svg")
    assert "十" in svg.read_text(encoding="utf-8")  # the token labels are text in the drawing


def read_csv(path) -> list[list[str]]:
    with path.open(encoding="utf-8", newline="") as handle:
        return list(csv.reader(handle))


@pytest.mark.slow  # a trained model, or the real window
def test_csv_and_json_hold_the_matrix_and_tokens(translated, tmp_path):
    tab = translated.translate_tab
    panel = tab.view.attention_panel
    panel.set_word_view(False)  # the model's pieces: the CSV holds what the map shows
    rows = read_csv(tab.export("csv", tmp_path / "matrix.csv"))
    assert rows[0] == [CORNER, *panel.source_tokens()]
    assert [r[0] for r in rows[1:]] == panel.target_tokens()
    np.testing.assert_allclose(np.array([[float(v) for v in r[1:]] for r in rows[1:]]), panel.attention(), atol=1e-6)
    data = json.loads(tab.export("json", tmp_path / "matrix.json").read_text(encoding="utf-8"))
    assert data["source_tokens"] == panel.source_tokens() and data["tokens"] == panel.target_tokens()
    assert data["source"] == "二〇二六年十一月二十九日" and data["scorer"] == "additive"
    assert data["direction"] == "dates-src-iso" and data["text"] == tab.view.target_output.text()
    assert data["view"] == "pieces" and data["colour_scale"] == "unit" and "words" not in data
    np.testing.assert_allclose(np.array(data["attention"]), panel.attention(), atol=1e-6)


@pytest.mark.slow  # a trained model, or the real window
def test_the_word_view_exports_words_and_the_json_keeps_the_pieces(translated, tmp_path):
    tab = translated.translate_tab
    panel = tab.view.attention_panel
    assert panel.word_view()  # the default
    assert len(panel.source_words()) < len(panel.source_tokens())  # 二〇二六年十一月二十九日: characters merged
    rows = read_csv(tab.export("csv", tmp_path / "words.csv"))
    assert rows[0] == [CORNER_WORDS, *panel.source_words()]
    assert [r[0] for r in rows[1:]] == panel.target_words()
    matrix = np.array([[float(v) for v in r[1:]] for r in rows[1:]])
    np.testing.assert_allclose(matrix, panel.word_attention(), atol=1e-6)
    np.testing.assert_allclose(matrix.sum(axis=1), 1.0, atol=1e-4)
    panel.set_color_scale("row")
    data = json.loads(tab.export("json", tmp_path / "words.json").read_text(encoding="utf-8"))
    assert data["view"] == "words" and data["colour_scale"] == "row"
    assert data["words"]["source"] == panel.source_words() and "summed" in data["words"]["rule"]
    np.testing.assert_allclose(np.array(data["attention"]), panel.attention(), atol=1e-6)  # the pieces, as ever
    np.testing.assert_allclose(np.array(data["words"]["attention"]), panel.word_attention(), atol=1e-6)
    assert panel.heatmap.bar_label == "α ÷ row max"  # what the exported picture's colour bar says
    assert tab.export("png", tmp_path / "words.png").stat().st_size > 2000


@pytest.mark.slow  # a trained model, or the real window
def test_nothing_to_export_is_explained(qtbot, translated, tmp_path):
    tab = translated.translate_tab
    tab.view.attention_panel.clear()
    with pytest.raises(ExportError, match="translate a sentence first"):
        tab.export("csv", tmp_path / "empty.csv")
    combo = tab.view.choice_bar.scorer_combo
    combo.setCurrentIndex(combo.findData("none"))
    combo.activated.emit(combo.currentIndex())
    wait_for_model(qtbot, translated, "none")
    wait_run_end(qtbot, translated)
    with pytest.raises(ExportError, match="no attention weights"):
        tab.export("png", tmp_path / "none.png")
    assert not (tmp_path / "none.png").exists()
