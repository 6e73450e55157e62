"""The Compare tab's two helpers driven through their Protocols with ``MagicMock(spec=…)``: the exports
(gui/compare/tab_exports.py) and the attributions (gui/compare/explain_link.py). No tab, panel or map is
made; what they call on the parts they drive is checked."""

from __future__ import annotations

from pathlib import Path
from unittest.mock import MagicMock, call, patch

import numpy as np
import pytest

from gui.attention.attribution_math import ALPHA
from gui.attention.export import ExportError
from gui.attention.map_choice import MapChoice, method_label
from gui.attention.view_bar import MapViewBar
from gui.compare.difference import DifferencePanel
from gui.compare.explain_link import CompareExplain, ExplainParts, ShownRows
from gui.compare.panel import ScorerPanel
from gui.compare.tab_exports import CompareExports, ExportParts


def panel(target=("▁I", "▁read", "</s>"), source=("▁我", "看书"), enabled=True, mapped=True) -> MagicMock:
    mock = MagicMock(spec=ScorerPanel)
    mock.target_tokens, mock.source_tokens = list(target), list(source)
    mock.rows = MagicMock(steps=())
    mock.heatmap = MagicMock() if mapped else None
    mock.isEnabled.return_value = enabled
    mock.numbers, mock.map_final = MagicMock(), True
    mock.numbers.text.return_value = "BLEU 12.0"
    mock.shown_matrix.return_value = np.full((len(target), len(source)), 0.5, np.float32)
    return mock


# -- the exports ----------------------------------------------------------------------------------
@pytest.fixture
def exports():
    parts = MagicMock(spec=ExportParts)
    parts.scorer_panels.return_value = {"dot": panel()}
    parts.shown_sentence.return_value = "我看书"
    parts.reference_text.return_value = "I read."
    parts.target_choice.return_value = "reference"
    explain = MagicMock(spec=CompareExplain)
    helper = CompareExports(parts, MagicMock(spec=DifferencePanel), MagicMock(spec=MapViewBar), explain)
    return helper, parts


def test_the_document_is_made_of_what_the_parts_show(exports):
    helper, parts = exports
    with patch("gui.compare.tab_exports.grid_document", return_value={"panels": []}) as document:
        assert helper.document() == {"panels": []}
    document.assert_called_once_with(parts.scorer_panels.return_value, helper.difference, helper.view_bar,
                                     "我看书", "I read.", "reference", helper.explain)


def test_a_figure_is_painted_after_every_map_is_drawn(exports):
    helper, parts = exports
    order = MagicMock()
    parts.flush_maps.side_effect = lambda: order.flush()
    with patch("gui.compare.tab_exports.GridFigure", side_effect=lambda *a: (order.figure(*a), "figure")[1]), \
            patch("gui.compare.tab_exports.export_grid", return_value=Path("/out/grid.png")) as export:
        assert helper.export_to("png", Path("/out/grid.png")) == Path("/out/grid.png")
    assert order.mock_calls == [call.flush(), call.figure(list(parts.scorer_panels.return_value.values()), "我看书",
                                                           parts.font.return_value)]
    export.assert_called_once_with("png", "figure", helper.document, Path("/out/grid.png"))


def test_the_export_menu_says_where_it_saved_or_why_not(exports):
    helper, parts = exports
    dialog = "gui.compare.tab_exports.QFileDialog.getSaveFileName"
    with patch(dialog, return_value=("", "")), patch.object(helper, "export_to") as export_to:
        helper.ask_and_export("svg")  # the dialog cancelled: nothing written, nothing said
    export_to.assert_not_called()
    parts.set_status.assert_not_called()
    with patch(dialog, return_value=("/out/grid.svg", "")), \
            patch.object(helper, "export_to", return_value=Path("/out/grid.svg")) as export_to:
        helper.ask_and_export("svg")
    export_to.assert_called_once_with("svg", Path("/out/grid.svg"))
    parts.set_status.assert_called_once_with(f"Saved {Path('/out/grid.svg')}")
    with patch(dialog, return_value=("/ro/grid.json", "")), \
            patch.object(helper, "export_to", side_effect=ExportError("cannot write /ro/grid.json")):
        helper.ask_and_export("json")
    assert parts.set_status.call_args == call("cannot write /ro/grid.json")


