"""Exports of the attention panel: the heatmap as PNG or SVG (pyqtgraph exporters), the matrix
with its tokens as CSV or JSON — or, while the map shows an attribution (gui/attention/attribution_view.py),
that attribution: the pictures as drawn, the CSV its matrix (its corner cell names the method), the JSON its
``attribution`` object beside ``attention`` (every step's source and prefix attributions, log p, the share on
the source, the contrastive ones; ``map`` says what the map showed).

The pictures are the map as drawn: its view (words or pieces) and its colour scale, which the
colour bar names. The JSON object uses the command line's ``translate --json`` keys (``source``,
``source_tokens``, ``tokens``, ``text``, ``attention``: always the model's pieces) plus the model's
scorer, direction and folder name, ``view`` (``words`` or ``pieces``), ``colour_scale`` (unit,
row, auto) and, in the word view, ``words``: the source and output words, their attention matrix
(α summed over a source word's pieces, averaged over an output word's) and that rule in words.
CSV: the matrix as the map shows it — a header row (corner cell, then the source tokens or
words) and one row per output token or word; the corner cell says which.
"""

from __future__ import annotations

import csv
import io
import json
import logging
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from pyqtgraph.exporters import ImageExporter, SVGExporter
from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, QRect
from PySide6.QtGui import QPainter
from PySide6.QtSvg import QSvgGenerator
from PySide6.QtWidgets import QWidget

from engine.files import write_bytes_atomic
from engine.text import MERGE_RULE
from gui.attention.attribution_math import SHORT_NAMES
from gui.attention.panel import AttentionPanel

log = logging.getLogger("attention_studio")
PNG_WIDTH = 1600  # pixels: sharp enough for slides and papers
CORNER = "output \\ source"
CORNER_WORDS = "output words \\ source words"


class ExportError(Exception):
    """Nothing to export, or the file could not be written; the message says which."""


def _require_rows(panel: AttentionPanel) -> None:
    if not panel.has_attention() and not panel.attribution.active:
        raise ExportError(QCoreApplication.translate(
            "AttentionExport", "this model has no attention weights (fixed context C): nothing to export"))
    if not panel.target_tokens():
        raise ExportError(QCoreApplication.translate(
            "AttentionExport", "translate a sentence first: there is no attention matrix yet"))


def export_png(panel: AttentionPanel, path: Path, width: int = PNG_WIDTH) -> Path:
    """The heatmap with its axes and colour bar as a PNG image."""
    _require_rows(panel)
    panel.render_now()
    exporter = ImageExporter(panel.heatmap.scene())
    exporter.parameters()["width"] = width
    return _export_with(lambda name: exporter.export(name), path)


def export_svg(panel: AttentionPanel, path: Path) -> Path:
    """The heatmap as SVG (vector axes and labels; the cells as an embedded image).

    pyqtgraph 0.14's SVG exporter cannot parse the closed paths ("… Z") that recent Qt versions
    write (pyqtgraph issue #3495); then Qt's own SVG generator draws the widget instead.
    """
    _require_rows(panel)
    panel.render_now()
    exporter = SVGExporter(panel.heatmap.scene())
    try:
        return _export_with(lambda name: exporter.export(name), path)
    except ValueError:
        log.info("pyqtgraph's SVG exporter failed (closed paths); using Qt's SVG generator")
        return _export_with(lambda name: _render_svg(panel.heatmap, name), path)


def _render_svg(widget: QWidget, name: str) -> None:
    generator = QSvgGenerator()
    generator.setFileName(name)
    generator.setSize(widget.size())
    generator.setViewBox(QRect(0, 0, widget.width(), widget.height()))
    generator.setTitle(QCoreApplication.translate("AttentionExport", "Attention heatmap"))
    generator.setDescription(QCoreApplication.translate(
        "AttentionExport", "Attention weights α_ij: rows are output tokens, columns source tokens."))
    painter = QPainter(generator)
    try:
        widget.render(painter)
    finally:
        painter.end()


def _export_with(write: Callable[[str], Any], path: Path) -> Path:
    path = Path(path)
    try:
        write(str(path))
    except OSError as error:
        raise ExportError(QCoreApplication.translate("AttentionExport", "cannot write %1: %2").replace("%1", str(path)).replace(
            "%2", str(error.strerror or error))) from None
    if not path.is_file() or path.stat().st_size == 0:
        raise ExportError(QCoreApplication.translate("AttentionExport", "cannot write %1").replace("%1", str(path)))
    return path


def matrix_csv(panel: AttentionPanel) -> str:
    """The matrix in the map's view: pieces, or words (merged, engine/text/words.py)."""
    _require_rows(panel)
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    corner, columns, rows, cells = _attribution_table(panel) if panel.attribution.active else _attention_table(panel)
    writer.writerow([corner, *columns])
    for token, row in zip(rows, cells, strict=True):
        writer.writerow([token, *row])
    return buffer.getvalue()


def _attribution_table(panel: AttentionPanel) -> tuple[str, list[str], list[str], list[list[str]]]:
    """The attribution the map shows as (corner, columns, rows, cells); "" where a step is not computed yet."""
    words = panel.word_view()
    corner = f"{SHORT_NAMES[panel.attribution.method]}: {CORNER_WORDS if words else CORNER}"
    columns = panel.source_words() if words else panel.source_tokens()
    rows = panel.target_words() if words else panel.target_tokens()
    cells = [["" if np.isnan(value) else f"{float(value):.6f}" for value in row]
             for row in panel.attribution.shown_matrix(panel.units())]
    return corner, columns, rows, cells


