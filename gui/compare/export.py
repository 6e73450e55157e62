"""Exports of the Compare view: the grid as one figure in PNG or SVG (its maps, labels, titles and colour
bars, no buttons: gui/compare/figure.py), every matrix with its tokens as one JSON document
(``grid_document``)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from PySide6.QtCore import QCoreApplication, QPoint, QRect
from PySide6.QtGui import QImage, QPainter
from PySide6.QtSvg import QSvgGenerator

from engine.files import write_bytes_atomic
from gui.attention.export import ExportError
from gui.attention.piece_map import word_document

if TYPE_CHECKING:
    from gui.attention.view_bar import MapViewBar
    from gui.compare.difference import DifferencePanel
    from gui.compare.explain_link import CompareExplain
    from gui.compare.figure import GridFigure
    from gui.compare.panel import ScorerPanel


def export_grid(kind: str, grid: GridFigure, document: Callable[[], dict[str, Any]], path: Path) -> Path:
    """Write the grid as ``kind`` ("png", "svg": the figure ``grid`` (gui/compare/figure.py), or "json": then
    ``document()``'s matrices) to ``path``."""
    if kind == "png":
        return export_grid_png(grid, path)
    if kind == "svg":
        return export_grid_svg(grid, path)
    if kind == "json":
        return export_grid_json(document(), path)
    raise ExportError(f"unknown export kind {kind!r}: choose png, svg or json")


def export_grid_png(grid: GridFigure, path: Path) -> Path:
    """Save the grid's figure as a PNG at ``path``; the path written (ExportError otherwise)."""
    path = Path(path)
    image = QImage(grid.size(), QImage.Format.Format_RGB32)
    painter = QPainter(image)
    try:
        grid.paint(painter)
    finally:
        painter.end()
    if not image.save(str(path), "PNG"):
        raise ExportError(QCoreApplication.translate("CompareExport", "cannot write %1").replace("%1", str(path)))
    return path


def export_grid_svg(grid: GridFigure, path: Path) -> Path:
    """Save the grid's figure as an SVG at ``path``; the path written (ExportError otherwise)."""
    path = Path(path)
    generator = QSvgGenerator()
    generator.setFileName(str(path))
    generator.setSize(grid.size())
    generator.setViewBox(QRect(QPoint(0, 0), grid.size()))
    generator.setTitle(QCoreApplication.translate("CompareExport", "Attention Studio: the scorers compared"))
    generator.setDescription(QCoreApplication.translate(
        "CompareExport", "One attention map per scorer over the same sentence; rows output tokens, columns source tokens."))
    painter = QPainter(generator)
    try:
        grid.paint(painter)
    finally:
        painter.end()
    if not path.is_file() or path.stat().st_size == 0:
        raise ExportError(QCoreApplication.translate("CompareExport", "cannot write %1").replace("%1", str(path)))
    return path


def export_grid_json(document: dict[str, Any], path: Path) -> Path:
    """Write the grid's numbers as JSON at ``path`` (atomically); the path written."""
    path = Path(path)
    try:
        write_bytes_atomic(path, (json.dumps(document, ensure_ascii=False, indent=1) + "\n").encode("utf-8"))
    except OSError as error:
        raise ExportError(QCoreApplication.translate("CompareExport", "cannot write %1: %2").replace("%1", str(path)).replace(
            "%2", str(error.strerror or error))) from None
    return path


def grid_document(panels: dict[str, ScorerPanel], difference: DifferencePanel, view_bar: MapViewBar,
                  sentence: str, reference: str, target: str, explain: CompareExplain | None = None) -> dict[str, Any]:
    """Every panel's matrix with its tokens and numbers, and the difference map, as one JSON document; while
    the maps show an attribution (``explain``), each panel's ``attribution`` too (gui/compare/explain_link.py)."""
    shown = []
    for scorer, panel in panels.items():
        record = explain.panel_record(scorer) if explain is not None else None
        shown.append({
            **({"attribution": record} if record is not None else {}),
            "scorer": scorer, "label": panel.slot.label, "formula": panel.slot.formula,
            "model": str(panel.slot.entry.folder) if panel.slot.entry else None,
            "earlier_weights": panel.slot.past or None, "forced": panel.forced,
            "source_tokens": list(panel.source_tokens), "tokens": list(panel.target_tokens),
            "output": panel.output_text, "numbers": panel.numbers.text(),
            "attention": None if panel.matrix is None else np.round(panel.matrix.astype(float), 6).tolist(),
            **word_document(panel.heatmap, panel.matrix),
        })
    matrix = difference.matrix
    return {
        "view": "words" if view_bar.word_view() else "pieces", "colour_scale": view_bar.scale_name(),
        "map": explain.method if explain is not None else "alpha",  # α or the attribution the maps showed
        "sentence": sentence, "reference": reference, "target": target, "panels": shown,
        "difference": None if matrix is None else {
            "a": difference.first.currentData(), "b": difference.second.currentData(),
            "matrix": np.round(matrix, 6).tolist()},
    }
