"""A Compare panel's map in a window of its own (gui/compare/enlarged.py): it mirrors its panel,
follows it through new runs, links its hover to the tab, and goes when the panels are replaced."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtWidgets import QToolButton

from tests.gui.compare_support import run
from tests.gui.test_translate_support import RUN_MS


def shown_matrix(window) -> np.ndarray:
    heatmap = window.heatmap
    return heatmap._grid[: heatmap._rows, : heatmap._columns]


@pytest.mark.slow  # a trained model, or the real window
def test_the_enlarge_button_opens_a_live_copy_of_the_map_that_follows_its_panel(qtbot, compare):
    tab = compare
    tab.view_bar.set_word_view(False)  # the model's pieces: the copy's grid is the panel's matrix itself
    run(qtbot, tab, "29 Nov 2026")
    panel = tab.panels["dot"]
    assert tab.panels["none"].enlarge_button is None  # no map, nothing to enlarge
    button = panel.findChild(QToolButton, "compareEnlarge_dot")
    button.click()
    window = tab.enlarged["dot"]
    qtbot.waitExposed(window)
    assert window.objectName() == "compareEnlarged_dot" and "Dot product" in window.windowTitle()
    assert np.allclose(shown_matrix(window), panel.matrix)
    assert window.heatmap.source_pieces == panel.source_tokens
    assert panel.output_text in window.caption.text() and "log p" in window.caption.text()
    button.click()  # the same window again, raised
    assert list(tab.enlarged) == ["dot"] and tab.enlarged["dot"] is window

    rows_seen = []
    window.heatmap.reset = (lambda reset: lambda tokens: (rows_seen.append(len(tokens)), reset(tokens))[1])(
        window.heatmap.reset)
    run(qtbot, tab, "2001-02-03")  # a new sentence: the copy empties with the panel and fills with it
    assert rows_seen and window.heatmap.source_pieces == panel.source_tokens
    assert np.allclose(shown_matrix(window), panel.matrix) and panel.map_final


@pytest.mark.slow  # a trained model, or the real window
def test_hovering_the_enlarged_map_inspects_that_step_and_outlines_the_column_everywhere(qtbot, compare):
    tab = compare
    run(qtbot, tab, "29 Nov 2026")
    window = tab.enlarge("additive")
    qtbot.waitExposed(window)
    window.heatmap.cellHovered.emit(1, 2)
    assert tab.inspector.shown_index == 1 and "Additive" in tab.inspector.title.text()
    assert tab.panels["dot"].heatmap._column_box.isVisible() and window.heatmap._column_box.isVisible()


@pytest.mark.slow  # a trained model, or the real window
def test_the_enlarged_maps_close_when_the_panels_are_replaced(qtbot, compare):
    tab = compare
    run(qtbot, tab, "29 Nov 2026")
    window = tab.enlarge("dot")
    qtbot.waitExposed(window)
    tab._on_slots(tab.controller.slots)  # what a change of direction does to the grid
    assert tab.enlarged == {} and not window.isVisible()
    qtbot.waitUntil(lambda: "dot" in tab.panels, timeout=RUN_MS)
    window = tab.enlarge("dot")
    qtbot.waitExposed(window)
    tab.window().close()  # closing the app closes them too
    assert tab.enlarged == {} and not window.isVisible()
