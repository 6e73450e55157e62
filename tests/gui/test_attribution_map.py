"""Attribution beside attention in the Translate tab, with a real decode and the real engine.explain: the map's
chooser draws an attribution computed in the background after the decode (α's contract unchanged), the
inspector sets α and the attribution side by side with their rank correlation, the share on the source
stands beside the map, a contrastive attribution answers "why this word and not that one?", a new decode
supersedes the job, Cancel stops it, the fixed-context model says attribution is all there is, and the
exports carry what the map shows."""

from __future__ import annotations

import csv
import io
import math

import numpy as np
import pytest

from engine.explain import ATTRIBUTION_METHODS, explain_steps
from gui.attention.attribution_math import MAP_METHODS, agreement
from gui.attention.export import matrix_csv, matrix_json
from tests.gui.test_translate_support import (
    RUN_MS,
    install_models,
    open_window,
    type_and_translate,
    wait_for_model,
    wait_run_end,
)
from tests.inline_jobs import InlineJobs

pytestmark = pytest.mark.slow  # trains the test models and opens the real window

SENTENCE = "29 Nov 2026"  # pieces ▁29 ▁Nov ▁20 2 6: the year is one word of three pieces


def _window(qtbot, dates_models, scorer: str = "additive"):
    install_models(dates_models, (scorer,))
    window = open_window(qtbot)
    wait_for_model(qtbot, window, scorer)
    return window


def _translate(qtbot, window, text: str = SENTENCE):
    type_and_translate(qtbot, window, text)
    wait_run_end(qtbot, window)
    return window.translate_tab.last_translation


def test_the_chooser_offers_alpha_then_the_engines_methods():
    assert tuple(MAP_METHODS) == ("alpha", *ATTRIBUTION_METHODS)


def test_choosing_integrated_gradients_draws_the_engines_attribution_while_the_contract_keeps_alpha(qtbot, dates_models):
    window = _window(qtbot, dates_models)
    tab = window.translate_tab
    panel = tab.view.attention_panel
    panel.set_word_view(False)
    translation = _translate(qtbot, window)
    alpha = panel.attention()
    assert panel.attribution.choice.isVisibleTo(window)  # offered beside Words and Colours
    panel.attribution.set_method("ig")
    qtbot.waitUntil(lambda: not tab.explain.running, timeout=RUN_MS)
    panel.render_now()
    expected = np.stack([item.source for item in explain_steps(tab.controller.bundle.translator, translation, "ig")])
    drawn = panel.heatmap._weights
    assert drawn.shape == expected.shape
    assert np.allclose(drawn, expected, atol=1e-5)
    assert panel.heatmap.bar_label.startswith("IG")
    assert np.array_equal(panel.attention(), alpha)  # the contract is α's whatever the map shows
    share = panel.attribution.share
    assert share.attached and len(share.values) == len(translation.tokens)
    assert np.all((share.values >= 0) & (share.values <= 1))
    # The inspector: α and IG side by side, ρ and the top word as computed from the two rows.
    panel.select_step(0)
    section = panel.attribution.section
    assert section.isVisible() and not panel.inspector.table.isVisible()
    agree = agreement(alpha[0], expected[0])
    assert section.agreement == agree
    text = section.summary.text()
    assert "Spearman" in text and ("agree" in text or "differ" in text)
    rows = section.model.rowCount()
    assert rows == len(translation.source_tokens)
    assert float(section.model.item(0, 1).text()) == pytest.approx(alpha[0, 0], abs=1e-3)
    assert float(section.model.item(0, 2).text()) == pytest.approx(expected[0, 0], abs=1e-3)
    # Back to α: α's colours, no bars, the inspector's own table.
    panel.attribution.set_method("alpha")
    assert panel.heatmap.color_scale is not None and not share.attached
    assert panel.heatmap.color_bar.colorMap().name == "viridis"  # α's colours, not the diverging map's
    assert np.allclose(panel.heatmap._weights, alpha)
    assert panel.inspector.table.isVisible() and not section.isVisible()


def test_the_word_view_sums_a_words_pieces_as_alpha_is_merged(qtbot, dates_models):
    window = _window(qtbot, dates_models)
    tab = window.translate_tab
    panel = tab.view.attention_panel
    assert panel.word_view()
    panel.attribution.set_method("grad")
    translation = _translate(qtbot, window)
    qtbot.waitUntil(lambda: not tab.explain.running, timeout=RUN_MS)
    panel.render_now()
    pieces = np.stack([i.source for i in explain_steps(tab.controller.bundle.translator, translation, "grad")])
    units = panel.units()
    assert units.words and len(units.source.words) < len(translation.source_tokens)
    assert np.allclose(panel.heatmap._weights, units.matrix(pieces), atol=1e-5)
    year = units.source.words.index("2026")
    first_word = pieces[units.row_pieces(0)][:, units.column_pieces(year)]  # its pieces' rows × the year's pieces
    assert np.isclose(panel.heatmap._weights[0, year], first_word.sum(axis=1).mean(), atol=1e-5)


