"""Every map of the Compare grid, viewed alike: the panels' maps, those open large in windows of their own
(gui/compare/enlarged.py) and the difference map — one word view and colour scale, one zoom reset, one
outlined source column."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

from gui.compare.enlarged import EnlargedMap

if TYPE_CHECKING:
    from PySide6.QtWidgets import QWidget

    from gui.attention.view_bar import MapViewBar
    from gui.compare.difference import DifferencePanel
    from gui.compare.panel import ScorerPanel


class GridMaps:
    """The maps of the Compare tab ``owner``: its panels (``panels()``, they come and go with the direction),
    the windows they open large (:attr:`enlarged`, by scorer) and ``difference``'s map."""

    def __init__(self, owner: QWidget, panels: Callable[[], Mapping[str, ScorerPanel]], view_bar: MapViewBar,
                 difference: DifferencePanel, inspector: QWidget) -> None:
        self.owner, self.panels, self.view_bar = owner, panels, view_bar
        self.difference, self.inspector = difference, inspector
        self.enlarged: dict[str, EnlargedMap] = {}  # the maps open in windows of their own, by scorer

    def enlarge(self, scorer: str) -> EnlargedMap | None:
        """Open ``scorer``'s map in a window of its own (or raise the one already open); None without a map."""
        panel = self.panels().get(scorer)
        if panel is None or panel.heatmap is None:
            return None
        window = self.enlarged.get(scorer)
        if window is None:
            window = self.enlarged[scorer] = EnlargedMap(panel, self.owner)
            window.place_beside(self.inspector)
        window.show()
        window.raise_()
        window.activateWindow()
        return window

    def close_enlarged(self) -> None:
        """Close the windows (their panels are about to go, or the tab closes)."""
        for window in self.enlarged.values():
            window.close()
            window.deleteLater()
        self.enlarged = {}

    def apply_view(self) -> None:
        """Words or pieces, and the colour scale, in every map (those open large too)."""
        words = self.view_bar.word_view()
        for window in self.enlarged.values():
            self.view_map(window.heatmap)
        for panel in self.panels().values():
            panel.set_word_view(words)  # its map, labels and coverage bars in the new unit
            self.view_map(panel.heatmap)
        self.difference.heatmap.set_word_view(words)

    def view_map(self, heatmap) -> None:
        """``heatmap`` (None: a panel without a map) in the view bar's unit and colour scale."""
        if heatmap is not None:
            heatmap.set_word_view(self.view_bar.word_view())
            heatmap.set_color_scale(self.view_bar.scale_name())

    def reset_zoom(self) -> None:
        """Every map (those open large too, and the difference map) back to the view it opened with."""
        maps = [p.heatmap for p in self.panels().values()] + [w.heatmap for w in self.enlarged.values()]
        for heatmap in [*maps, self.difference.heatmap]:
            if heatmap is not None:
                heatmap.reset_zoom()

    def highlight_column(self, column: int) -> None:
        """Outline source column ``column`` (in pieces; -1 clears) in every map."""
        for panel in self.panels().values():
            panel.highlight_column(column)
        for window in self.enlarged.values():
            window.highlight_column(column)
        self.difference.heatmap.highlight_column(column)
