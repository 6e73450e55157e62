"""The main window: its tabs (Translate, Train, Compare), the status bar, and the close protocol.

The window keeps its tabs in one list, ``studio_tabs``, each implementing ``StudioTab``
(gui/common/tab_protocol.py), and loops over it: at start-up (``start``), when a tab is chosen
(``shown``), when it saves its settings and when it closes. A tab added with ``add_tab`` needs no
other line here; what this module wires by hand is only what one tab asks of another (the Translate
tab's "Compare" button, a training curve clicked to translate with that run's weights).

At start-up from ``main.py`` the Train tab's view is built once PyTorch has been imported in the
background and the tab is chosen, so that the window appears at once; :func:`gui.app.create_window`
builds it at once.

Closing: if a tab asks first (a model is being trained), ask (``confirm_stop_training`` answers
without a dialog when set, e.g. in tests); then save the settings and shut every tab down with its
bounded wait, quickest first (the decoding and loading jobs, then the training run). Threads are
always asked to stop, never terminated.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QByteArray, QCoreApplication, QSettings, Qt, Signal
from PySide6.QtGui import QCloseEvent, QKeySequence
from PySide6.QtWidgets import QLabel, QMainWindow, QMessageBox, QTabWidget, QWidget

from gui.common.model_on_screen import ModelOnScreen, link_travel
from gui.common.tab_protocol import CloseQuestion, StudioTab
from gui.compare.tab import CompareTab
from gui.fonts import NO_CJK_WARNING
from gui.language_menu import LanguageButton
from gui.screen_fit import fit_to_screen
from gui.training.tab import TrainTab
from gui.translate.tab import TranslateTab
from gui.window_lesson import install_lesson

if TYPE_CHECKING:
    from gui.training.panel import TrainingPanel

log = logging.getLogger("attention_studio")


class MainWindow(QMainWindow):
    errorReported = Signal(str, str, str)  # title, message, details

    def __init__(self, pinned_folder: Path | None = None, cjk_family: str | None = "",
                 defer_training: bool = False, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("mainWindow")
        self.setWindowTitle("Attention Studio")
        fit_to_screen(self, 1280, 860)  # or less: the status bar stays on a 1280×800 or 1280×720 screen
        # None: ask with a dialog; True/False or a callable returning it: the answer (tests, scripts).
        self.confirm_stop_training: bool | Callable[[], bool] | None = None
        self._closing = False
        self.tabs = QTabWidget()
        self.tabs.setObjectName("mainTabs")
        self.studio_tabs: list[StudioTab] = []
        self.translate_tab = TranslateTab(pinned_folder=pinned_folder)
        self.train_tab = TrainTab(defer=defer_training)
        self.compare_tab = CompareTab(direction=self._translate_direction)
        for tab in (self.translate_tab, self.train_tab, self.compare_tab):
            self.add_tab(tab)
        self.tabs.currentChanged.connect(self._on_tab_changed)
        self.language_button = LanguageButton(lambda problem: self.statusBar().showMessage(problem, 10000))
        self.tabs.setCornerWidget(self.language_button, Qt.Corner.TopRightCorner)
        self.setCentralWidget(self.tabs)
        # A normal widget, not a permanent one: a temporary message (a model saved, a sentence copied)
        # takes the whole bar for its few seconds instead of being cut off beside the model's line.
        self.statusBar().addWidget(self.translate_tab.status, 1)
        if cjk_family is None:
            warning = QLabel(self.tr("⚠ No Chinese font"))
            warning.setObjectName("fontWarning")
            warning.setToolTip(QCoreApplication.translate("Fonts", NO_CJK_WARNING))
            self.statusBar().addPermanentWidget(warning)
            log.warning(NO_CJK_WARNING)
        self._connect_tabs(defer_training)
        self._add_shortcuts()
        self.lesson_dock = install_lesson(self)  # the Lesson button and its dock (gui/window_lesson.py)

    def add_tab(self, tab: StudioTab) -> None:
        """Show ``tab`` (a QWidget) under its title, and start, save and shut it down with the others."""
        self.studio_tabs.append(tab)
        self.tabs.addTab(tab, tab.title)  # type: ignore[arg-type]

    def _connect_tabs(self, defer_training: bool) -> None:
        """What one tab asks of another."""
        self.translate_tab.trainRequested.connect(lambda: self.tabs.setCurrentWidget(self.train_tab))
        self.translate_tab.compareRequested.connect(self._compare_from_translate)
        self.translate_tab.errorReported.connect(self.errorReported)
        self.translate_tab.statusMessage.connect(lambda text: self.statusBar().showMessage(text, 6000))
        self.train_tab.modelSaved.connect(self._on_model_saved)
        self.train_tab.pointChosen.connect(self._travel)
        self.model_on_screen = ModelOnScreen(self)  # a run's earlier weights, one Back for both tabs
        link_travel(self.model_on_screen, self.translate_tab, self.compare_tab)
        if defer_training:
            self.translate_tab.controller.engineReady.connect(self.train_tab.engine_ready)

    @property
    def training_panel(self) -> TrainingPanel | None:
        """The Train tab's view, once built."""
        return self.train_tab.panel

    def _add_shortcuts(self) -> None:
        quit_action = self.addAction(self.tr("Quit"))
        quit_action.setShortcut(QKeySequence.StandardKey.Quit)
        quit_action.triggered.connect(self.close)

    def start(self) -> None:
        """Start every tab (the Translate tab looks for models and loads the first one in the background)."""
        for tab in self.studio_tabs:
            tab.start()

    def _on_tab_changed(self, index: int) -> None:
        if 0 <= index < len(self.studio_tabs) and not self._closing:
            self.studio_tabs[index].shown()

    # -- between tabs -----------------------------------------------------------------------
    def _translate_direction(self) -> str | None:
        """The direction of the Translate tab's model (the Compare tab starts with it)."""
        entry = self.translate_tab.controller.entry
        return entry.direction if entry is not None else None

    def _compare_from_translate(self, text: str) -> None:
        direction = self._translate_direction()
        if direction is not None and self.compare_tab.started:
            self.compare_tab.controller.set_direction(direction)
        if text.strip():
            self.compare_sentence(text, self.translate_tab.reference_for(text))
        else:
            self.tabs.setCurrentWidget(self.compare_tab)

    def compare_sentence(self, text: str, reference: str = "") -> None:
        """Show the Compare tab with ``text`` decoded by every scorer."""
        self.tabs.setCurrentWidget(self.compare_tab)
        self.compare_tab.load_models()
        self.compare_tab.set_sentence(text, reference)

    def _travel(self, folder: str, step: float) -> None:
        """A training curve was clicked: translate (and compare) with that run's weights nearest ``step``."""
        self.translate_tab.controller.load_past(Path(folder), step)
        self.compare_tab.use_past(Path(folder), step)
        self.tabs.setCurrentWidget(self.translate_tab)

    def _on_model_saved(self, folder: str) -> None:
        """A training run saved a model: list it at once among the choices."""
        self.statusBar().showMessage(
            self.tr("New model saved: %1 (pick its scorer to use it)").replace("%1", Path(folder).name), 8000)
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
        for tab in self.studio_tabs:
            tab.save_settings()
        settings.sync()

    # -- closing ----------------------------------------------------------------------------
    def _confirmed(self, question: CloseQuestion) -> bool:
        answer = self.confirm_stop_training
        if callable(answer):
            return bool(answer())
        if answer is not None:
            return bool(answer)
        reply = QMessageBox.question(self, question.title, question.text,
                                     QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
                                     QMessageBox.StandardButton.No)
        return reply == QMessageBox.StandardButton.Yes

    def closeEvent(self, event: QCloseEvent) -> None:
        for tab in self.studio_tabs:
            question = tab.close_question()
            if question is not None and not self._confirmed(question):
                event.ignore()
                return
        self._closing = True
        self.save_settings()
        for tab in sorted(self.studio_tabs, key=lambda tab: tab.shutdown_ms):  # quickest first
            if not tab.shutdown(tab.shutdown_ms):
                log.warning("the %s tab's jobs did not stop within %d ms", tab.title, tab.shutdown_ms)
        event.accept()
        super().closeEvent(event)
