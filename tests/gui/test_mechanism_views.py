"""What the views derive from the mechanism registry: the Compare grid sized by the count (the
difference map never on a scorer's cell), a multi-head mechanism's heads in the Translate map and
in its Compare panel, the length study's colours, the inspector's context formula."""

from __future__ import annotations

import itertools
from types import SimpleNamespace

import numpy as np
import pytest
from PySide6.QtCore import Qt

from engine.decoding.search import DecodeStep
from engine.settings.scorer_table import FIXED_CONTEXT, SCORER_NAMES, SCORER_TABLE, scorer_row
from gui.attention.head_rows import MEAN, head_row, shown_rows, stacked_heads
from gui.attention.inspector import StepInspector
from gui.attention.panel import AttentionPanel
from gui.compare.inspection import show_panel_step
from gui.compare.layout import DIFFERENCE, INSPECTOR, grid_shape, plan_grid
from gui.compare.model import PanelNumbers, PanelRows, PanelSlot
from gui.compare.panel import ScorerPanel

HEADS = 4


def head_steps(count: int, heads: int = HEADS, source: int = 3) -> list[DecodeStep]:
    """A decode of ``count`` steps whose mechanism has ``heads`` heads: head h attends to column h % S."""
    per_head = np.stack([np.eye(source, dtype=np.float32)[h % source] for h in range(heads)])  # H×S
    mean = per_head.mean(axis=0)
    steps: list[DecodeStep] = []
    for index in range(count):
        tokens = tuple(f"▁t{i}" for i in range(index + 1))  # one word each
        steps.append(DecodeStep(index, 10 + index, tokens[-1], 0.9, mean, np.log(mean + 1e-9), (), tokens,
                                np.stack([mean] * (index + 1)), -0.1, previous_steps=tuple(steps),
                                head_attention=per_head if heads > 1 else None))
    return steps


# -- the Compare grid ---------------------------------------------------------------------------
# The registry's single-head RNN mechanisms (the five of the article's family), in its order.
CLASSIC = [name for name, info in SCORER_TABLE.items() if info.family == "rnn" and info.heads == 1]
SEVERAL_HEADS = [name for name, info in SCORER_TABLE.items() if info.family == "rnn" and info.heads > 1]


def test_the_grid_of_the_five_classic_scorers_keeps_its_layout():
    assert len(CLASSIC) == 5 and CLASSIC[-1] == FIXED_CONTEXT
    plan = plan_grid(CLASSIC)
    assert (plan.rows, plan.columns) == (2, 3)
    assert [plan.cells[n] for n in CLASSIC] == [(0, 0), (0, 1), (0, 2), (1, 0), (1, 1)]
    assert plan.cells[INSPECTOR] == (1, 1) and plan.shared == "none"
    assert plan.cells[DIFFERENCE] == (1, 2) and plan.difference_span == 1


def test_a_sixth_mechanism_gets_a_cell_of_its_own_and_the_difference_map_keeps_one():
    sixth = SEVERAL_HEADS[0]
    plan = plan_grid([*CLASSIC, sixth])
    assert (plan.rows, plan.columns) == (3, 3)  # at most three columns: every map ≥ 300 px wide at 1280 px
    assert plan.cells[sixth] == (1, 2) and plan.cells[DIFFERENCE] == (2, 0) and plan.difference_span == 3
    registry = plan_grid(list(SCORER_NAMES))  # whatever the registry holds: a cell per mechanism, and the map's
    assert (registry.rows, registry.columns) == grid_shape(len(SCORER_NAMES) + 1)
    assert [name for name, cell in registry.cells.items() if cell == registry.cells[DIFFERENCE]] == [DIFFERENCE]


@pytest.mark.parametrize("count", range(1, 13))
def test_no_panel_shares_a_cell_but_the_fixed_context_with_the_inspector(count):
    names = [f"m{i}" for i in range(count)]
    for scorers in (names, names[:-1] + [FIXED_CONTEXT]):
        plan = plan_grid(scorers)
        cells = [plan.cells[n] for n in scorers if n != plan.shared] + [plan.cells[INSPECTOR], plan.cells[DIFFERENCE]]
        assert len(set(cells)) == len(cells)  # one panel per cell
        assert all(0 <= r < plan.rows and 0 <= c < plan.columns for r, c in cells)
        row, column = plan.cells[DIFFERENCE]
        assert row == plan.rows - 1 and column + plan.difference_span == plan.columns  # it ends the last row
        assert plan.shared == (FIXED_CONTEXT if FIXED_CONTEXT in scorers else None)


def test_the_grid_is_about_three_columns_for_two_rows_and_never_more_than_three():
    assert [grid_shape(n) for n in (3, 4, 6, 7, 8, 9, 12)] == [(1, 3), (2, 2), (2, 3), (3, 3), (3, 3), (3, 3), (4, 3)]
    assert all(rows * columns >= n for n in range(1, 40) for rows, columns in [grid_shape(n)])


