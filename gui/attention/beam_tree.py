"""The beam tree: beam search drawn as it runs (after Seq2Seq-Vis and NMTVis).

One column per output step, one node per candidate the search weighed there (the 2K best
continuations of the live hypotheses): kept hypotheses in bold, pruned ones faded, finished ones
(ended with ``</s>``) in green with their normalized score log p / lp. Each node's background is as
strong as its token's probability. Lines join each node to its parent. The tree grows live; at beam
10 and 30 steps it scrolls (the newest column is scrolled into view while the search runs).
Each step is one scene item that draws its nodes and their lines (cached as pixels), so adding a
step, scrolling and clearing stay cheap however large the tree grows.

Keys: ← parent, → first child, ↑/↓ the node above or below in the same step, Enter picks the node
(``nodePicked``); clicking a node chooses it (``nodeChosen``): the view shows that hypothesis.
"""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, QEvent, QPointF, QRectF, QSize, Qt, QTimer, Signal
from PySide6.QtGui import QColor, QFont, QKeyEvent, QPainter, QPen, QPixmap
from PySide6.QtWidgets import QGraphicsPixmapItem, QGraphicsRectItem, QGraphicsScene, QGraphicsView, QToolTip

from gui.attention.labels import token_label

COLUMN_WIDTH = 112  # pixels per step
ROW_HEIGHT = 22  # pixels per node
NODE_WIDTH = 96
NODE_HEIGHT = ROW_HEIGHT - 4
LABEL_CHARACTERS = 18
PRUNED_OPACITY = 0.55
STATUS_COLOURS = {"kept": QColor(30, 30, 30), "finished": QColor(0, 120, 60), "pruned": QColor(150, 150, 150)}
# The statuses' words in the node's tooltip (engine.decoding.search.SearchNode.status), marked for translation.
STATUS_WORDS = (QT_TRANSLATE_NOOP("BeamTree", "kept"), QT_TRANSLATE_NOOP("BeamTree", "finished"),
                QT_TRANSLATE_NOOP("BeamTree", "pruned"))
EDGE_COLOUR = QColor(120, 120, 120)
OUTLINE_COLOUR = QColor(255, 140, 0)
LABEL_ALIGNMENT = Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignLeft
# The scene grows a page of steps (and of rows) at a time: a scene rectangle that changed at every
# step would re-range the scroll bars and repaint them, and lay the dialog out again, each time.
PAGE_COLUMNS = 8
PAGE_ROWS = 10


_FONTS: dict[bool, QFont] = {}


def _font(bold: bool) -> QFont:
    """One shared font per weight (made once, after the application exists)."""
    if bold not in _FONTS:
        font = QFont()
        font.setBold(bold)
        _FONTS[bold] = font
    return _FONTS[bold]


class TreeNode:
    """One node of the drawn tree: the search's candidate and where it sits (column ``depth``, ``row``)."""

    __slots__ = ("node", "depth", "row")

    def __init__(self, node, depth: int, row: int) -> None:
        self.node, self.depth, self.row = node, depth, row

    def rect(self) -> QRectF:
        """The node's box in scene coordinates."""
        return QRectF(self.depth * COLUMN_WIDTH, self.row * ROW_HEIGHT, NODE_WIDTH, NODE_HEIGHT)

    def label(self) -> str:
        text = token_label(self.node.token)
        if self.node.status == "finished":
            text = f"✓ {text} {self.node.score:.2f}"
        return text[:LABEL_CHARACTERS]

    def tooltip(self) -> str:
        node = self.node
        return (f"{node.token}  p = {node.probability:.3f}\n" + QCoreApplication.translate(
            "BeamTree", "log p of the hypothesis %1\nscore (log p / lp) %2").replace(
            "%1", f"{node.log_probability:.3f}").replace("%2", f"{node.score:.3f}") + "\n"
                + QCoreApplication.translate("BeamTree", node.status))