def _attention_table(panel: AttentionPanel) -> tuple[str, list[str], list[str], list[list[str]]]:
    """α in the map's view (pieces, or words) as (corner, columns, rows, cells)."""
    if panel.word_view():
        corner, columns, rows, matrix = CORNER_WORDS, panel.source_words(), panel.target_words(), panel.word_attention()
    else:
        corner, columns, rows, matrix = CORNER, panel.source_tokens(), panel.target_tokens(), panel.attention()
    return corner, columns, rows, [[f"{float(value):.6f}" for value in row] for row in matrix]


def matrix_json(panel: AttentionPanel, metadata: dict[str, Any] | None = None) -> dict[str, Any]:
    """The panel's attention matrix (tokens, weights, and ``metadata``) as a JSON document."""
    _require_rows(panel)
    document = {
        **(metadata or {}),
        "source_tokens": panel.source_tokens(),
        "tokens": panel.target_tokens(),
        "attention": _rounded(panel.attention()),
        "view": "words" if panel.word_view() else "pieces",
        "colour_scale": panel.color_scale(),
    }
    if panel.word_view():
        document["words"] = {"source": panel.source_words(), "tokens": panel.target_words(),
                             "attention": _rounded(panel.word_attention()), "rule": MERGE_RULE}
    document["map"] = panel.attribution.method  # what the map showed: alpha, ig, grad or occlusion
    attribution = panel.attribution.export_record()
    if attribution is not None:  # pieces, as "attention"; in the word view its map too (null: not computed)
        document["attribution"] = attribution
        if panel.word_view():
            document["words"]["attribution"] = [[None if np.isnan(v) else round(float(v), 6) for v in row]
                                                for row in panel.attribution.shown_matrix(panel.units())]
    return document


def _rounded(matrix) -> list[list[float]]:
    return [[round(float(v), 6) for v in row] for row in matrix]


def export_csv(panel: AttentionPanel, path: Path) -> Path:
    """Write the panel's attention matrix as CSV to ``path``; the path written."""
    return _write_text(Path(path), matrix_csv(panel))


def export_json(panel: AttentionPanel, path: Path, metadata: dict[str, Any] | None = None) -> Path:
    """Write the panel's attention matrix as JSON to ``path``; the path written."""
    text = json.dumps(matrix_json(panel, metadata), ensure_ascii=False, indent=1) + "\n"
    return _write_text(Path(path), text)


def _write_text(path: Path, text: str) -> Path:
    try:
        write_bytes_atomic(path, text.encode("utf-8"))
    except OSError as error:
        raise ExportError(QCoreApplication.translate("AttentionExport", "cannot write %1: %2").replace("%1", str(path)).replace(
            "%2", str(error.strerror or error))) from None
    return path


@dataclass(frozen=True)
class ExportKind:
    """One export format: its file-dialog filter, file suffix and writer (``title`` and ``file_filter`` in
    the interface's language; the fields hold their English, marked for translation)."""

    english_title: str
    english_filter: str
    suffix: str
    write: Callable[[AttentionPanel, Path, dict[str, Any]], Path]

    @property
    def title(self) -> str:
        return QCoreApplication.translate("ExportKind", self.english_title)

    @property
    def file_filter(self) -> str:
        return QCoreApplication.translate("ExportKind", self.english_filter)


def _recorded(kind: str) -> Callable[[AttentionPanel, Path, dict[str, Any]], Path]:
    """The writer of a recording of the decode (gui.attention.recording: GIF, MP4, session file)."""
    def write(panel: AttentionPanel, path: Path, metadata: dict[str, Any]) -> Path:
        from gui.attention.recording import write_recording

        return write_recording(kind, panel, path, metadata)

    return write


EXPORT_KINDS: dict[str, ExportKind] = {
    "png": ExportKind(QT_TRANSLATE_NOOP("ExportKind", "Heatmap as PNG…"),
                      QT_TRANSLATE_NOOP("ExportKind", "PNG image (*.png)"), ".png", lambda p, f, m: export_png(p, f)),
    "svg": ExportKind(QT_TRANSLATE_NOOP("ExportKind", "Heatmap as SVG…"),
                      QT_TRANSLATE_NOOP("ExportKind", "SVG drawing (*.svg)"), ".svg", lambda p, f, m: export_svg(p, f)),
    "csv": ExportKind(QT_TRANSLATE_NOOP("ExportKind", "Matrix as CSV…"),
                      QT_TRANSLATE_NOOP("ExportKind", "CSV table (*.csv)"), ".csv", lambda p, f, m: export_csv(p, f)),
    "json": ExportKind(QT_TRANSLATE_NOOP("ExportKind", "Matrix as JSON…"), "JSON (*.json)", ".json", export_json),
    "gif": ExportKind(QT_TRANSLATE_NOOP("ExportKind", "Decode as animated GIF…"),
                      QT_TRANSLATE_NOOP("ExportKind", "GIF animation (*.gif)"), ".gif", _recorded("gif")),
    "mp4": ExportKind(QT_TRANSLATE_NOOP("ExportKind", "Decode as MP4 video…"),
                      QT_TRANSLATE_NOOP("ExportKind", "MP4 video (*.mp4)"), ".mp4", _recorded("mp4")),
    "session": ExportKind(QT_TRANSLATE_NOOP("ExportKind", "Decode as a session file…"),
                          QT_TRANSLATE_NOOP("ExportKind", "Attention Studio session (*.session.json)"),
                          ".session.json", _recorded("session")),
}
