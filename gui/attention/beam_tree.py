"""The beam tree: beam search drawn as it runs (after Seq2Seq-Vis and NMTVis).

One column per output step, one node per candidate the search weighed there (the 2K best
continuations of the live hypotheses): kept hypotheses in bold, pruned ones faded, finished ones
(ended with ``</s>``) in green with their normalized score log p / lp. Each node's background is as
strong as its token's probability. Lines join each node to its parent. The tree grows live; at beam
10 and 30 steps it scrolls (the newest column is scrolled into view while the search runs).

Keys: ← parent, → first child, ↑/↓ the node above or below in the same step, Enter picks the node
(``nodePicked``); clicking a node chooses it (``nodeChosen``): the view shows that hypothesis.
"""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QRectF, Qt, Signal
from PySide6.QtGui import QBrush, QColor, QFont, QKeyEvent, QPainter, QPen
from PySide6.QtWidgets import QGraphicsItem, QGraphicsRectItem, QGraphicsScene, QGraphicsSimpleTextItem, QGraphicsView

from gui.attention.labels import token_label

COLUMN_WIDTH = 112  # pixels per step
ROW_HEIGHT = 22  # pixels per node
NODE_WIDTH = 96
STATUS_COLOURS = {"kept": QColor(30, 30, 30), "finished": QColor(0, 120, 60), "pruned": QColor(150, 150, 150)}


_FONTS: dict[bool, QFont] = {}


def _font(bold: bool) -> QFont:
    """One shared font per weight (made once, after the application exists)."""
    if bold not in _FONTS:
        font = QFont()
        font.setBold(bold)
        _FONTS[bold] = font
    return _FONTS[bold]


class _NodeItem(QGraphicsRectItem):
    def __init__(self, node, depth: int, row: int) -> None:
        super().__init__(QRectF(0, 0, NODE_WIDTH, ROW_HEIGHT - 4))
        self.node, self.depth, self.row = node, depth, row
        self.setPos(depth * COLUMN_WIDTH, row * ROW_HEIGHT)
        fill = QColor(68, 120, 200)
        fill.setAlphaF(0.1 + 0.6 * max(0.0, min(1.0, node.probability)))
        self.setBrush(QBrush(fill))
        self.setPen(QPen(Qt.PenStyle.NoPen))
        self.setFlag(QGraphicsItem.GraphicsItemFlag.ItemIsSelectable, True)
        text = token_label(node.token)
        if node.status == "finished":
            text = f"✓ {text} {node.score:.2f}"
        label = QGraphicsSimpleTextItem(text[:18], self)
        label.setFont(_font(bold=node.status == "kept"))
        label.setBrush(QBrush(STATUS_COLOURS.get(node.status, QColor(0, 0, 0))))
        label.setPos(4, 1)
        if node.status == "pruned":
            self.setOpacity(0.55)
        self.setToolTip(f"{node.token}  p = {node.probability:.3f}\nlog p of the hypothesis {node.log_probability:.3f}"
                        f"\nscore (log p / lp) {node.score:.3f}\n{node.status}")


