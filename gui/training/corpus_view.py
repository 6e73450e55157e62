"""Preview of a corpus's first pairs and its data report (lines read, skipped with reasons)."""

from __future__ import annotations

import html

from PySide6.QtCore import QEvent, Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QLabel,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from gui.training.corpus import CorpusInspection

PROBLEM_STYLE = "color: #b00020;"


class CorpusPreview(QWidget):
    """A two-column table of the first lines and a report below it."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.table = QTableWidget(0, 2)
        self.table.setObjectName("corpusPreviewTable")
        self.table.setHorizontalHeaderLabels((self.tr("Column 1"), self.tr("Column 2")))
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().setVisible(False)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        self.table.setMaximumHeight(140)
        self.table.setToolTip(self.tr("The first lines of the corpus, as they are in the file"))
        self.report = QLabel("")
        self.report.setObjectName("corpusReportLabel")
        self.report.setWordWrap(True)
        self.report.setTextFormat(Qt.TextFormat.RichText)
        self.problem = QLabel("")
        self.problem.setObjectName("corpusProblemLabel")
        self.problem.setWordWrap(True)
        self.problem.setStyleSheet(PROBLEM_STYLE)
        self.problem.hide()
        self._inspection: CorpusInspection | None = None  # the look shown (made again in another language)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.table)
        layout.addWidget(self.problem)
        layout.addWidget(self.report)

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 (Qt's name)
        """The interface's language changed: the report, made of several messages, made again in it."""
        super().changeEvent(event)
        if event.type() == QEvent.Type.LanguageChange and self._inspection is not None:
            self.show_inspection(self._inspection)

    def show_inspection(self, inspection: CorpusInspection) -> None:
        """Render a (partial or complete) look at the corpus."""
        self._inspection = inspection
        entry = inspection.entry
        headers = ((self.tr("Source"), self.tr("Target")) if entry.is_task
                   else (self.tr("Column 1 (English)"), self.tr("Column 2 (Chinese)")))
        self.table.setHorizontalHeaderLabels(headers)
        self.table.setRowCount(len(inspection.rows))
        for row, (first, second) in enumerate(inspection.rows):
            self.table.setItem(row, 0, QTableWidgetItem(first))
            self.table.setItem(row, 1, QTableWidgetItem(second))
        lines = inspection.summary_lines()
        self.report.setText("<br>".join(html.escape(line).replace("  ", "&nbsp;&nbsp;") for line in lines))
        self.problem.setVisible(inspection.problem is not None)
        self.problem.setText(self.tr("Cannot train on this corpus: %1").replace("%1", inspection.problem)
                             if inspection.problem else "")

    def show_loading(self, label: str) -> None:
        self._inspection = None
        self.table.setRowCount(0)
        self.problem.hide()
        self.report.setText(html.escape(self.tr("Reading %1…").replace("%1", label)))

    def report_text(self) -> str:
        """The report and problem as plain text (for tests and accessibility)."""
        report = html.unescape(self.report.text().replace("<br>", "\n"))
        return "\n".join(t for t in (self.problem.text(), report) if t)
