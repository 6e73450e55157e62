"""The Train tab: pick a corpus and settings, start a run, watch its curves and attention learn,
compare runs, and export what was measured.

The main window relies on this interface: ``TrainingPanel(parent=None)``, the ``modelSaved(str)``
signal (a model folder was written: rescan the models), :meth:`TrainingPanel.is_training` and
:meth:`TrainingPanel.stop_and_wait` (used when the window closes during a run).
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QEvent, Qt, Signal
from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import (
    QComboBox,
    QFileDialog,
    QFrame,
    QHBoxLayout,
    QLabel,
    QProgressBar,
    QPushButton,
    QScrollArea,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from engine.settings import ConfigError
from engine.text import format_duration
from gui.training.controller import TrainingController
from gui.training.corpus import CorpusEntry, CorpusInspection
from gui.training.curves import CurvesView
from gui.training.form import TrainingForm
from gui.training.progress import run_progress
from gui.training.records import RunRecord, write_metrics_csv
from gui.training.runs_table import RunsTable
from gui.training.snapshots import SnapshotView
from gui.training.travel import CurveClicks, step_at

MESSAGE_STYLES = {
    "info": "background: #eef5ff; border: 1px solid #b8d4f5; border-radius: 3px; padding: 4px;",
    "error": "background: #fdecea; border: 1px solid #f5b8b0; border-radius: 3px; padding: 4px; color: #8a1c12;",
}


class TrainingPanel(QWidget):
    """The Training view (form, controls, curves, attention snapshots, runs table)."""

    modelSaved = Signal(str)  # a run wrote its model folder (each new best model and at the end)
    runFinished = Signal(str)  # a run's thread has ended (its folder path)
    pointChosen = Signal(str, float)  # a curve was clicked: the shown run's folder and the step there

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("trainingPanel")
        self.controller = TrainingController(self)
        self.form = TrainingForm()
        self.curves = CurvesView()
        self.controller.window_busy = self.curves.has_pending
        self.snapshots = SnapshotView()
        self.table = RunsTable()
        self._shown_run: RunRecord | None = None
        self._inspection: CorpusInspection | None = None
        self._build_controls()
        self._build_layout()
        self._wire()
        self.controller.inspect(self.form.current_entry())
        self._refresh_resumable()
        self._update_buttons()

    # -- construction ---------------------------------------------------------------------------
    def _build_controls(self) -> None:
        self.start_button = QPushButton(self.tr("Start training"))
        self.start_button.setObjectName("startTrainingButton")
        self.start_button.setToolTip(self.tr("Train a new model with these settings in the background"))
        self.pause_button = QPushButton(self.tr("Pause"))
        self.pause_button.setObjectName("pauseTrainingButton")
        self.pause_button.setToolTip(self.tr("Pause after the current batch (the clock stops too); press again to resume"))
        self.stop_button = QPushButton(self.tr("Stop"))
        self.stop_button.setObjectName("stopTrainingButton")
        self.stop_button.setToolTip(self.tr("Stop after the current batch, keeping the best model and a checkpoint to "
                                            "resume from"))
        self.resume_combo = QComboBox()
        self.resume_combo.setObjectName("resumeRunCombo")
        self.resume_combo.setToolTip(self.tr("Runs that were interrupted; they continue from their checkpoint with the "
                                             "settings they were started with"))
        self.resume_button = QPushButton(self.tr("Resume run"))
        self.resume_button.setObjectName("resumeTrainingButton")
        self.resume_button.setToolTip(self.tr("Continue the selected interrupted run from its checkpoint"))
        self.open_run_button = QPushButton(self.tr("Open run…"))
        self.open_run_button.setObjectName("openRunButton")
        self.open_run_button.setToolTip(self.tr("Watch a run started elsewhere (the command line, torchrun, a folder "
                                                "synced from a GPU server): its curves and attention snapshots follow "
                                                "its metrics log, live and read only"))
        self.progress = QProgressBar()
        self.progress.setObjectName("trainingProgressBar")
        self.progress.setRange(0, 1000)
        self.progress.setValue(0)
        self.progress.setTextVisible(True)
        self.progress.setFormat(self.tr("idle"))
        self.status_label = QLabel(self.tr("Choose a corpus and settings, then start training."))
        self.status_label.setObjectName("trainingStatusLabel")
        self.status_label.setWordWrap(True)
        self.message_label = QLabel("")
        self.message_label.setObjectName("trainingMessageLabel")
        self.message_label.setWordWrap(True)
        self.message_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.message_label.hide()

    def _build_layout(self) -> None:
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        scroll.setWidget(self.form)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        # Never narrower than the form: it scrolls up and down, and must not be cut off at the side.
        form_width = self.form.minimumSizeHint().width() + scroll.verticalScrollBar().sizeHint().width() + 4
        scroll.setMinimumWidth(form_width)
        buttons = QHBoxLayout()
        for button in (self.start_button, self.pause_button, self.stop_button):
            buttons.addWidget(button)
        resume_row = QHBoxLayout()
        resume_row.addWidget(self.resume_combo, 1)
        resume_row.addWidget(self.resume_button)
        resume_row.addWidget(self.open_run_button)
        left = QWidget()
        left_layout = QVBoxLayout(left)
        left_layout.setContentsMargins(0, 0, 4, 0)
        left_layout.addWidget(scroll, 1)
        left_layout.addLayout(resume_row)
        left_layout.addLayout(buttons)
        left_layout.addWidget(self.progress)
        left_layout.addWidget(self.status_label)
        left_layout.addWidget(self.message_label)
        left.setMinimumWidth(max(340, form_width + 4))
        top = QSplitter(Qt.Orientation.Horizontal)
        top.addWidget(self.curves)
        top.addWidget(self.snapshots)
        top.setStretchFactor(0, 3)
        top.setStretchFactor(1, 2)
        top.setSizes([600, 420])
        right = QSplitter(Qt.Orientation.Vertical)
        right.addWidget(top)
        right.addWidget(self.table)
        right.setStretchFactor(0, 4)
        right.setStretchFactor(1, 1)
        right.setSizes([700, 170])
        main = QSplitter(Qt.Orientation.Horizontal)
        main.addWidget(left)
        main.addWidget(right)
        main.setStretchFactor(0, 0)
        main.setStretchFactor(1, 1)
        main.setSizes([max(370, form_width + 8), 1030])
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.addWidget(main)

    def _wire(self) -> None:
        c = self.controller
        self.start_button.clicked.connect(self.start)
        self.pause_button.clicked.connect(self._toggle_pause)
        self.stop_button.clicked.connect(c.stop)
        self.resume_button.clicked.connect(self._resume_selected)
        self.open_run_button.clicked.connect(self._open_run)
        self.form.corpusChanged.connect(self._corpus_changed)
        c.inspected.connect(self._show_inspection)
        c.runAdded.connect(self._run_added)
        c.runChanged.connect(self._run_changed)
        c.validated.connect(self._validated)
        c.diverged.connect(self.curves.mark_diverged)
        c.runEnded.connect(self._run_ended)
        c.stateChanged.connect(self._update_buttons)
        c.message.connect(self.show_message)
        c.modelSaved.connect(self.modelSaved)
        self.curves.smoothingChanged.connect(self._set_smoothing)
        self.curves.exportPngRequested.connect(self._export_png_dialog)
        self.curves.exportCsvRequested.connect(self._export_csv_dialog)
        self.table.runSelected.connect(self._show_run)
        self.clicks = CurveClicks(self.curves)
        self.clicks.clicked.connect(self._curve_clicked)
        self.table.visibilityChanged.connect(
            lambda row, visible: self.curves.set_run_visible(self.table.records()[row], visible))

    def showEvent(self, event: QShowEvent) -> None:  # noqa: N802 - Qt override
        """The first time the tab is shown, the training stack warms up in the background."""
        super().showEvent(event)
        self.controller.warm_up()

    # -- the main window's interface --------------------------------------------------------------
    def is_training(self) -> bool:
        """True while a run's thread is alive."""
        return self.controller.is_training()

    def stop_and_wait(self, timeout_ms: int = 5000) -> bool:
        """Stop the run (a resumable checkpoint is saved) and wait for its thread; True if ended."""
        return self.controller.stop_and_wait(timeout_ms)

    # -- actions -----------------------------------------------------------------------------------
    def start(self) -> None:
        """Start a run (or one per scorer) with the form's settings."""
        if self.is_training():
            return
        try:
            settings = self.form.settings()  # the engine's settings objects check themselves
        except ConfigError as error:
            self.show_message("error", self.tr("Cannot start training: %1").replace("%1", str(error)))
            return
        self.message_label.hide()
        self.controller.start(settings)

    def _toggle_pause(self) -> None:
        if self.controller.is_paused():
            self.controller.resume()
        else:
            self.controller.pause()

    def _resume_selected(self) -> None:
        run = self.resume_combo.currentData()
        if run is not None and not self.is_training():
            self.message_label.hide()
            self.controller.resume_run(run)

    def export_curves_png(self, path: Path) -> bool:
        """Save the plots as PNG; shows an error naming the path when that fails."""
        if self.curves.export_png(Path(path)):
            self.show_message("info", self.tr("Curves saved to %1").replace("%1", str(path)))
            return True
        self.show_message("error", self.tr("Could not write the image %1").replace("%1", str(path)))
        return False

    def export_metrics_csv(self, path: Path) -> bool:
        """Save every run's metrics as CSV; shows an error naming the path when that fails."""
        try:
            write_metrics_csv(Path(path), self.table.records())
        except OSError as error:
            self.show_message("error", self.tr("Could not write %1: %2").replace("%1", str(path)).replace(
                "%2", str(error.strerror or error)))
            return False
        self.show_message("info", self.tr("Metrics of %1 run(s) saved to %2").replace(
            "%1", str(len(self.table.records()))).replace("%2", str(path)))
        return True

    def _export_png_dialog(self) -> None:
        name, _ = QFileDialog.getSaveFileName(self, self.tr("Export curves"), str(Path.home() / "training-curves.png"),
                                              self.tr("PNG image (*.png)"))
        if name:
            self.export_curves_png(Path(name))

    def _export_csv_dialog(self) -> None:
        name, _ = QFileDialog.getSaveFileName(self, self.tr("Export metrics"), str(Path.home() / "training-metrics.csv"),
                                              self.tr("CSV (*.csv)"))
        if name:
            self.export_metrics_csv(Path(name))

    # -- reactions -----------------------------------------------------------------------------------
    def show_message(self, kind: str, text: str) -> None:
        """An inline message above the controls (never a modal box: training goes on)."""
        self.message_label.setStyleSheet(MESSAGE_STYLES.get(kind, MESSAGE_STYLES["info"]))
        self.message_label.setProperty("kind", kind)
        self.message_label.setText(text)
        self.message_label.show()

    def _corpus_changed(self, entry: CorpusEntry) -> None:
        self._inspection = None
        if not entry.is_task:
            self.form.preview.show_loading(entry.label)
        self.controller.inspect(entry)
        self._update_buttons()

    def _show_inspection(self, inspection: CorpusInspection) -> None:
        self._inspection = inspection
        self.form.preview.show_inspection(inspection)
        self._update_buttons()

    def _open_run(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, self.tr("Open a training run's folder"),
                                                  str(self.controller.models_folder()))
        if folder:
            self.controller.watch_run(Path(folder))

    def _run_added(self, record: RunRecord) -> None:
        self.curves.add_run(record)
        self.table.add_run(record)
        self._show_run(self.table.records().index(record))  # its progress, too

    def _run_changed(self, record: RunRecord) -> None:
        self.curves.update_run(record)
        self.table.update_run(record)
        if record is self._shown_run:  # the bar and the status line follow the run shown: trained or watched
            self._update_progress(record)

    def _validated(self, record: RunRecord) -> None:
        self.curves.update_run(record)
        self.table.update_run(record)
        if record is self._shown_run:
            self.snapshots.snapshot_added(record.snapshots)

    def _run_ended(self, record: RunRecord) -> None:
        if record is self._shown_run:
            self._update_progress(record)
        self._refresh_resumable()
        self.runFinished.emit(str(record.folder))

    def _show_run(self, row: int) -> None:
        records = self.table.records()
        if 0 <= row < len(records) and records[row] is not self._shown_run:
            self._shown_run = records[row]
            self.snapshots.set_snapshots(self._shown_run.snapshots)
            self._update_progress(self._shown_run)

    def _curve_clicked(self, x: float) -> None:
        """A click on a curve: the step there of the run shown (its weights are loaded for Translate)."""
        record = self._shown_run
        step = step_at(record, x, self.curves.x_mode) if record is not None else None
        if record is not None and step is not None:
            self.pointChosen.emit(str(record.folder), step)

    def _set_smoothing(self, weight: float) -> None:
        for record in self.table.records():
            record.set_smoothing(weight)
            self.curves.update_run(record)

    def _refresh_resumable(self) -> None:
        runs = self.controller.resumable()
        self.resume_combo.clear()
        for run in runs:
            self.resume_combo.addItem(run.label, run)
        if not runs:
            self.resume_combo.addItem(self.tr("No interrupted runs to resume"), None)
        self._update_buttons()

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 (Qt's name)
        """The interface's language changed: the buttons and the run's progress and status line in it."""
        super().changeEvent(event)
        if event.type() == QEvent.Type.LanguageChange:
            self._update_buttons()

    def _update_buttons(self) -> None:
        training = self.is_training()
        paused = self.controller.is_paused()
        usable = self._inspection is None or self._inspection.usable
        self.start_button.setEnabled(not training and usable)
        self.start_button.setToolTip(self.tr("Train a new model with these settings in the background") if usable else
                                     self.tr("This corpus cannot be used: %1").replace("%1", self._inspection.problem))
        self.pause_button.setEnabled(training)
        self.pause_button.setText(self.tr("Resume") if paused else self.tr("Pause"))
        self.stop_button.setEnabled(training)
        self.resume_button.setEnabled(not training and self.resume_combo.currentData() is not None)
        if self._shown_run is not None:
            self._update_progress(self._shown_run)

    def _update_progress(self, record: RunRecord) -> None:
        """Progress bar and status line from the newest step of ``record``."""
        event = record.last_step
        progress = run_progress(record.settings.train, event, record.finished, record.phase, record.status)
        self.progress.setValue(round(progress.fraction * 1000))
        self.progress.setFormat(progress.text)
        if event is None:
            self.status_label.setText(f"{record.name}: {record.status}")
            return
        loss = f"{event.loss:.3f}" if event.loss == event.loss else self.tr("NaN (step skipped)")
        best = record.best_bleu
        best_text = self.tr(" · best BLEU %1").replace("%1", f"{best:.1f}") if best is not None else ""
        self.status_label.setText(f"{record.name}: {record.status} · " + self.tr("loss %1 · %2 tok/s · %3 elapsed").replace(
            "%1", loss).replace("%2", f"{event.tokens_per_second:,.0f}").replace("%3", format_duration(record.elapsed))
            + best_text)
