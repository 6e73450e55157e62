"""The Compare tab's exports: the grid as a figure (PNG or SVG: gui/compare/figure.py) and its matrices as
JSON (gui/compare/export.py), from its Export menu (a file dialog; the outcome on the tab's status line).

:class:`CompareExports` drives only :class:`ExportParts` of the tab (CompareTab is one) and the widgets that
live as long as the tab (the difference map, the map view bar, the attributions), handed in by CompareTab."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QFileDialog

from gui.attention.export import ExportError
from gui.compare.export import export_grid, grid_document
from gui.compare.figure import GridFigure

if TYPE_CHECKING:
    from PySide6.QtGui import QFont

    from gui.attention.view_bar import MapViewBar
    from gui.compare.difference import DifferencePanel
    from gui.compare.explain_link import CompareExplain
    from gui.compare.panel import ScorerPanel


class ExportParts(Protocol):
    """What the exports read and drive of the Compare tab."""

    def scorer_panels(self) -> Mapping[str, ScorerPanel]:
        """The grid's panels by scorer, in grid order."""
        ...

    def shown_sentence(self) -> str:
        """The sentence the maps show: the run's, else the one typed."""
        ...

    def reference_text(self) -> str:
        """The reference translation as typed ("" when none)."""
        ...

    def target_choice(self) -> str:
        """The target the maps show (gui/compare/model.py's keys)."""
        ...

    def flush_maps(self) -> None:
        """Draw every map still waiting for its turn (before a figure is painted)."""
        ...

    def set_status(self, text: str) -> None:
        """Show ``text`` on the status line."""
        ...

    def font(self) -> QFont:
        """The font the figure's titles use."""
        ...


class CompareExports(QObject):
    """What the Compare tab writes to files."""

    def __init__(self, parts: ExportParts, difference: DifferencePanel, view_bar: MapViewBar,
                 explain: CompareExplain | None = None, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.parts, self.difference, self.view_bar, self.explain = parts, difference, view_bar, explain

    def document(self) -> dict[str, Any]:
        """Every panel's matrix with its tokens, the numbers, and the difference map, as JSON."""
        parts = self.parts
        return grid_document(dict(parts.scorer_panels()), self.difference, self.view_bar, parts.shown_sentence(),
                             parts.reference_text(), parts.target_choice(), self.explain)

    def export_to(self, kind: str, path: Path) -> Path:
        """Write ``kind`` ("png", "svg", "json") to ``path``; the path written (ExportError otherwise)."""
        self.parts.flush_maps()  # every map drawn before the figure is painted
        figure = GridFigure(list(self.parts.scorer_panels().values()), self.parts.shown_sentence(), self.parts.font())
        return export_grid(kind, figure, self.document, path)

    def ask_and_export(self, kind: str) -> None:
        """Ask where, then write ``kind`` there; the outcome on the status line."""
        filters = {"png": self.tr("PNG image (*.png)"), "svg": self.tr("SVG drawing (*.svg)"), "json": "JSON (*.json)"}
        parent = self.parent()
        name, _ = QFileDialog.getSaveFileName(parent if parent is not None and parent.isWidgetType() else None,
                                              self.tr("Export the comparison"),
                                              str(Path.home() / f"compare.{kind}"), filters[kind])
        if not name:
            return
        try:
            path = self.export_to(kind, Path(name))
        except ExportError as error:
            self.parts.set_status(str(error))
            return
        self.parts.set_status(self.tr("Saved %1").replace("%1", str(path)))