# -- heads ----------------------------------------------------------------------------------------
def test_the_rows_drawn_are_the_mean_or_one_head_when_every_row_has_it():
    mean = np.full((2, 3), 1 / 3, np.float32)
    heads = np.stack([np.stack([np.eye(3, dtype=np.float32)[h % 3] for h in range(HEADS)])] * 2)  # 2×H×3
    assert shown_rows(mean, heads, MEAN) is mean
    assert np.array_equal(shown_rows(mean, heads, 1), np.eye(3, dtype=np.float32)[[1, 1]])
    assert shown_rows(mean, heads[:1], 1) is mean and shown_rows(mean, heads, HEADS) is mean and \
        shown_rows(mean, None, 0) is mean
    assert stacked_heads([None, None]) is None and stacked_heads([]) is None
    assert stacked_heads([heads[0], heads[1]]).shape == (2, HEADS, 3)


def test_the_translate_map_offers_the_heads_and_its_contract_stays_the_mean(qtbot):
    panel = AttentionPanel()
    qtbot.addWidget(panel)
    info = SCORER_TABLE["multihead"]
    panel.begin(("▁a", "▁b", "▁c"), True, info)
    for step in head_steps(3):
        panel.show_step(step)
    panel.render_now()
    chooser = panel.head_chooser
    assert not chooser.isHidden() and chooser.objectName() == "attentionHeadCombo"
    assert [chooser.itemText(i) for i in range(chooser.count())] == ["Mean of 4 heads", "Head 1", "Head 2", "Head 3",
                                                                     "Head 4"]
    mean = panel.attention()
    assert mean.shape == (3, 3) and np.allclose(mean.sum(axis=1), 1) and np.array_equal(panel.shown_matrix(), mean)
    assert panel.head_attention().shape == (3, HEADS, 3)
    drawn = []
    draw = panel.heatmap.set_rows
    panel.heatmap.set_rows = lambda matrix, *args, **kwargs: (drawn.append(np.array(matrix)), draw(matrix, *args,
                                                                                                  **kwargs))
    chooser.setCurrentIndex(chooser.findData(2))  # head 3 attends to column 2
    head_3 = np.eye(3, dtype=np.float32)[[2, 2, 2]]
    assert np.array_equal(panel.shown_matrix(), head_3) and np.array_equal(drawn[-1], head_3)  # redrawn at once
    assert np.array_equal(panel.attention(), mean)  # the contract: the heads' mean
    panel.begin(("a", "b", "c"), True, SCORER_TABLE["additive"])  # a one-head model: no choice
    panel.show_step(head_steps(1, heads=1)[0])
    assert chooser.isHidden() and panel.head_attention() is None and chooser.head == MEAN


def test_the_inspector_shows_each_mechanisms_own_formulas_from_its_registry_row(qtbot):
    inspector = StepInspector()
    qtbot.addWidget(inspector)
    unregistered = scorer_row("cosine", "Cosine", "e_ij = cos(s_{i-1}, h_j)")  # a session from a newer version
    assert unregistered.context == "c_i = Σ_j α_ij h_j" and SCORER_TABLE["multihead"].context.startswith("c_i = W_O [")
    for row in (SCORER_TABLE["additive"], SCORER_TABLE["multihead"], unregistered):
        inspector.clear(row)
        assert row.formula in inspector.formula.text() and row.context in inspector.formula.text()


def test_a_multi_head_compare_panel_draws_the_chosen_head_and_keeps_the_mean_as_its_matrix(qtbot):
    info = SCORER_TABLE["multihead"]
    panel = ScorerPanel(PanelSlot(info, SimpleNamespace()))
    qtbot.addWidget(panel)
    assert panel.uses_attention and panel.head_chooser is not None and not panel.head_chooser.isHidden()
    panel.begin(("a", "b", "c"))
    steps = head_steps(2)
    rows = PanelRows.from_steps(steps, steps[-1].hypothesis_attention)
    assert rows.head_attention.shape == (2, HEADS, 3)
    panel.show_result(rows, "t0 t1", PanelNumbers(-0.2, 2, 1.1, 0.25), forced=False)
    panel.scheduler.flush()
    drawn = []
    panel.mapDrawn.connect(drawn.append)
    panel.head_chooser.setCurrentIndex(panel.head_chooser.findData(1))
    assert drawn == [True] and np.array_equal(panel.shown_matrix(), np.eye(3, dtype=np.float32)[[1, 1]])
    assert np.array_equal(panel.matrix, steps[-1].hypothesis_attention)  # the difference map and exports: the mean
    one_head = ScorerPanel(PanelSlot(SCORER_TABLE["dot"], SimpleNamespace()))
    fixed = ScorerPanel(PanelSlot(SCORER_TABLE[FIXED_CONTEXT], SimpleNamespace()))
    qtbot.addWidget(one_head), qtbot.addWidget(fixed)
    assert one_head.head_chooser is None and one_head.uses_attention and not fixed.uses_attention


