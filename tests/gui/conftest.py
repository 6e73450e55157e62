"""GUI test settings: a private data folder and QSettings per test, and no thread left behind."""

from __future__ import annotations

import gc
import threading

import pytest
from PySide6.QtCore import QCoreApplication

import engine.records.catalog
from gui.stored_settings import use_settings_folder
from gui.workers import WorkerHandle
from tests.gui.test_translate_support import LOAD_MS, install_models, open_window, wait_for_model


@pytest.fixture(autouse=True)
def private_user_state(tmp_path, monkeypatch):
    """Models the app trains and its saved settings go to a temporary folder, never the user's;
    the shipped models are hidden too, so tests see only the models they install."""
    monkeypatch.setenv("ATTENTION_STUDIO_DATA", str(tmp_path / "user-data"))
    monkeypatch.setattr(engine.records.catalog, "SHIPPED_MODELS", tmp_path / "shipped-models")
    use_settings_folder(str(tmp_path / "settings"))
    QCoreApplication.setOrganizationName("AttentionStudioTests")
    yield


@pytest.fixture(autouse=True)
def no_thread_left_running(qapp, request):
    """Fail any test that leaves a worker QThread or a Python thread running. After a slow test (a real
    window, models, workers) its garbage is collected here, in the GUI thread with no worker running, so
    that no later test's collection meets a Qt object of this one while that test's threads run."""
    before = set(threading.enumerate())
    yield
    qapp.processEvents()
    running = [h.thread.objectName() for h in list(WorkerHandle.instances) if h.thread.isRunning()]
    extra = [t.name for t in threading.enumerate() if t not in before and t.is_alive() and not t.daemon]
    assert not running, f"worker threads still running after the test: {running}"
    assert not extra, f"Python threads still running after the test: {extra}"
    if request.node.get_closest_marker("slow") is not None:
        gc.collect()


def shown(qtbot, widget, width: int, height: int):
    """``widget`` owned by the test, at ``width`` × ``height``, on screen (exposed) — returned."""
    qtbot.addWidget(widget)
    widget.resize(width, height)
    widget.show()
    qtbot.waitExposed(widget)
    return widget


@pytest.fixture
def compare(qtbot, dates_models):
    """The Compare tab of a window with the dates models, loaded (tests/gui/compare_support.DIRECTION)."""
    install_models(dates_models)
    window = open_window(qtbot)
    wait_for_model(qtbot, window)
    window.tabs.setCurrentWidget(window.compare_tab)  # the Compare tab loads its models when first shown
    tab = window.compare_tab
    qtbot.waitUntil(lambda: bool(tab.controller.slots) and not tab.controller.loading, timeout=LOAD_MS)
    return tab
