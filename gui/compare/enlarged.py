"""One Compare panel's map in a window of its own, large enough for every label.

The grid's maps are small: on a two-clause input they have room for a label every few rows and
columns. A panel's enlarge button opens its map here, at a size where a two-clause input's
source and output sub-words are named one by one (wheel to zoom for longer ones). The window follows its panel: it redraws whenever the panel's map is redrawn
(a new sentence's empty map, each streamed step, the final rows), so it is live during a run and
never shows rows of an older one; the tab closes it when the panels are replaced (another direction). Hovering a cell does what hovering the panel's own map does —
the Compare tab's step inspector shows that step and every map outlines that column.

The window opens beside the tab's step inspector, never over it (:func:`beside`): its hover drives
that inspector, which its footer points to. Of the screen's room left, right, above and below the
inspector, it takes the part where it can be largest (up to ENLARGED_SIZE).

Object names: ``compareEnlarged_<scorer>`` (the window), ``compareEnlargedMap`` (its map),
``compareEnlargedCaption`` (the output and numbers under it).
"""

from __future__ import annotations

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, QMargins, QPoint, QRect, QSize, Qt
from PySide6.QtWidgets import QDialog, QLabel, QVBoxLayout, QWidget

from gui.attention.piece_map import PieceMap
from gui.attention.row_scroll import with_row_scroll_bar
from gui.compare.panel import ScorerPanel
from gui.screen_fit import FRAME_ALLOWANCE, available_geometry, fit_to_screen

ENLARGED_SIZE = (1200, 720)  # a two-clause input's 25 sub-words get a label each
HINT = QT_TRANSLATE_NOOP("EnlargedMap", "Wheel to zoom, drag to pan, double-click to reset the zoom; hover a cell to "
                         "see its step in the Compare tab's step inspector.")
GAP = 6  # pixels between the window's frame and the inspector


def beside(avoid: QRect, available: QRect, wanted: QSize, frame: QMargins = FRAME_ALLOWANCE) -> QRect:
    """Where a window (its contents, without the ``frame`` a window manager adds) goes so that its
    frame stays inside ``available`` and off ``avoid``: in the largest of the four parts of
    ``available`` left of, right of, above and below ``avoid``, as large as ``wanted`` allows,
    against ``avoid``'s side. An ``avoid`` outside ``available`` leaves it all."""
    inner = avoid.intersected(available)
    if inner.isEmpty():
        inner = QRect(available.topLeft(), QSize(0, 0))
    parts = (  # (room, anchored to the inspector's side: the corner the window keeps)
        (QRect(QPoint(available.left(), available.top()), QPoint(inner.left() - GAP - 1, available.bottom())), "right"),
        (QRect(QPoint(inner.right() + GAP + 1, available.top()), available.bottomRight()), "left"),
        (QRect(available.topLeft(), QPoint(available.right(), inner.top() - GAP - 1)), "bottom"),
        (QRect(QPoint(available.left(), inner.bottom() + GAP + 1), available.bottomRight()), "top"),
    )
    best, best_area = QRect(), -1
    for room, side in parts:
        size = wanted.boundedTo(QSize(room.width() - frame.left() - frame.right(),
                                      room.height() - frame.top() - frame.bottom()))
        if size.width() <= 0 or size.height() <= 0 or size.width() * size.height() <= best_area:
            continue
        left = room.right() - frame.right() - size.width() + 1 if side == "right" else room.left() + frame.left()
        top = room.bottom() - frame.bottom() - size.height() + 1 if side == "bottom" else room.top() + frame.top()
        best, best_area = QRect(QPoint(left, top), size), size.width() * size.height()
    return best


class EnlargedMap(QDialog):
    """A large, live copy of ``panel``'s attention map (non-modal)."""

    def __init__(self, panel: ScorerPanel, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.panel = panel
        self.setObjectName(f"compareEnlarged_{panel.slot.scorer}")
        self.setWindowTitle(self.tr("%1 — attention").replace("%1", panel.slot.label))
        self.setModal(False)
        title = QLabel(f"<b>{panel.slot.label}</b> &nbsp; {panel.slot.formula}")
        title.setTextFormat(Qt.TextFormat.RichText)
        self.heatmap = PieceMap(words=panel.heatmap.words)
        self.heatmap.set_color_scale(panel.heatmap.color_scale)
        self.heatmap.setObjectName("compareEnlargedMap")
        self.caption = QLabel()
        self.caption.setObjectName("compareEnlargedCaption")
        self.caption.setWordWrap(True)
        self.caption.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        layout = QVBoxLayout(self)
        layout.addWidget(title)
        heat_box, self.row_scroll = with_row_scroll_bar(self.heatmap)  # rows out of view: a scroll bar
        layout.addWidget(heat_box, 1)
        layout.addWidget(self.caption)
        hint = QLabel(QCoreApplication.translate("EnlargedMap", HINT))
        hint.setEnabled(False)  # drawn as secondary text
        layout.addWidget(hint)
        fit_to_screen(self, *ENLARGED_SIZE)
        self._columns: tuple[str, ...] | None = None  # the source tokens the map was laid out for
        panel.mapDrawn.connect(self.refresh)
        self.heatmap.cellHovered.connect(panel.report_cell_hovered)
        self.refresh(panel.map_final)

    def refresh(self, finished: bool) -> None:
        """Draw the panel's map as it is now (``finished``: its rows are final). The columns are
        laid out again only for a new sentence or an emptied map: relabelling an axis is the
        costly part of a redraw, and a streamed step only adds a row."""
        panel = self.panel
        if panel.matrix is None or not panel.target_tokens or panel.source_tokens != self._columns:
            self.heatmap.reset(panel.source_tokens)
            self._columns = panel.source_tokens
        if panel.matrix is not None and panel.target_tokens:
            self.heatmap.set_rows(panel.shown_matrix(), panel.target_tokens, finished=finished)
        numbers = panel.numbers.text()
        self.caption.setText(panel.output_text + (f"\n{numbers}" if numbers else ""))

    def highlight_column(self, column: int) -> None:
        self.heatmap.highlight_column(column)

    def place_beside(self, inspector: QWidget) -> None:
        """Open beside ``inspector`` (the tab's step inspector), never over it."""
        avoid = QRect(inspector.mapToGlobal(QPoint(0, 0)), inspector.size())
        place = beside(avoid, available_geometry(self), QSize(*ENLARGED_SIZE))
        if place.isValid():
            self.setGeometry(place)
