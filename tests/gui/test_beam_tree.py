"""The beam tree: the search's candidates per step, live, and walking it."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QEvent, Qt
from PySide6.QtGui import QHelpEvent
from PySide6.QtWidgets import QApplication, QToolTip

from engine.decoding.search import BeamNode
from engine.models.bundle import load_model_folder
from engine.settings.config import DecodeConfig
from gui.attention.beam_tree import COLUMN_WIDTH, NODE_WIDTH, ROW_HEIGHT, BeamTreeView
from tests.gui.conftest import shown
from tests.gui.test_translate_support import install_models, open_window, wait_for_model, wait_run_end

pytestmark = pytest.mark.slow  # trains a model, opens the real window, runs a subprocess or fuzzes many cases


def test_every_beam_step_records_its_candidates_and_their_fate(dates_models):
    translator = load_model_folder(dates_models["additive"]).translator
    steps = list(translator.steps("29 Nov 2026", DecodeConfig(beam_size=3)))
    seen: set[tuple[int, ...]] = {()}
    for step in steps:
        statuses = [n.status for n in step.beam_level]
        assert statuses.count("kept") <= 3 and set(statuses) <= {"kept", "finished", "pruned"}
        assert all(tuple(n.ids[:-1]) in seen for n in step.beam_level)  # every parent was kept before
        assert all(n.step is not None for n in step.beam_level if n.status != "pruned")
        seen |= {tuple(n.ids) for n in step.beam_level if n.status == "kept"}
    assert any(n.status == "finished" for s in steps for n in s.beam_level)


def test_the_tree_grows_and_stays_navigable_at_beam_ten_and_thirty_steps(qtbot):
    view = BeamTreeView()
    qtbot.addWidget(view)
    parents = [()]
    for depth in range(30):
        level = [BeamNode(parents[i % len(parents)] + (i,), f"▁t{i}", 0.1, -float(depth + i), "kept" if i < 10 else
                          "pruned", -1.0) for i in range(20)]
        view.add_level(depth, level)
        parents = [tuple(n.ids) for n in level[:10]]
    assert view.node_count() == 600 and len(view.levels) == 30
    view.fit()  # the search has ended: the scene is exactly as large as the tree
    assert view.sceneRect().width() == 29 * COLUMN_WIDTH + NODE_WIDTH + 16
    assert view.sceneRect().height() == 20 * ROW_HEIGHT + 12
    chosen = []
    view.nodeChosen.connect(chosen.append)
    view.setFocus()
    qtbot.keyClick(view, Qt.Key.Key_Right)  # the first node
    qtbot.keyClick(view, Qt.Key.Key_Right)  # its first child
    qtbot.keyClick(view, Qt.Key.Key_Down)
    qtbot.keyClick(view, Qt.Key.Key_Left)  # back to a parent
    assert [len(n.ids) for n in chosen] == [1, 2, 2, 1]
    shown(qtbot, view, 600, 400)
    view.horizontalScrollBar().setValue(0)
    view.verticalScrollBar().setValue(0)
    target = view.levels[1][3]
    point = view.mapFromScene(target.rect().center())
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=point)
    assert chosen[-1] is target.node and view.current is target
    assert view.outlined_box().contains(target.rect().center())
    assert not view.outlined_box().contains(view.levels[1][2].rect().center())
    help_event = QHelpEvent(QEvent.Type.ToolTip, point, view.viewport().mapToGlobal(point))
    QApplication.sendEvent(view.viewport(), help_event)
    assert QToolTip.text().startswith("▁t3") and "pruned" not in QToolTip.text()
    gap = view.mapFromScene(target.rect().center().x() + 60, target.rect().center().y())  # between two columns
    assert view.node_at(gap) is None


def test_a_step_is_drawn_by_one_item_and_its_pixels_show_the_nodes(qtbot):
    view = shown(qtbot, BeamTreeView(), 400, 300)
    before = len(view.scene().items())
    view.add_level(0, [BeamNode((i,), f"▁w{i}", 0.9, -0.1, "kept", -0.1) for i in range(10)])
    assert view.node_count() == 10  # known at once; drawn at the event loop's next turn
    qtbot.waitUntil(lambda: len(view.scene().items()) == before + 1)  # one item for the ten nodes and their lines
    image = view.viewport().grab().toImage()
    box = view.mapFromScene(view.levels[0][0].rect().center())
    blank = view.mapFromScene(view.levels[0][0].rect().center().x(), 20 * 22)
    assert image.pixelColor(box) != image.pixelColor(blank)  # a node's background where it should be


def test_the_translate_view_draws_the_search_and_shows_a_chosen_hypothesis(qtbot, dates_models):
    install_models(dates_models, ("additive",))
    window = open_window(qtbot)
    wait_for_model(qtbot, window, "additive")
    tab = window.translate_tab
    tab.view.choice_bar.beam_spin.setValue(3)
    tab.translate_text("29 Nov 2026")
    wait_run_end(qtbot, window)
    dialog = tab.open_beam_tree()
    assert dialog.isVisible() and dialog.tree.node_count() == sum(len(nodes) for _, nodes in tab.beam_levels) > 3
    finished = next(item for level in dialog.tree.levels for item in level if item.node.status == "finished")
    dialog.tree.choose(finished)
    panel = tab.view.attention_panel
    assert list(panel.target_tokens()) == list(finished.node.step.hypothesis_tokens)
    assert "finished" in dialog.status.text()
    pruned = [item for level in dialog.tree.levels for item in level if item.node.status == "pruned"]
    if pruned:
        dialog.tree.choose(pruned[0])
        assert "pruned" in dialog.status.text()
    dialog.close()


@pytest.mark.slow  # a trained model, or the real window
def test_the_beam_tree_docks_under_the_map_and_the_window_keeps_its_size(qtbot, dates_models):
    install_models(dates_models, ("additive",))
    window = open_window(qtbot)
    wait_for_model(qtbot, window, "additive")
    tab = window.translate_tab
    tab.view.choice_bar.beam_spin.setValue(3)
    tab.translate_text("29 Nov 2026")
    wait_run_end(qtbot, window)
    size = window.size()
    pane = tab.open_beam_tree()
    splitter = tab.view.map_splitter
    assert not pane.isWindow() and splitter.indexOf(pane) == 1 and splitter.indexOf(tab.view.attention_panel) == 0
    qtbot.waitUntil(lambda: pane.isVisible() and pane.height() > 100)
    assert window.size() == size  # it takes the map's height, not the window's
    map_box = tab.view.attention_panel.geometry()
    assert pane.geometry().top() >= map_box.bottom()  # under the map, never over it
    pane.close_button.click()
    assert not pane.isVisible()
    assert tab.open_beam_tree() is pane and pane.isVisible()
