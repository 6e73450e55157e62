"""The language refresh's decisions (gui/translate/tab_words.py), driven through its parts as mocks: on a
language switch the choice boxes, the model line (not while earlier weights or a load are shown), the input's
hint and — when a decode is on the map — the inspector are made again."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from unittest.mock import MagicMock

import pytest
from PySide6.QtCore import QEvent, QObject

from gui.translate.tab_words import InspectedMap, LanguageRefresh, ModelLine, ModelsInUse, RefreshParts


@pytest.fixture
def parts():
    controller = MagicMock(spec=ModelsInUse)
    controller.loading_entry, controller.entry = None, SimpleNamespace(direction="zh-en", scorer="dot")
    controller.bundle = SimpleNamespace(scorer="dot", folder=Path("zh-en-dot"), attribution="", info={})
    controller.past, controller.loading, controller.choices = None, False, None
    panel = MagicMock(spec=InspectedMap)
    panel.record = SimpleNamespace(row_count=0)
    return RefreshParts(controller=controller, status=MagicMock(spec=ModelLine), panel=panel,
                        show_choices=MagicMock(), update_input=MagicMock())


def refresh(parts: RefreshParts) -> None:
    watched = QObject()  # kept alive: the refresh is its child
    LanguageRefresh(watched, parts).refresh()


@pytest.fixture
def describe(monkeypatch):
    describe = MagicMock(return_value="the model line")
    monkeypatch.setattr("gui.translate.tab_words.describe_model", describe)
    monkeypatch.setattr("gui.translate.tab_words.scorer_label", lambda row: "Dot product")
    return describe


def test_a_switch_makes_the_boxes_the_model_line_and_the_hint_again(parts, describe):
    watched = QObject()
    LanguageRefresh(watched, parts).eventFilter(watched, QEvent(QEvent.Type.LanguageChange))
    parts.show_choices.assert_called_once_with("zh-en", "dot")
    assert parts.status.described == ""
    parts.status.show_model.assert_called_once_with("the model line", "zh-en-dot", "")
    parts.update_input.assert_called_once_with()
    parts.panel.render_now.assert_not_called()  # nothing on the map


def test_other_events_and_other_objects_change_nothing(parts, describe):
    watched = QObject()
    refresh = LanguageRefresh(watched, parts)
    refresh.eventFilter(watched, QEvent(QEvent.Type.FontChange))
    refresh.eventFilter(QObject(), QEvent(QEvent.Type.LanguageChange))
    parts.update_input.assert_not_called()


def test_earlier_weights_or_a_load_keep_their_status_line(parts, describe):
    parts.controller.past = object()
    refresh(parts)
    parts.controller.past, parts.controller.loading = None, True
    parts.controller.loading_entry = SimpleNamespace(direction="en-zh", scorer="none")
    refresh(parts)
    parts.status.show_model.assert_not_called()
    parts.show_choices.assert_called_with("en-zh", "none")  # the model being loaded is the one named


def test_a_decode_on_the_map_has_its_inspector_drawn_again(parts, describe):
    parts.panel.record = SimpleNamespace(row_count=3)
    refresh(parts)
    parts.panel.render_now.assert_called_once_with()
