"""Exports of the Compare view: the whole grid as one PNG or SVG, every matrix with its tokens as
one JSON document."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from PySide6.QtCore import QPoint, QRect
from PySide6.QtGui import QPainter
from PySide6.QtSvg import QSvgGenerator
from PySide6.QtWidgets import QWidget

from engine.atomic import write_bytes_atomic
from gui.attention.export import ExportError


def export_grid_png(grid: QWidget, path: Path) -> Path:
    path = Path(path)
    if not grid.grab().save(str(path), "PNG"):
        raise ExportError(f"cannot write {path}")
    return path


def export_grid_svg(grid: QWidget, path: Path) -> Path:
    path = Path(path)
    generator = QSvgGenerator()
    generator.setFileName(str(path))
    generator.setSize(grid.size())
    generator.setViewBox(QRect(0, 0, grid.width(), grid.height()))
    generator.setTitle("Attention Studio: the scorers compared")
    generator.setDescription("One attention map per scorer over the same sentence; rows output tokens, "
                             "columns source tokens.")
    painter = QPainter(generator)
    try:
        grid.render(painter, QPoint(0, 0))
    finally:
        painter.end()
    if not path.is_file() or path.stat().st_size == 0:
        raise ExportError(f"cannot write {path}")
    return path


def export_grid_json(document: dict[str, Any], path: Path) -> Path:
    path = Path(path)
    try:
        write_bytes_atomic(path, (json.dumps(document, ensure_ascii=False, indent=1) + "\n").encode("utf-8"))
    except OSError as error:
        raise ExportError(f"cannot write {path}: {error.strerror or error}") from None
    return path