def test_a_new_decode_supersedes_the_attribution_and_cancel_stops_it(qtbot, dates_models):
    window = _window(qtbot, dates_models)
    tab = window.translate_tab
    panel = tab.view.attention_panel
    jobs = tab.explain.jobs = InlineJobs()  # the attribution advances only when the test says
    panel.attribution.set_method("occlusion")
    _translate(qtbot, window)
    first = jobs.started[-1]
    assert first.run(limit=2) == 2 and panel.attribution.store.count("occlusion") == 2
    assert panel.attribution.choice.cancel.isEnabled()
    assert "2/" in panel.attribution.choice.progress.text()
    _translate(qtbot, window, "3 Jan 1999")  # a new decode: the old job is stopped, its late steps dropped
    assert first.worker.aborted
    first.run(late=True)
    assert panel.attribution.store.count("occlusion") == 0
    second = jobs.started[-1]
    assert second is not first
    second.run(limit=1)
    panel.attribution.choice.cancel.click()
    assert second.worker.aborted and not tab.explain.running
    assert "stopped 1/" in panel.attribution.choice.progress.text()
    assert "stopped at 1/" in panel.attribution.choice.progress.toolTip()
    assert not panel.attribution.choice.cancel.isEnabled()
    panel.attribution.set_method("ig")  # another method: a job of its own, to the end
    jobs.started[-1].run()
    assert panel.attribution.store.complete("ig", len(tab.last_translation.tokens))


def test_why_this_word_and_not_that_one(qtbot, dates_models):
    window = _window(qtbot, dates_models)
    tab = window.translate_tab
    panel = tab.view.attention_panel
    panel.set_word_view(False)
    panel.attribution.set_method("grad")
    translation = _translate(qtbot, window)
    qtbot.waitUntil(lambda: not tab.explain.running, timeout=RUN_MS)
    panel.select_step(1)
    section = panel.attribution.section
    candidates = section._candidates
    assert candidates and translation.tokens[1] not in candidates
    section.summary.linkActivated.emit("why:1:0")
    qtbot.waitUntil(lambda: not tab.explain.running, timeout=RUN_MS)
    item = panel.attribution.store.contrast("grad", 1, candidates[0])
    assert item is not None and item.contrast_token == candidates[0]
    expected = next(i for i in explain_steps(tab.controller.bundle.translator, translation, "grad",
                                             contrast={1: candidates[0]}) if i.index == 1)
    assert np.allclose(item.source, expected.source)
    panel.select_step(1)
    assert section.model.columnCount() == 4  # source, α, the method, vs the alternative
    assert candidates[0].lstrip("▁") in section.model.horizontalHeaderItem(3).text()
    assert "and not" in section.summary.text()


def test_without_attention_the_attribution_is_the_only_explanation(qtbot, dates_models):
    window = _window(qtbot, dates_models, "none")
    tab = window.translate_tab
    panel = tab.view.attention_panel
    translation = _translate(qtbot, window)
    assert panel.stack.currentIndex() == 1
    assert "only explanation" in panel.note.text()
    panel.attribution.set_method("ig")
    assert panel.stack.currentIndex() == 0
    qtbot.waitUntil(lambda: not tab.explain.running, timeout=RUN_MS)
    panel.render_now()
    assert panel.heatmap._weights.shape[0] == len(panel.units().row_labels())
    assert not np.isnan(panel.heatmap._weights).any()
    assert panel.attention().shape[0] == 0  # still no α
    panel.select_step(0)
    assert "only explanation" in panel.attribution.section.summary.text()
    document = matrix_json(panel)
    assert document["map"] == "ig" and len(document["attribution"]["steps"]) == len(translation.tokens)


def test_exports_carry_the_attribution_shown(qtbot, dates_models, tmp_path):
    window = _window(qtbot, dates_models)
    tab = window.translate_tab
    panel = tab.view.attention_panel
    panel.set_word_view(False)
    translation = _translate(qtbot, window)
    assert matrix_json(panel)["map"] == "alpha" and "attribution" not in matrix_json(panel)
    panel.attribution.set_method("occlusion")
    qtbot.waitUntil(lambda: not tab.explain.running, timeout=RUN_MS)
    table = list(csv.reader(io.StringIO(matrix_csv(panel))))
    assert table[0][0].startswith("occl.") and table[0][1:] == list(translation.source_tokens)
    store = panel.attribution.store
    assert float(table[1][1]) == pytest.approx(store.step("occlusion", 0).source[0], abs=1e-5)
    document = matrix_json(panel)
    steps = document["attribution"]["steps"]
    assert document["attribution"]["method"] == "occlusion" and document["attribution"]["complete"]
    assert [s["index"] for s in steps] == list(range(len(translation.tokens)))
    assert all(math.isclose(s["source_share"], store.step("occlusion", s["index"]).source_share, abs_tol=1e-6)
               for s in steps)
    png = tab.export("png", tmp_path / "map.png")
    assert png.stat().st_size > 0 and panel.heatmap.bar_label.startswith("occl.")
