"""The main window's tabs share one protocol (gui/common/tab_protocol.py): the window starts, saves
and shuts down every tab of its list, and a tab added to the list needs no other line there."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QWidget

from gui.common.tab_protocol import CloseQuestion, StudioTab
from gui.main_window import MainWindow


class FakeTab(QWidget):
    """A tab that records what the window asked of it."""

    title = "Fake"
    shutdown_ms = 1234

    def __init__(self, question: CloseQuestion | None = None) -> None:
        super().__init__()
        self.calls: list[object] = []
        self.question = question

    def start(self) -> None:
        self.calls.append("start")

    def shown(self) -> None:
        self.calls.append("shown")

    def save_settings(self) -> None:
        self.calls.append("save_settings")

    def close_question(self) -> CloseQuestion | None:
        return self.question

    def shutdown(self, timeout_ms: int) -> bool:
        self.calls.append(("shutdown", timeout_ms))
        return True


@pytest.fixture
def deferred_window(qtbot):
    """A main window not started (no model is looked for) whose Train tab is still a placeholder."""
    main_window = MainWindow(defer_training=True)
    qtbot.addWidget(main_window)
    return main_window


def _record_shutdowns(monkeypatch, main_window: MainWindow) -> list[str]:
    stopped: list[str] = []
    for tab in main_window.studio_tabs:
        original = tab.shutdown
        monkeypatch.setattr(tab, "shutdown", lambda timeout_ms, tab=tab, original=original: (
            stopped.append(tab.title), original(timeout_ms))[1])
    return stopped


def test_every_tab_of_the_window_follows_the_protocol(deferred_window):
    assert [tab.title for tab in deferred_window.studio_tabs] == ["Translate", "Train", "Compare"]
    for index, tab in enumerate(deferred_window.studio_tabs):
        assert isinstance(tab, StudioTab), tab.title
        assert deferred_window.tabs.widget(index) is tab and deferred_window.tabs.tabText(index) == tab.title


def test_closing_shuts_every_tab_down_quickest_first(deferred_window, monkeypatch):
    stopped = _record_shutdowns(monkeypatch, deferred_window)
    assert deferred_window.close()
    assert stopped == ["Translate", "Compare", "Train"]  # the decoders, then the training run


def test_a_tab_added_to_the_list_is_started_shown_saved_and_shut_down(deferred_window, monkeypatch):
    tab = FakeTab()
    deferred_window.add_tab(tab)
    assert deferred_window.tabs.tabText(deferred_window.tabs.count() - 1) == "Fake"
    monkeypatch.setattr(deferred_window.translate_tab, "start", lambda: None)  # no catalog scan here
    deferred_window.start()
    deferred_window.tabs.setCurrentWidget(tab)
    stopped = _record_shutdowns(monkeypatch, deferred_window)
    assert deferred_window.close()
    assert tab.calls == ["start", "shown", "save_settings", ("shutdown", 1234)]
    assert stopped == ["Fake", "Translate", "Compare", "Train"]  # its wait of 1.2 s before the 3 s ones


def test_a_tab_that_asks_before_closing_can_keep_the_window_open(deferred_window, monkeypatch):
    tab = FakeTab(CloseQuestion("Busy", "Stop it?"))
    deferred_window.add_tab(tab)
    stopped = _record_shutdowns(monkeypatch, deferred_window)
    deferred_window.confirm_stop_training = False
    assert not deferred_window.close() and not stopped and not tab.calls
    deferred_window.confirm_stop_training = True
    assert deferred_window.close()
    assert ("shutdown", 1234) in tab.calls and len(stopped) == 4


def test_the_compare_tab_loads_its_models_once_when_first_shown(deferred_window, monkeypatch):
    started: list[str] = []
    monkeypatch.setattr(deferred_window.compare_tab.controller, "start", started.append)
    deferred_window.tabs.setCurrentWidget(deferred_window.compare_tab)
    deferred_window.tabs.setCurrentWidget(deferred_window.translate_tab)
    deferred_window.tabs.setCurrentWidget(deferred_window.compare_tab)
    assert started == ["zh-en"]  # the Translate tab had no model: the default direction


def test_a_shut_down_tab_starts_nothing(deferred_window, monkeypatch):
    started: list[str] = []
    monkeypatch.setattr(deferred_window.compare_tab.controller, "start", started.append)
    assert deferred_window.close()
    deferred_window.compare_tab.shown()
    deferred_window.train_tab.engine_ready()
    deferred_window.train_tab.shown()
    assert not started and deferred_window.training_panel is None
