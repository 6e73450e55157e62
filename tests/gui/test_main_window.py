"""The main window: tabs, widget names, the close protocol."""

from __future__ import annotations

import time

import pytest
from PySide6.QtCore import QCoreApplication
from PySide6.QtWidgets import QComboBox, QLineEdit, QMainWindow, QPushButton, QWidget

from gui.attention.panel import AttentionPanel
from gui.training.panel import TrainingPanel
from gui.workers import WorkerHandle
from tests.gui.test_translate_support import (
    RUN_MS,
    install_models,
    open_window,
    type_and_translate,
    wait_for_model,
)

pytestmark = pytest.mark.slow  # trains a model, opens the real window, runs a subprocess or fuzzes many cases


def test_window_has_its_tabs_and_the_named_widgets(qtbot):
    window = open_window(qtbot)
    assert isinstance(window, QMainWindow) and window.isVisible()
    assert [window.tabs.tabText(i) for i in range(window.tabs.count())] == ["Translate", "Train", "Compare"]
    assert window.tabs.widget(1) is window.train_tab and isinstance(window.training_panel, TrainingPanel)
    for kind, name in ((QLineEdit, "sourceInput"), (QPushButton, "translateButton"), (QWidget, "targetOutput"),
                       (QComboBox, "scorerCombo"), (QComboBox, "directionCombo"), (AttentionPanel, "attentionPanel")):
        assert window.findChild(kind, name) is not None, name


def test_deferred_training_tab_is_built_when_first_chosen_once_the_engine_is_ready(qtbot):
    from gui.app import create_window

    window = create_window([], defer_training=True)
    qtbot.addWidget(window)
    window.tabs.setCurrentIndex(1)  # before the engine is ready: the placeholder says it is coming
    assert window.training_panel is None and "Loading" in window.train_tab.placeholder.text()
    qtbot.waitUntil(lambda: window.training_panel is not None, timeout=RUN_MS)
    assert window.training_panel.isVisible() and window.tabs.currentIndex() == 1


def test_deferred_training_tab_waits_until_it_is_chosen(qtbot):
    from gui.app import create_window

    window = create_window([], defer_training=True)
    qtbot.addWidget(window)
    with qtbot.waitSignal(window.translate_tab.controller.engineReady, timeout=RUN_MS):
        pass
    QCoreApplication.processEvents()  # what the engine's arrival set going has had its turn
    assert window.training_panel is None and window.tabs.currentIndex() == 0  # the first model does not wait for it
    window.tabs.setCurrentIndex(1)
    assert window.training_panel is not None and window.training_panel.isVisible()


def test_closing_mid_decode_exits_promptly_with_no_thread_left(qtbot, dates_models):
    install_models(dates_models, ("additive",))
    window = open_window(qtbot)
    wait_for_model(qtbot, window)
    window.translate_tab.view.choice_bar.speed_slider.setValue(10)  # half a second per step
    type_and_translate(qtbot, window, "29 Nov 2026")
    with qtbot.waitSignal(window.translate_tab.view.attention_panel.stepShown, timeout=RUN_MS):
        pass
    assert window.translate_tab.controller.running
    started = time.perf_counter()
    assert window.close()
    assert time.perf_counter() - started < 1.0
    assert not [h for h in WorkerHandle.instances if h.is_running()]


def test_closing_during_training_asks_first(qtbot, monkeypatch):
    window = open_window(qtbot)
    panel = window.training_panel
    stops = []
    monkeypatch.setattr(panel, "is_training", lambda: True)
    monkeypatch.setattr(panel, "stop_and_wait", lambda timeout_ms=5000: stops.append(timeout_ms) or True)
    window.confirm_stop_training = False
    assert not window.close()
    assert window.isVisible() and not stops
    window.confirm_stop_training = lambda: True
    assert window.close()
    assert stops and not window.isVisible()


def test_new_models_from_training_are_listed(qtbot, dates_models):
    install_models(dates_models, ("additive",))
    window = open_window(qtbot)
    wait_for_model(qtbot, window)
    directions = window.translate_tab.view.choice_bar.direction_combo
    assert directions.count() == 1
    install_models(dates_models, ("dot",))
    window.training_panel.modelSaved.emit("dates-dot")
    combo = window.translate_tab.view.choice_bar.scorer_combo
    assert combo.model().item(combo.findData("dot")).isEnabled()
