"""The Length study link's decisions (gui/translate/study_link.py), driven through its parts as mocks: a row
chosen in the study is translated at the study's beam — the Beam box set without a decode of its own, the
hint saying so only when the beam changed — and its reference is remembered."""

from __future__ import annotations

from types import SimpleNamespace
from unittest.mock import MagicMock, call

import pytest
from PySide6.QtWidgets import QWidget

from gui.translate.study_link import BeamBox, LengthStudyLink, StudyModels, StudyParts


@pytest.fixture
def link():
    box = MagicMock(spec=BeamBox)
    box.minimum.return_value, box.maximum.return_value, box.value.return_value = 1, 10, 1
    parts = StudyParts(window=MagicMock(spec=QWidget), controller=MagicMock(spec=StudyModels), beam_box=box,
                       direction=MagicMock(return_value="zh-en"), translate=MagicMock(), remember=MagicMock(),
                       show_hint=MagicMock())
    link = LengthStudyLink(parts)
    link.dialog = MagicMock()
    link.dialog.beam = 1
    link.dialog.view.table.reference_for.return_value = ""
    return link


def test_a_row_at_the_beam_in_use_is_translated_and_nothing_else_changes(link):
    link._on_row("我很好。")
    parts = link.parts
    parts.translate.assert_called_once_with("我很好。")
    parts.beam_box.setValue.assert_not_called()
    parts.controller.set_beam_size.assert_not_called()
    parts.show_hint.assert_not_called()
    parts.remember.assert_not_called()  # the row has no reference
    parts.window.window.return_value.raise_.assert_called_once_with()


def test_a_row_of_a_beam_study_sets_the_beam_box_quietly_then_translates_and_says_so(link):
    link.dialog.beam = 5
    order = MagicMock()
    parts = link.parts
    parts.beam_box.attach_mock(parts.beam_box.blockSignals, "block")
    parts.beam_box.attach_mock(parts.beam_box.setValue, "set")
    order.attach_mock(parts.beam_box, "box")
    order.attach_mock(parts.translate, "translate")
    link._on_row("我很好。")
    assert order.mock_calls[-4:] == [call.box.block(True), call.box.set(5), call.box.block(False),
                                     call.translate("我很好。")]
    parts.controller.set_beam_size.assert_called_once_with(5)
    (hint,), options = parts.show_hint.call_args
    assert "from 1 to 5 (beam search)" in hint and options == {"notice": True}


def test_a_studys_beam_past_the_box_is_clamped(link):
    link.dialog.beam = 64
    link._on_row("x")
    link.parts.controller.set_beam_size.assert_called_once_with(10)


def test_a_rows_reference_is_remembered_for_the_compare_tab(link):
    link.dialog.view.table.reference_for.return_value = "I am fine."
    link._on_row("我很好。")
    link.parts.remember.assert_called_once_with("我很好。", "I am fine.")


def test_the_open_dialog_follows_the_direction_and_a_hidden_one_does_not(link):
    choices = SimpleNamespace()
    link.dialog.isVisible.return_value = False
    link.follow(choices, "en-zh")
    link.dialog.show_direction.assert_not_called()
    link.dialog.isVisible.return_value = True
    link.follow(choices, "en-zh")
    link.dialog.show_direction.assert_called_once_with(choices, "en-zh")
