"""The table of runs: settings, status and best validation BLEU of each, in its curve colour.

Ticking a row's first cell shows or hides that run's curves; selecting a row shows its attention
snapshots.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, QEvent, Qt, Signal
from PySide6.QtGui import QColor, QIcon, QPixmap
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QTableWidget, QTableWidgetItem, QWidget

from engine.settings import scorer_row
from engine.text import format_duration, format_tokens  # torch-free
from gui.scorer_labels import scorer_label
from gui.training.records import RunRecord

if TYPE_CHECKING:
    from engine.settings import TrainConfig

COLUMNS = (QT_TRANSLATE_NOOP("RunsTable", "Run"), QT_TRANSLATE_NOOP("RunsTable", "Corpus"),
           QT_TRANSLATE_NOOP("RunsTable", "Direction"), QT_TRANSLATE_NOOP("RunsTable", "Scorer"),
           QT_TRANSLATE_NOOP("RunsTable", "Cell"), QT_TRANSLATE_NOOP("RunsTable", "Emb/Hidden"),
           QT_TRANSLATE_NOOP("RunsTable", "Budget"), QT_TRANSLATE_NOOP("RunsTable", "Status"),
           QT_TRANSLATE_NOOP("RunsTable", "Best valid BLEU"), QT_TRANSLATE_NOOP("RunsTable", "Test BLEU"),
           QT_TRANSLATE_NOOP("RunsTable", "Steps"), QT_TRANSLATE_NOOP("RunsTable", "Time"))


def budget_text(train: TrainConfig) -> str:
    """The run's budget as the table shows it: the token, time or step budget when one is set (the
    epochs are then only a cap), else the epochs."""
    if train.max_target_tokens > 0:
        text, value = QCoreApplication.translate("RunsTable", "%1 tokens"), format_tokens(train.max_target_tokens)
    elif train.max_minutes > 0:
        text, value = QCoreApplication.translate("RunsTable", "%1 min"), f"{train.max_minutes:g}"
    elif train.max_steps > 0:
        text, value = QCoreApplication.translate("RunsTable", "%1 steps"), f"{train.max_steps:,}"
    else:
        text, value = QCoreApplication.translate("RunsTable", "%1 epochs"), str(train.epochs)
    return text.replace("%1", value)


def _swatch(colour: str) -> QIcon:
    pixmap = QPixmap(12, 12)
    pixmap.fill(QColor(colour))
    return QIcon(pixmap)


class RunsTable(QTableWidget):
    """One row per run of this session (resumed runs included)."""

    runSelected = Signal(int)  # row index
    visibilityChanged = Signal(int, bool)  # row index, curves shown

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(0, len(COLUMNS), parent)
        self.setObjectName("trainingRunsTable")
        self.setHorizontalHeaderLabels([self.tr(column) for column in COLUMNS])
        self.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.verticalHeader().setVisible(False)
        header = self.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setStretchLastSection(True)
        self.setToolTip(self.tr("Runs of this session. Tick a run to show its curves; select it to see its attention."))
        self._records: list[RunRecord] = []
        self.itemChanged.connect(self._item_changed)
        self.itemSelectionChanged.connect(self._selection_changed)

    def add_run(self, record: RunRecord) -> int:
        """Append a row for ``record`` and select it; returns its row."""
        row = len(self._records)
        self._records.append(record)
        self.blockSignals(True)
        self.insertRow(row)
        for column in range(len(COLUMNS)):
            self.setItem(row, column, QTableWidgetItem(""))
        name = self.item(row, 0)
        name.setIcon(_swatch(record.colour))
        name.setFlags(name.flags() | Qt.ItemFlag.ItemIsUserCheckable)
        name.setCheckState(Qt.CheckState.Checked)
        self.blockSignals(False)
        self.update_run(record)
        self.selectRow(row)
        return row

    def update_run(self, record: RunRecord) -> None:
        """Refresh the row of ``record``."""
        if record not in self._records:
            return
        row = self._records.index(record)
        s = record.settings
        best = record.best_bleu
        values = (
            record.name, s.corpus_label, s.direction_label, scorer_label(scorer_row(s.model.scorer)), s.model.cell.upper(),
            f"{s.model.embedding_size}/{s.model.decoder_hidden_size}", budget_text(s.train), record.status,
            "–" if best is None else f"{best:.2f}",
            "–" if record.test_bleu is None else f"{record.test_bleu:.2f}",
            f"{record.last_step.step:,}" if record.last_step else "0", format_duration(record.elapsed),
        )
        self.blockSignals(True)
        for column, value in enumerate(values):
            item = self.item(row, column)
            if item.text() != value:
                item.setText(value)
        tip = f"{record.folder}" + (f"\n{record.error}" if record.error else "")
        self.item(row, 0).setToolTip(tip)
        self.item(row, 7).setToolTip(record.error or "")
        self.blockSignals(False)

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 (Qt's name)
        """The interface's language changed: the headers and every row (budgets, statuses) in it."""
        super().changeEvent(event)
        if event.type() == QEvent.Type.LanguageChange:
            self.setHorizontalHeaderLabels([self.tr(column) for column in COLUMNS])
            for record in self._records:
                self.update_run(record)

    def records(self) -> list[RunRecord]:
        return list(self._records)

    def selected_row(self) -> int:
        rows = self.selectionModel().selectedRows()
        return rows[0].row() if rows else -1

    def _item_changed(self, item: QTableWidgetItem) -> None:
        if item.column() == 0:
            self.visibilityChanged.emit(item.row(), item.checkState() == Qt.CheckState.Checked)

    def _selection_changed(self) -> None:
        row = self.selected_row()
        if row >= 0:
            self.runSelected.emit(row)