class BeamTreeView(QGraphicsView):
    """objectName ``beamTree``."""

    nodeChosen = Signal(object)  # BeamNode: show its hypothesis
    nodePicked = Signal(object)  # BeamNode: Enter or a double click

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.setObjectName("beamTree")
        self.setScene(QGraphicsScene(self))
        self.setRenderHint(QPainter.RenderHint.Antialiasing)
        # Repaint only the region the new nodes touch (cheaper while the tree grows live).
        self.setViewportUpdateMode(QGraphicsView.ViewportUpdateMode.SmartViewportUpdate)
        self.setDragMode(QGraphicsView.DragMode.ScrollHandDrag)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.items_by_ids: dict[tuple[int, ...], _NodeItem] = {}
        self.levels: list[list[_NodeItem]] = []
        self.current: _NodeItem | None = None
        self._follow = True  # scroll to the newest column while the search runs
        self._rows = 0

    def clear(self) -> None:
        self.scene().clear()
        self.items_by_ids, self.levels, self.current, self._follow = {}, [], None, True
        self._rows = 0  # the most nodes any step has: the scene's height in rows

    def add_level(self, depth: int, nodes: Sequence) -> None:
        """The candidates of output step ``depth`` (BeamNode), best first."""
        self.add_levels([(depth, nodes)])

    def add_levels(self, levels: Sequence[tuple[int, Sequence]]) -> None:
        """Several steps at once (one scene-size update and one scroll for all of them)."""
        pen = QPen(QColor(120, 120, 120))
        pen.setCosmetic(True)
        for depth, nodes in levels:
            while len(self.levels) <= depth:
                self.levels.append([])
            for node in nodes:
                item = _NodeItem(node, depth, len(self.levels[depth]))
                self.scene().addItem(item)
                self.levels[depth].append(item)
                self.items_by_ids[tuple(node.ids)] = item
                parent = self.items_by_ids.get(tuple(node.ids[:-1]))
                if parent is not None:
                    line = self.scene().addLine(parent.x() + NODE_WIDTH, parent.y() + ROW_HEIGHT / 2 - 2,
                                                item.x(), item.y() + ROW_HEIGHT / 2 - 2, pen)
                    line.setZValue(-1)
            self._rows = max(self._rows, len(self.levels[depth]))
        if not levels:
            return
        # The scene's extent follows from the grid (no walk over every item).
        self.setSceneRect(QRectF(-8, -8, (len(self.levels) - 1) * COLUMN_WIDTH + NODE_WIDTH + 16,
                                 self._rows * ROW_HEIGHT + 12))
        newest = self.levels[levels[-1][0]]
        if self._follow and newest:
            self._follow_column(newest[0])

    def _follow_column(self, item: _NodeItem) -> None:
        """Keep the newest column in view, a page at a time: when it passes the right edge, the view
        jumps so that it sits a third of the way in. Scrolling repaints the whole view, so it should
        happen every few steps, not at every one."""
        visible = self.mapToScene(self.viewport().rect()).boundingRect()
        if item.x() + NODE_WIDTH + 8 <= visible.right():
            return
        bar = self.horizontalScrollBar()
        bar.setValue(int(bar.value() + item.x() - visible.left() - visible.width() / 3))

    def node_count(self) -> int:
        return len(self.items_by_ids)

    # -- choosing ---------------------------------------------------------------------------
    def choose(self, item: _NodeItem | None, pick: bool = False) -> None:
        if item is None:
            return
        self._follow = False
        if self.current is not None:
            self.current.setPen(QPen(Qt.PenStyle.NoPen))
        self.current = item
        outline = QPen(QColor(255, 140, 0), 2)
        outline.setCosmetic(True)
        item.setPen(outline)
        self.ensureVisible(item, 24, 24)
        self.nodeChosen.emit(item.node)
        if pick:
            self.nodePicked.emit(item.node)

    def mousePressEvent(self, event) -> None:
        item = self.itemAt(event.position().toPoint())
        while item is not None and not isinstance(item, _NodeItem):
            item = item.parentItem()
        if isinstance(item, _NodeItem):
            self.choose(item)
        super().mousePressEvent(event)

    def mouseDoubleClickEvent(self, event) -> None:
        if self.current is not None:
            self.choose(self.current, pick=True)
        super().mouseDoubleClickEvent(event)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        item = self.current
        key = event.key()
        if item is None:
            if self.levels and self.levels[0] and key in (Qt.Key.Key_Right, Qt.Key.Key_Down, Qt.Key.Key_Return):
                self.choose(self.levels[0][0])
                return
            super().keyPressEvent(event)
            return
        ids = tuple(item.node.ids)
        if key == Qt.Key.Key_Left:
            self.choose(self.items_by_ids.get(ids[:-1]))
        elif key == Qt.Key.Key_Right and item.depth + 1 < len(self.levels):
            children = [c for c in self.levels[item.depth + 1] if tuple(c.node.ids[:-1]) == ids]
            self.choose(children[0] if children else None)
        elif key in (Qt.Key.Key_Up, Qt.Key.Key_Down):
            level = self.levels[item.depth]
            row = item.row + (-1 if key == Qt.Key.Key_Up else 1)
            self.choose(level[row] if 0 <= row < len(level) else None)
        elif key in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            self.choose(item, pick=True)
        else:
            super().keyPressEvent(event)
