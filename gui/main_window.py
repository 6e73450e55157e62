"""The main window: the "Translate", "Train" and "Compare" tabs, the status bar, and the close protocol.

At start-up from ``main.py`` the Training tab is built once PyTorch has been imported in the
background, so that the window appears at once; :func:`gui.app.create_window` builds it at once.

Closing: if a model is being trained, ask whether to stop it (``confirm_stop_training`` decides
without a dialog when set, e.g. in tests); then stop the decoding and loading jobs and the
training run with bounded waits. Threads are always asked to stop, never terminated.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QByteArray, QSettings, Qt, Signal
from PySide6.QtGui import QCloseEvent, QKeySequence
from PySide6.QtWidgets import QLabel, QMainWindow, QMessageBox, QTabWidget, QWidget

from gui.compare.tab import CompareTab
from gui.fonts import NO_CJK_WARNING
from gui.screen_fit import fit_to_screen
from gui.translate.tab import TranslateTab

if TYPE_CHECKING:
    from gui.training.panel import TrainingPanel

TRAIN_TAB = 1  # index of the "Train" tab
COMPARE_TAB = 2  # index of the "Compare" tab (its models load the first time it is shown)
DECODE_STOP_MS = 3000  # a decoding step is milliseconds; a model load cannot be interrupted
TRAINING_STOP_MS = 10000
log = logging.getLogger("attention_studio")


class MainWindow(QMainWindow):
    errorReported = Signal(str, str, str)  # title, message, details

    def __init__(self, pinned_folder: Path | None = None, cjk_family: str | None = "",
                 defer_training: bool = False, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("mainWindow")
        self.setWindowTitle("Attention Studio")
        fit_to_screen(self, 1280, 860)  # or less: the status bar stays on a 1280×800 or 1280×720 screen
        self._pinned_folder = pinned_folder
        # None: ask with a dialog; True/False or a callable returning it: the answer (tests, scripts).
        self.confirm_stop_training: bool | Callable[[], bool] | None = None
        self._closing = False
        self.tabs = QTabWidget()
        self.tabs.setObjectName("mainTabs")
        self.translate_tab = TranslateTab()
        self.training_panel: TrainingPanel | None = None
        self.tabs.addTab(self.translate_tab, "Translate")
        placeholder = QLabel("Loading the training tools…")
        placeholder.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.tabs.addTab(placeholder, "Train")
        self.compare_tab = CompareTab()
        self.tabs.addTab(self.compare_tab, "Compare")
        self._compare_started = False
        self._engine_ready = not defer_training
        self.tabs.currentChanged.connect(self._on_tab_changed)
        self.setCentralWidget(self.tabs)
        # A normal widget, not a permanent one: a temporary message (a model saved, a sentence copied)
        # takes the whole bar for its few seconds instead of being cut off beside the model's line.
        self.statusBar().addWidget(self.translate_tab.status, 1)
        if cjk_family is None:
            warning = QLabel("⚠ No Chinese font")
            warning.setObjectName("fontWarning")
            warning.setToolTip(NO_CJK_WARNING)
            self.statusBar().addPermanentWidget(warning)
            log.warning(NO_CJK_WARNING)
        self.translate_tab.trainRequested.connect(lambda: self.tabs.setCurrentIndex(TRAIN_TAB))
        self.translate_tab.compareRequested.connect(self._compare_from_translate)
        self.translate_tab.errorReported.connect(self.errorReported)
        self.translate_tab.statusMessage.connect(lambda text: self.statusBar().showMessage(text, 6000))
        self._add_shortcuts()
        if defer_training:
            self.translate_tab.controller.engineReady.connect(self._on_engine_ready)
        else:
            self.build_training_panel()

    def _on_engine_ready(self) -> None:
        """The engine is imported: the Training tab can be built — now if it is the tab on screen,
        else when it is first chosen (building it takes about half a second of the window's
        thread, which the first translation should not wait for)."""
        self._engine_ready = True
        if self.tabs.currentIndex() == TRAIN_TAB:
            self.build_training_panel()

    def build_training_panel(self) -> TrainingPanel | None:
        """Put the Training tab in place (deferred at start-up until PyTorch has been imported in
        the background and the tab is first chosen, so that the window appears at once and the
        first model loads without waiting for it)."""
        if self.training_panel is None and not self._closing:
            from gui.training.panel import TrainingPanel

            current = self.tabs.currentIndex()
            panel = TrainingPanel()
            panel.modelSaved.connect(self._on_model_saved)
            panel.pointChosen.connect(self._travel)
            self.training_panel = panel  # before the tabs change: changing them calls this again
            placeholder = self.tabs.widget(TRAIN_TAB)
            self.tabs.removeTab(TRAIN_TAB)
            self.tabs.insertTab(TRAIN_TAB, panel, "Train")
            self.tabs.setCurrentIndex(current)
            placeholder.deleteLater()
        return self.training_panel

    def _add_shortcuts(self) -> None:
        quit_action = self.addAction("Quit")
        quit_action.setShortcut(QKeySequence.StandardKey.Quit)
        quit_action.triggered.connect(self.close)

    def start(self) -> None:
        """Look for models and load the first one (in the background)."""
        self.translate_tab.start(self._pinned_folder)

    def _on_tab_changed(self, index: int) -> None:
        if index == COMPARE_TAB:
            self.start_compare()
        elif index == TRAIN_TAB and self._engine_ready:
            self.build_training_panel()

    def start_compare(self) -> None:
        """Load the Compare tab's models (once), for the direction the Translate tab shows."""
        if self._compare_started or self._closing:
            return
        self._compare_started = True
        entry = self.translate_tab.controller.entry
        self.compare_tab.start(entry.direction if entry is not None else "zh-en")

    def _compare_from_translate(self, text: str) -> None:
        entry = self.translate_tab.controller.entry
        if entry is not None and self._compare_started:
            self.compare_tab.controller.set_direction(entry.direction)
        if text.strip():
            self.compare_sentence(text, self.translate_tab.reference_for(text))
        else:
            self.tabs.setCurrentIndex(COMPARE_TAB)

    def compare_sentence(self, text: str, reference: str = "") -> None:
        """Show the Compare tab with ``text`` decoded by every scorer."""
        self.tabs.setCurrentIndex(COMPARE_TAB)
        self.start_compare()
        self.compare_tab.set_sentence(text, reference)

    # -- models -----------------------------------------------------------------------------
    def _travel(self, folder: str, step: float) -> None:
        """A training curve was clicked: translate with that run's weights nearest ``step``."""
        self.translate_tab.controller.load_past(Path(folder), step)
        self.tabs.setCurrentWidget(self.translate_tab)

    def _on_model_saved(self, folder: str) -> None:
        """A training run saved a model: list it at once among the choices."""
        self.statusBar().showMessage(f"New model saved: {Path(folder).name} (pick its scorer to use it)", 8000)
        self.translate_tab.controller.rescan()

    # -- settings ---------------------------------------------------------------------------
    def restore_settings(self) -> None:
        settings = QSettings()
        geometry = settings.value("window/geometry")
        if isinstance(geometry, QByteArray | bytes) and geometry:
            self.restoreGeometry(QByteArray(geometry))
        state = settings.value("window/state")
        if isinstance(state, QByteArray | bytes) and state:
            self.restoreState(QByteArray(state))

    def save_settings(self) -> None:
        settings = QSettings()
        settings.setValue("window/geometry", self.saveGeometry())
        settings.setValue("window/state", self.saveState())
        self.translate_tab.save_settings()
        settings.sync()

    # -- closing ----------------------------------------------------------------------------
    def _stop_training_confirmed(self) -> bool:
        answer = self.confirm_stop_training
        if callable(answer):
            return bool(answer())
        if answer is not None:
            return bool(answer)
        reply = QMessageBox.question(
            self, "Training in progress",
            "A model is being trained. Stop the training and quit?\n\n"
            "The run is stopped cleanly and can be resumed from its checkpoint later.",
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No, QMessageBox.StandardButton.No,
        )
        return reply == QMessageBox.StandardButton.Yes

    def closeEvent(self, event: QCloseEvent) -> None:
        training = self.training_panel
        if training is not None and training.is_training() and not self._stop_training_confirmed():
            event.ignore()
            return
        self._closing = True
        self.save_settings()
        if not self.translate_tab.shutdown(DECODE_STOP_MS):
            log.warning("a decoding or loading job did not stop within %d ms", DECODE_STOP_MS)
        if not self.compare_tab.shutdown(DECODE_STOP_MS):
            log.warning("a comparison job did not stop within %d ms", DECODE_STOP_MS)
        if training is not None and not training.stop_and_wait(TRAINING_STOP_MS):
            log.warning("the training run did not stop within %d ms", TRAINING_STOP_MS)
        event.accept()
        super().closeEvent(event)
