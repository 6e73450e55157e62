"""The bucket table of the length study: a few example inputs of one source-length bucket, with
the reference and every scorer's output; one click on a row's button (or a double click on the
row) asks for that input to be translated in the Translate view.

The inputs of the long buckets run to eight lines in a column: each row shows its first
ROW_LINES lines (every text whole in its tooltip), so that several rows are in view at 1280×800;
the column titles are the scorers' short names (the whole label in the title's tooltip).
"""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, Qt, Signal
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QTableWidget,
    QTableWidgetItem,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from engine.decoding import LOOP_COUNT, LOOP_NGRAM, most_repeated
from engine.settings import ScorerInfo  # torch-free
from gui.i18n import fill
from gui.scorer_labels import scorer_label
from gui.translate.length_study.model import MISSING_OUTPUT, TableRow

BUTTON_TEXT = QT_TRANSLATE_NOOP("StudyTable", "Translate ▸")
LOOP_TINT = "#fde2c8"  # the background of an output that loops



def looping_words(text: str, language: str) -> str:
    """'"w1 w2 w3" 3 times' when ``text`` loops (engine.decoding.repetition), else ""."""
    ngram, count = most_repeated(text, language)
    if count < LOOP_COUNT:
        return ""
    joined = "".join(ngram) if language == "zh" else " ".join(ngram)
    return fill(QCoreApplication.translate("StudyTable", "“%1” %2 times"), joined, count)


def button_tip(beam: int) -> str:
    """The row button's tooltip: the Translate view decodes the row as the study did, at ``beam``."""
    how = (QCoreApplication.translate("StudyTable", "greedily (beam 1)") if beam == 1 else
           QCoreApplication.translate("StudyTable", "with beam search (beam %1)").replace("%1", str(beam)))
    return QCoreApplication.translate(
        "StudyTable", "Load this input into the Translate view and watch it decode %1, as the outputs here were").replace(
        "%1", how)


# the button column, then the texts (shown through QCoreApplication.translate("StudyTable", …))
FIXED_COLUMNS = ("", QT_TRANSLATE_NOOP("StudyTable", "Source"), QT_TRANSLATE_NOOP("StudyTable", "Reference"))
SOURCE_COLUMN = 1
ROW_LINES = 2  # text lines a row shows at most (a 41–60-token input has eight)


def short_title(label: str) -> str:
    """A scorer's column title: its label without the parenthesis (``Bilinear (Luong "general")`` →
    ``Bilinear``)."""
    return label.split(" (", 1)[0]