def test_a_compare_panel_title_shows_the_brief_formula_whole_and_the_full_one_in_its_tooltip(qtbot):
    """The multi-head formula wrapped to five lines in a cell of a 1280-pixel window, and the layout cut it."""
    info = SCORER_TABLE["multihead"]
    panel = ScorerPanel(PanelSlot(info, SimpleNamespace()))
    dot = ScorerPanel(PanelSlot(SCORER_TABLE["dot"], SimpleNamespace()))
    qtbot.addWidget(panel), qtbot.addWidget(dot)
    assert info.brief_formula in panel.title.text() and info.formula not in panel.title.text()
    assert panel.title.toolTip() == info.formula
    assert SCORER_TABLE["dot"].formula_in_brief == SCORER_TABLE["dot"].formula in dot.title.text()
    assert dot.title.toolTip() == ""
    panel.resize(300, 600)
    panel.show()
    qtbot.waitUntil(lambda: panel.title.width() > 0)
    qtbot.waitUntil(lambda: panel.title.height() >= panel.title.heightForWidth(panel.title.width()))  # not cut


def test_every_mechanism_has_its_own_colour_and_the_length_study_draws_it():
    from gui.translate.length_study.model import Series
    from gui.translate.length_study.view import HIGHLIGHT_COLOUR, series_pen

    colours = [info.colour for info in SCORER_TABLE.values()]
    assert len(set(colours)) == len(colours)
    assert SCORER_TABLE[FIXED_CONTEXT].colour == HIGHLIGHT_COLOUR
    for index, name in enumerate(SCORER_NAMES):
        assert series_pen(Series(name, name, (), (), (), ()), index).color().name() == SCORER_TABLE[name].colour
    assert Series(FIXED_CONTEXT, "", (), (), (), ()).highlight and not Series("multihead", "", (), (), (), ()).highlight


def test_the_registry_refuses_a_row_it_could_not_draw_or_build():
    from engine.settings.scorer_table import ScorerInfo

    for bad in (dict(colour="red"), dict(colour="#FF0000"), dict(implementation="engine.networks.attention"),
                dict(heads=0), dict(heads=2, uses_attention=False, head_score="e^h"), dict(heads=2),
                dict(head_score="e^h")):  # several heads, and only they, give one head's score formula
        arguments = dict(name="x", label="X", formula="e", colour="#123456", implementation="m:C") | bad
        with pytest.raises(ValueError):
            ScorerInfo(**arguments)
    assert list(itertools.islice(SCORER_TABLE, len(CLASSIC))) == CLASSIC  # the single-head ones lead the table


# -- the step inspector follows the head the map shows --------------------------------------------
def _table(inspector) -> tuple[list[str], list[float]]:
    """The inspector's score and weight columns, as shown."""
    model = inspector.weights
    rows = range(model.rowCount())
    return [model.item(j, 2).text() for j in rows], [float(model.item(j, 3).text()) for j in rows]


def test_the_translate_inspector_shows_the_chosen_heads_weights_and_formulas(qtbot):
    panel = AttentionPanel()
    qtbot.addWidget(panel)
    info = SCORER_TABLE["multihead"]
    panel.begin(("▁a", "▁b", "▁c"), True, info)
    for step in head_steps(2):
        panel.show_step(step)
    panel.render_now()
    inspector = panel.inspector
    scores, weights = _table(inspector)
    assert np.allclose(weights, panel.attention()[-1], atol=1e-4) and "—" not in scores  # the mean, with its e_ij
    assert "Score:" in inspector.formula.text() and "Head" not in inspector.formula.text()
    panel.head_chooser.setCurrentIndex(panel.head_chooser.findData(2))  # head 3 attends to column 2
    scores, weights = _table(inspector)
    assert weights == [0.0, 0.0, 1.0] and scores == ["—"] * 3  # its own α; its scores are not kept
    assert "Head 3's score:" in inspector.formula.text() and "W_Q^3" in inspector.formula.text()
    assert "head 3" in inspector.title.text() and inspector.weights.headerData(3, Qt.Orientation.Horizontal) == \
        "weight α^3_ij"
    assert "head 3 reads" in inspector.context.text()
    panel.head_chooser.setCurrentIndex(panel.head_chooser.findData(MEAN))
    assert np.allclose(_table(inspector)[1], panel.attention()[-1], atol=1e-4)


def test_the_compare_inspector_shows_the_head_the_panel_shows(qtbot):
    info = SCORER_TABLE["multihead"]
    panel = ScorerPanel(PanelSlot(info, SimpleNamespace()))
    inspector = StepInspector()
    qtbot.addWidget(panel), qtbot.addWidget(inspector)
    panel.begin(("a", "b", "c"))
    steps = head_steps(2)
    panel.show_result(PanelRows.from_steps(steps, steps[-1].hypothesis_attention), "t0 t1",
                      PanelNumbers(-0.2, 2, 1.1, 0.25), forced=False)
    assert show_panel_step(inspector, panel, 1)
    assert np.allclose(_table(inspector)[1], steps[-1].attention, atol=1e-4)
    panel.head_chooser.setCurrentIndex(panel.head_chooser.findData(1))
    assert show_panel_step(inspector, panel, 1) and _table(inspector)[1] == [0.0, 1.0, 0.0]
    assert not show_panel_step(inspector, panel, 5)  # no such step: nothing shown
    assert head_row(None, 1) is None and head_row(np.ones((2, 3)), MEAN) is None and head_row(np.ones((2, 3)), 2) is None
