"""The Compare tab's exports: the grid as a figure (PNG or SVG: gui/compare/figure.py) and its matrices as
JSON (gui/compare/export.py), from its Export menu (a file dialog; the outcome on the tab's status line)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QFileDialog

from gui.attention.export import ExportError
from gui.compare.export import export_grid, grid_document
from gui.compare.figure import GridFigure

if TYPE_CHECKING:
    from gui.compare.tab import CompareTab


class CompareExports(QObject):
    """What the Compare tab writes to files."""

    def __init__(self, tab: CompareTab) -> None:
        super().__init__(tab)
        self.tab = tab

    def _sentence(self) -> str:
        run = self.tab.controller.run
        return run.text if run else self.tab.input.text()

    def document(self) -> dict[str, Any]:
        """Every panel's matrix with its tokens, the numbers, and the difference map, as JSON."""
        tab = self.tab
        return grid_document(tab.panels, tab.difference, tab.view_bar, self._sentence(), tab.reference.text(),
                             tab.target_choice(), tab.explain)

    def export_to(self, kind: str, path: Path) -> Path:
        """Write ``kind`` ("png", "svg", "json") to ``path``; the path written (ExportError otherwise)."""
        self.tab.scheduler.flush()  # every map drawn before the figure is painted
        figure = GridFigure(list(self.tab.panels.values()), self._sentence(), self.tab.font())
        return export_grid(kind, figure, self.document, path)

    def ask_and_export(self, kind: str) -> None:
        """Ask where, then write ``kind`` there."""
        filters = {"png": self.tr("PNG image (*.png)"), "svg": self.tr("SVG drawing (*.svg)"), "json": "JSON (*.json)"}
        name, _ = QFileDialog.getSaveFileName(self.tab, self.tr("Export the comparison"),
                                              str(Path.home() / f"compare.{kind}"), filters[kind])
        if not name:
            return
        try:
            path = self.export_to(kind, Path(name))
        except ExportError as error:
            self.tab._set_status(str(error))
            return
        self.tab._set_status(self.tr("Saved %1").replace("%1", str(path)))
