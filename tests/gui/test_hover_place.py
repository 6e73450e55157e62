"""The hover line under the attention map keeps room to be read: in the bar while the bar has room for it, on a
row of its own when the head chooser and a tab's tools fill the bar (a Transformer at 1280×800)."""

from PySide6.QtWidgets import QPushButton

from gui.attention.hover_place import HOVER_LINE_MIN_WIDTH
from gui.attention.panel import AttentionPanel


def shown_panel(qtbot, width: int) -> AttentionPanel:
    panel = AttentionPanel()
    qtbot.addWidget(panel)
    panel.resize(width, 500)
    panel.show()
    qtbot.waitExposed(panel)
    return panel


def test_the_hover_line_leaves_a_crowded_bar_for_its_own_row_and_comes_back_when_there_is_room(qtbot):
    panel = shown_panel(qtbot, 1100)  # one head, no tools: room in the bar
    line = panel.hover_label
    assert panel._hover_place.in_bar
    qtbot.waitUntil(lambda: line.width() >= HOVER_LINE_MIN_WIDTH)
    panel.head_chooser.setVisible(True)
    panel.add_map_tool(QPushButton("Layers…"))
    panel.add_map_tool(QPushButton("Another tool of the tab"))
    qtbot.waitUntil(lambda: not panel._hover_place.in_bar)
    qtbot.waitUntil(lambda: line.width() >= HOVER_LINE_MIN_WIDTH)  # its own row: the map's width
    assert panel._map_tools.indexOf(line) == -1
    panel.resize(2400, 500)  # a wide window: back into the bar
    qtbot.waitUntil(lambda: panel._hover_place.in_bar)
    assert panel._map_tools.indexOf(line) >= 0
    qtbot.waitUntil(lambda: line.width() >= HOVER_LINE_MIN_WIDTH)
    panel.resize(1100, 500)
    qtbot.waitUntil(lambda: not panel._hover_place.in_bar)
    panel.head_chooser.setVisible(False)  # a one-head model again: the chooser's room is the line's
    for index in range(panel._map_tools.count()):
        tool = panel._map_tools.itemAt(index).widget()
        if isinstance(tool, QPushButton):
            tool.setVisible(False)
    qtbot.waitUntil(lambda: panel._hover_place.in_bar)