class StudyTable(QTableWidget):
    """One row per example input; columns: button, source, reference, one output per scorer."""

    rowChosen = Signal(str)  # the source text of the chosen row
    ROW_PADDING = 4  # pixels above and below a row's text lines

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("lengthStudyTable")
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.setWordWrap(True)
        self.setAlternatingRowColors(True)
        self.verticalHeader().setVisible(False)
        self.horizontalHeader().setTextElideMode(Qt.TextElideMode.ElideRight)  # titles get a tooltip each
        self.setToolTip(fill(self.tr("Double-click a row (or press its button) to translate it in the Translate view; "
                                     "an output tinted orange loops (some word %1-gram %2 or more times)"),
                             LOOP_NGRAM, LOOP_COUNT))
        self.sources: list[str] = []
        self.references: list[str] = []  # per row, the source's reference translation
        self.beam = 1  # the beam size the shown outputs were decoded at
        self.cellDoubleClicked.connect(lambda row, _column: self.choose(row))

    def show_rows(self, columns: Sequence[ScorerInfo], rows: Sequence[TableRow], language: str = "") -> None:
        """Fill the table: ``columns`` are the scorers' registry rows, one output column each; an output in
        ``language`` that loops is tinted and its tooltip names the repeated words."""
        self.clear()
        width = self._set_headers(columns)
        self.setRowCount(len(rows))
        self.sources = [row.source for row in rows]
        self.references = [row.reference for row in rows]
        for index, row in enumerate(rows):
            self.setCellWidget(index, 0, self._button_cell(index))
            texts = [(row.source, row.source + "\n\n" + self.tr("%1 source sub-words").replace(
                "%1", str(row.source_length))),
                     (row.reference, row.reference), *((output, output) for output in row.outputs)]
            for column, (text, tip) in enumerate(texts, start=1):
                self.setItem(index, column, self._text_item(text, tip, language if column >= len(FIXED_COLUMNS) else ""))
        header = self.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        for column in range(1, width):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.Stretch)
        self._cap_row_heights(len(rows))

    def _set_headers(self, columns: Sequence[ScorerInfo]) -> int:
        """The fixed columns' titles, then one per scorer (short, its full label in the tooltip); how many."""
        fixed = [self.tr(title) if title else "" for title in FIXED_COLUMNS]
        labels = [scorer_label(row) for row in columns]
        headers = [*fixed, *labels]
        self.setColumnCount(len(headers))
        self.setHorizontalHeaderLabels([*fixed, *(short_title(title) for title in labels)])
        for column, title in enumerate(headers):
            self.horizontalHeaderItem(column).setToolTip(title)  # a narrow column's title is elided
        return len(headers)

    def _text_item(self, text: str, tip: str, language: str) -> QTableWidgetItem:
        """One cell's text; a missing output centred and explained; an output in ``language`` (an output
        column's; "" elsewhere) that loops tinted, its tooltip naming the repeated words."""
        item = QTableWidgetItem(text)
        item.setToolTip(tip)
        item.setTextAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
        if text == MISSING_OUTPUT:
            item.setToolTip(self.tr("This scorer's study has no row for this input"))
            item.setTextAlignment(Qt.AlignmentFlag.AlignCenter)
        elif language and (repeat := looping_words(text, language)):
            item.setBackground(QBrush(QColor(LOOP_TINT)))
            item.setToolTip(self.tr("Loops: %1").replace("%1", repeat) + f"\n\n{text}")
        return item

    def _cap_row_heights(self, count: int) -> None:
        """Rows as tall as their texts, up to ROW_LINES lines (the rest of a text is in its tooltip)."""
        self.resizeRowsToContents()
        tallest = self.fontMetrics().lineSpacing() * ROW_LINES + 2 * self.ROW_PADDING
        for index in range(count):
            if self.rowHeight(index) > tallest:
                self.setRowHeight(index, tallest)

    def set_beam(self, beam: int) -> None:
        """The outputs shown from now on were decoded at ``beam`` (the row buttons say so)."""
        self.beam = beam
        for index in range(self.rowCount()):
            if (button := self.row_button(index)) is not None:
                button.setToolTip(button_tip(beam))

    def _button_cell(self, index: int) -> QWidget:
        """Row ``index``'s button at the top of its cell, beside the first line of the texts (a row
        of a long input is taller than the table shows at first)."""
        button = QToolButton()
        button.setObjectName("lengthStudyRowButton")
        button.setText(self.tr(BUTTON_TEXT))
        button.setToolTip(button_tip(self.beam))
        button.clicked.connect(lambda _checked=False, index=index: self.choose(index))
        cell = QWidget()
        layout = QVBoxLayout(cell)
        layout.setContentsMargins(2, 2, 2, 2)
        layout.addWidget(button, 0, Qt.AlignmentFlag.AlignTop)
        return cell

    def row_button(self, index: int) -> QToolButton | None:
        widget = self.cellWidget(index, 0)
        return widget.findChild(QToolButton, "lengthStudyRowButton") if widget is not None else None

    def output_texts(self, index: int) -> list[str]:
        """The texts of row ``index`` after the button: source, reference, then the outputs."""
        return [self.item(index, column).text() for column in range(1, self.columnCount())]

    def reference_for(self, source: str) -> str:
        """The reference translation of ``source`` when a row shows it, else ""."""
        return next((ref for text, ref in zip(self.sources, self.references, strict=True) if text == source), "")

    def choose(self, index: int) -> None:
        """Ask for row ``index``'s source to be translated."""
        if 0 <= index < len(self.sources):
            self.rowChosen.emit(self.sources[index])