# -- the attributions -----------------------------------------------------------------------------
@pytest.fixture
def explain():
    parts = MagicMock(spec=ExplainParts)
    translators = {s: MagicMock(name=f"{s} translator") for s in ("dot", "none", "bilinear")}  # additive: no model
    parts.scorer_panels.return_value = {"dot": panel(), "none": panel(mapped=False),
                                        "additive": panel(enabled=False), "bilinear": panel(target=()),
                                        "scaled_dot": panel()}  # rows, but no model loaded
    parts.translator_of.side_effect = translators.get
    parts.run_sentence.return_value = "我看书"
    parts.map_scale.return_value = "row"
    choice = MagicMock(spec=MapChoice)
    choice.method.return_value = "grad"
    with patch("gui.compare.explain_link.QSettings"):
        helper = CompareExplain(parts, choice=choice)
    return helper, parts, translators


def test_a_finished_run_attributes_every_enabled_panel_with_a_model_and_rows(explain):
    helper, parts, translators = explain
    helper.on_run_finished()
    parts.start_job.assert_called_once()
    work, name = parts.start_job.call_args.args
    assert name == "compare explain" and helper.job is parts.start_job.return_value and helper.running
    with patch("gui.compare.explain_link.grid_items") as items:
        work()
    subjects, method = items.call_args.args
    assert method == "grad" and set(subjects) == {"dot", "none"}  # additive disabled, bilinear without rows,
    # scaled_dot without a model
    translator, shown = subjects["dot"]
    assert translator is translators["dot"]
    assert shown == ShownRows("我看书", ("▁我", "看书"), ("▁I", "▁read", "</s>"), ())
    assert helper._total == 6  # every map's output pieces
    helper.choice.show_progress.assert_called_with("0/6", f"{method_label('grad')}: 0 of 6 steps of every map", running=True)


@pytest.mark.parametrize(("method", "sentence"), [(ALPHA, "我看书"), ("grad", None)])
def test_nothing_is_attributed_for_alpha_or_before_a_run(explain, method, sentence):
    helper, parts, _ = explain
    helper.choice.method.return_value = method
    parts.run_sentence.return_value = sentence
    helper.on_run_finished()
    parts.start_job.assert_not_called()
    assert not helper.running


def test_a_new_run_or_cancel_ends_the_job(explain):
    helper, parts, _ = explain
    helper.on_run_finished()
    job = parts.start_job.return_value
    helper.cancel()
    job.cancel.assert_called_once()
    assert not helper.running
    helper.choice.show_progress.assert_called_with("stopped 0/6", f"{method_label('grad')}: stopped at 0/6", running=False)
    helper.on_run_finished()
    helper.reset()  # what the tab calls when a run starts
    assert job.cancel.call_count == 2 and helper.stores == {} and not helper.running


def test_new_panels_are_followed_and_alpha_is_drawn_on_the_parts_scale(explain):
    helper, parts, _ = explain
    helper.on_slots()
    for shown in parts.scorer_panels.return_value.values():
        shown.mapDrawn.connect.assert_called_once()
    helper.choice.method.return_value = ALPHA
    with patch("gui.compare.explain_link.alpha_colours") as colours:
        helper.redraw_all()
    panels = parts.scorer_panels.return_value
    dot, empty = panels["dot"], panels["bilinear"]
    assert colours.call_args_list == [call(p.heatmap, "row") for p in (dot, empty, panels["scaled_dot"])]  # mapped, enabled
    empty.heatmap.set_rows.assert_not_called()  # no rows yet
    matrix, labels = dot.heatmap.set_rows.call_args.args
    assert matrix is dot.shown_matrix.return_value and labels == dot.target_tokens
    dot.numbers.setText.assert_called_with("BLEU 12.0")  # no share on the source under α