def _row_at(local_x: float, local_y: float, rows: int) -> int | None:
    """The row of the node box at (``local_x``, ``local_y``) relative to a column's top-left node
    corner, if a box is there."""
    row = int(local_y // ROW_HEIGHT)
    inside = 0 <= local_x <= NODE_WIDTH and 0 <= local_y - row * ROW_HEIGHT <= NODE_HEIGHT
    return row if inside and 0 <= row < rows else None


class _ColumnItem(QGraphicsPixmapItem):
    """Every node of one step and the lines to their parents, drawn once into a pixmap when the step
    arrives: a step adds one item to the scene (not three per node), and painting it — when it
    appears, when the tree scrolls — is a copy of pixels in Qt's own code. (A Python paint method
    would need the interpreter lock at every repaint, which a decoding thread holds much of the
    time: each repaint would wait for it.) The chosen node's outline is a separate item."""

    def __init__(self, depth: int, nodes: list[TreeNode], parent_rows: list[int | None], scale: float) -> None:
        super().__init__()
        gap = COLUMN_WIDTH - NODE_WIDTH  # the lines come in from the gap left of the column
        tallest = max([len(nodes)] + [row + 1 for row in parent_rows if row is not None])
        size = QSize(COLUMN_WIDTH, tallest * ROW_HEIGHT)
        pixmap = QPixmap(size * scale)
        pixmap.setDevicePixelRatio(scale)
        pixmap.fill(Qt.GlobalColor.transparent)
        painter = QPainter(pixmap)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setRenderHint(QPainter.RenderHint.TextAntialiasing)
        painter.translate(gap, 0)
        _paint_column(painter, nodes, parent_rows)
        painter.end()
        self.setPixmap(pixmap)
        self.setPos(depth * COLUMN_WIDTH - gap, 0)
        self.setTransformationMode(Qt.TransformationMode.SmoothTransformation)


def _paint_column(painter: QPainter, nodes: list[TreeNode], parent_rows: list[int | None]) -> None:
    """One step's nodes at x = 0 and the lines from their parents' right edges (x < 0)."""
    middle = NODE_HEIGHT / 2
    painter.setPen(QPen(EDGE_COLOUR))
    gap_start = NODE_WIDTH - COLUMN_WIDTH
    for row, parent_row in enumerate(parent_rows):
        if parent_row is not None:
            painter.drawLine(QPointF(gap_start, parent_row * ROW_HEIGHT + middle), QPointF(0, row * ROW_HEIGHT + middle))
    for row, tree_node in enumerate(nodes):
        node = tree_node.node
        box = QRectF(0, row * ROW_HEIGHT, NODE_WIDTH, NODE_HEIGHT)
        fill = QColor(68, 120, 200)
        fill.setAlphaF(0.1 + 0.6 * max(0.0, min(1.0, node.probability)))
        painter.setOpacity(PRUNED_OPACITY if node.status == "pruned" else 1.0)
        painter.fillRect(box, fill)
        painter.setFont(_font(bold=node.status == "kept"))
        painter.setPen(STATUS_COLOURS.get(node.status, QColor(0, 0, 0)))
        painter.drawText(box.adjusted(4, 0, -2, 0), LABEL_ALIGNMENT, tree_node.label())
    painter.setOpacity(1.0)


class BeamTreeView(QGraphicsView):
    """objectName ``beamTree``."""

    nodeChosen = Signal(object)  # BeamNode: show its hypothesis
    nodePicked = Signal(object)  # BeamNode: Enter or a double click

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.setObjectName("beamTree")
        scene = QGraphicsScene(self)
        scene.setItemIndexMethod(QGraphicsScene.ItemIndexMethod.NoIndex)  # a few dozen columns, added live
        self.setScene(scene)
        self.setRenderHint(QPainter.RenderHint.Antialiasing)
        # Repaint only the region the new column touches (cheaper while the tree grows live).
        self.setViewportUpdateMode(QGraphicsView.ViewportUpdateMode.SmartViewportUpdate)
        self.setDragMode(QGraphicsView.DragMode.ScrollHandDrag)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)  # a tree reads from its root
        self.items_by_ids: dict[tuple[int, ...], TreeNode] = {}
        self.levels: list[list[TreeNode]] = []
        self.columns: list[_ColumnItem | None] = []
        self.current: TreeNode | None = None
        self._follow = True  # scroll to the newest column while the search runs
        self._rows = 0
        self._outline = self._make_outline()
        self._undrawn: list[int] = []  # steps added but not drawn yet, oldest first
        self._draw_timer = QTimer(self)
        self._draw_timer.setSingleShot(True)
        self._draw_timer.setInterval(0)
        self._draw_timer.timeout.connect(self._draw_next_column)

    def _make_outline(self) -> QGraphicsRectItem:
        """The chosen node's outline (hidden while none is chosen)."""
        outline = QGraphicsRectItem(QRectF(0, 0, NODE_WIDTH, NODE_HEIGHT))
        pen = QPen(OUTLINE_COLOUR, 2)
        pen.setCosmetic(True)
        outline.setPen(pen)
        outline.setZValue(1)
        outline.hide()
        self.scene().addItem(outline)
        return outline

    def clear(self) -> None:
        self.scene().clear()
        self.items_by_ids, self.levels, self.columns, self.current, self._follow = {}, [], [], None, True
        self._rows = 0  # the most nodes any step has: the scene's height in rows
        self._outline = self._make_outline()
        self._undrawn = []
        self._draw_timer.stop()

    def add_level(self, depth: int, nodes: Sequence) -> None:
        """The candidates of output step ``depth`` (BeamNode), best first."""
        self.add_levels([(depth, nodes)])

    def add_levels(self, levels: Sequence[tuple[int, Sequence]]) -> None:
        """Several steps at once (one scene-size update and one scroll for all of them)."""
        for depth, nodes in levels:
            while len(self.levels) <= depth:
                self.levels.append([])
                self.columns.append(None)
            level = self.levels[depth]
            for node in nodes:
                tree_node = TreeNode(node, depth, len(level))
                level.append(tree_node)
                self.items_by_ids[tuple(node.ids)] = tree_node
            if depth not in self._undrawn:
                self._undrawn.append(depth)
            self._rows = max(self._rows, len(level))
        if not levels:
            return
        if not self._draw_timer.isActive():
            self._draw_timer.start()
        self._set_extent(paged=True)
        newest = self.levels[levels[-1][0]]
        if self._follow and newest:
            self._follow_column(newest[0])

    def _set_extent(self, paged: bool) -> None:
        """The scene's extent, from the grid (no walk over every item): while the search runs, a
        page of steps and rows at a time; :meth:`fit` makes it exact."""
        columns, rows = len(self.levels), self._rows
        if paged:
            columns = -(-columns // PAGE_COLUMNS) * PAGE_COLUMNS
            rows = -(-rows // PAGE_ROWS) * PAGE_ROWS
        extent = QRectF(-8, -8, max(columns - 1, 0) * COLUMN_WIDTH + NODE_WIDTH + 16, rows * ROW_HEIGHT + 12)
        if extent != self.sceneRect():
            self.setSceneRect(extent)

    def fit(self) -> None:
        """The search has ended: the scene exactly as large as the tree (steps not drawn yet still
        come one per turn of the event loop: drawing them all now would hold the window)."""
        if self.levels:
            self._set_extent(paged=False)

    def _draw_next_column(self) -> None:
        """Draw the oldest step not drawn yet; more wait for the next turn of the event loop.

        Drawing a step runs a few hundred calls from Python into Qt; while a search runs, a decoding
        thread wants the interpreter lock between them, so one step takes a few milliseconds and
        several in one go would keep the window from everything else for tens of them."""
        if self._undrawn:
            self._draw_column(self._undrawn.pop(0))
        if self._undrawn:
            self._draw_timer.start()

    def flush(self) -> None:
        """Draw every step not drawn yet, now (before the view is grabbed as an image)."""
        self._draw_timer.stop()
        while self._undrawn:
            self._draw_column(self._undrawn.pop(0))

    def _draw_column(self, depth: int) -> None:
        """(Re)place the one item that draws step ``depth``."""
        old = self.columns[depth]
        if old is not None:
            self.scene().removeItem(old)
        level = self.levels[depth]
        parent_rows = []
        for tree_node in level:
            parent = self.items_by_ids.get(tuple(tree_node.node.ids[:-1]))
            parent_rows.append(parent.row if parent is not None and parent.depth == depth - 1 else None)
        column = _ColumnItem(depth, level, parent_rows, self.devicePixelRatioF())
        self.scene().addItem(column)
        self.columns[depth] = column

    def _follow_column(self, item: TreeNode) -> None:
        """Keep the newest column in view, a page at a time: when it passes the right edge, the view
        jumps so that it sits a third of the way in. Scrolling repaints the whole view, so it should
        happen every few steps, not at every one."""
        visible = self.mapToScene(self.viewport().rect()).boundingRect()
        left = item.rect().left()
        if left + NODE_WIDTH + 8 <= visible.right():
            return
        bar = self.horizontalScrollBar()
        bar.setValue(int(bar.value() + left - visible.left() - visible.width() / 3))

    def node_count(self) -> int:
        return len(self.items_by_ids)

    def outlined_box(self) -> QRectF | None:
        """Where the chosen node's outline is drawn (scene coordinates); None before a choice."""
        return self._outline.sceneBoundingRect() if self._outline.isVisible() else None

    def node_at(self, view_point) -> TreeNode | None:
        """The node whose box is under ``view_point`` (viewport coordinates), if any."""
        scene_point = self.mapToScene(view_point)
        depth = int(scene_point.x() // COLUMN_WIDTH)
        if not 0 <= depth < len(self.levels):
            return None
        row = _row_at(scene_point.x() - depth * COLUMN_WIDTH, scene_point.y(), len(self.levels[depth]))
        return None if row is None else self.levels[depth][row]

    # -- choosing ---------------------------------------------------------------------------
    def mark(self, item: TreeNode) -> None:
        """Outline ``item`` as the current node and scroll it into view, without choosing it (the
        hypothesis it stands for is already the one shown: the search's output)."""
        self._follow = False
        self.current = item
        self._outline.setPos(item.rect().topLeft())
        self._outline.show()
        self.ensureVisible(item.rect(), 24, 24)

    def choose(self, item: TreeNode | None, pick: bool = False) -> None:
        if item is None:
            return
        self.mark(item)
        self.nodeChosen.emit(item.node)
        if pick:
            self.nodePicked.emit(item.node)

    def viewportEvent(self, event) -> bool:  # noqa: N802 - Qt override
        if event.type() == QEvent.Type.ToolTip:  # the node under the pointer: its token, p, score, fate
            item = self.node_at(event.pos())
            if item is None:
                QToolTip.hideText()
            else:
                QToolTip.showText(event.globalPos(), item.tooltip(), self.viewport())
            return True
        return super().viewportEvent(event)

    def mousePressEvent(self, event) -> None:
        item = self.node_at(event.position().toPoint())
        if item is not None:
            self.choose(item)
        super().mousePressEvent(event)

    def mouseDoubleClickEvent(self, event) -> None:
        if self.current is not None:
            self.choose(self.current, pick=True)
        super().mouseDoubleClickEvent(event)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        """Arrows walk the tree (left: the parent, right: the first child, up and down: the level);
        Enter picks the chosen node; before a choice, right, down or Enter choose the first node."""
        key, item = event.key(), self.current
        if item is None:
            if self.levels and self.levels[0] and key in (Qt.Key.Key_Right, Qt.Key.Key_Down, Qt.Key.Key_Return):
                self.choose(self.levels[0][0])
                return
        elif key in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            self.choose(item, pick=True)
            return
        elif self._moves(item, key):
            self.choose(self._neighbour(item, key))
            return
        super().keyPressEvent(event)

    def _moves(self, item: TreeNode, key: int) -> bool:
        """Whether arrow ``key`` walks the tree from ``item`` (right only where a next level exists)."""
        if key == Qt.Key.Key_Right:
            return item.depth + 1 < len(self.levels)
        return key in (Qt.Key.Key_Left, Qt.Key.Key_Up, Qt.Key.Key_Down)

    def _neighbour(self, item: TreeNode, key: int) -> TreeNode | None:
        """The node arrow ``key`` leads to from ``item`` (None: none that way)."""
        ids = tuple(item.node.ids)
        if key == Qt.Key.Key_Left:
            return self.items_by_ids.get(ids[:-1])
        if key == Qt.Key.Key_Right:
            children = [c for c in self.levels[item.depth + 1] if tuple(c.node.ids[:-1]) == ids]
            return children[0] if children else None
        level = self.levels[item.depth]
        row = item.row + (-1 if key == Qt.Key.Key_Up else 1)
        return level[row] if 0 <= row < len(level) else None
