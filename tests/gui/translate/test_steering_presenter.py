"""What-if steering's decisions (gui/translate/steering.py), driven through its parts as mocks: no widget,
no model. A what-if is kept only when the controller accepts the decode under it; a refusal is said."""

from __future__ import annotations

from types import SimpleNamespace
from unittest.mock import MagicMock

import pytest

from gui.attention.map_units import MapUnits
from gui.attention.panel import HOVER_HINT
from gui.translate.steering import (
    SET_ATTENTION_HINT,
    SteeringBar,
    SteeringDecoder,
    SteeringMap,
    WhatIfSteering,
)
from gui.translate.whatif_state import WhatIf


@pytest.fixture
def parts():
    bar, panel = MagicMock(spec=SteeringBar), MagicMock(spec=SteeringMap)
    controller = MagicMock(spec=SteeringDecoder)
    controller.bundle, controller.text = object(), "我爱你"
    controller.translate.return_value = True
    controller.prepare.return_value = SimpleNamespace(tokens=("▁我", "爱", "你"))
    panel.record = SimpleNamespace(steps=[SimpleNamespace(token_id=i) for i in (11, 12, 13)])
    return SimpleNamespace(bar=bar, panel=panel, controller=controller, hint=MagicMock(), say=MagicMock(),
                           footer=MagicMock())


def steering(parts) -> WhatIfSteering:
    return WhatIfSteering(parts.bar, parts.panel, parts.controller, parts.hint, parts.say, parts.footer)


def test_an_alternative_redecodes_from_the_output_before_it_and_is_kept_when_accepted(parts):
    s = steering(parts)
    s.alternative_chosen(2, 99)
    wanted = WhatIf(prefix_ids=(11, 12, 99))
    parts.controller.translate.assert_called_once_with("我爱你", wanted)
    assert s.whatif == wanted
    parts.bar.show_state.assert_called_once_with(wanted.describe(("▁我", "爱", "你")))
    parts.footer.assert_called_once_with()


def test_a_what_if_the_controller_refuses_is_not_kept(parts):
    parts.controller.translate.return_value = False
    s = steering(parts)
    s.alternative_chosen(1, 99)
    assert s.whatif == WhatIf()
    parts.bar.show_state.assert_not_called()
    parts.footer.assert_not_called()


def test_nothing_is_decoded_without_a_model_or_a_sentence(parts):
    s = steering(parts)
    parts.controller.text = "  "
    s.redecode(WhatIf(prefix_text="I"))
    parts.controller.bundle, parts.controller.text = None, "我爱你"
    s.redecode(WhatIf(prefix_text="I"))
    parts.controller.translate.assert_not_called()
    assert s.whatif == WhatIf()


def test_a_refusal_is_said_on_the_hint_line_and_the_status_bar(parts):
    s = steering(parts)
    s._on_refused("the prefix is empty")
    parts.hint.assert_called_once_with("What-if not applied: the prefix is empty.", notice=True)
    parts.say.assert_called_once_with("the prefix is empty")


def test_a_cell_click_is_ignored_while_set_attention_is_off(parts):
    parts.bar.attend_button.isChecked.return_value = False
    steering(parts).cell_clicked(1, 2, False)
    parts.controller.translate.assert_not_called()


def test_a_cell_click_puts_the_steps_attention_on_the_cells_source_pieces(parts):
    parts.bar.attend_button.isChecked.return_value = True
    units = MagicMock(spec=MapUnits)
    units.row_of.side_effect = lambda row: row
    units.column_of.side_effect = lambda column: column
    units.row_pieces.return_value = range(1, 3)  # an output word of two pieces
    units.column_pieces.return_value = range(0, 2)  # on a source word of two pieces
    parts.panel.units.return_value = units
    s = steering(parts)
    s.cell_clicked(1, 0, False)
    wanted = WhatIf(overrides={1: (0, 1), 2: (0, 1)})
    parts.controller.translate.assert_called_once_with("我爱你", wanted)
    assert s.whatif == wanted


def test_undo_and_reset_clear_the_bar_and_the_what_if(parts):
    s = steering(parts)
    s.alternative_chosen(0, 5)
    s.undo()
    parts.bar.reset.assert_called_once_with()
    parts.controller.translate.assert_called_with("我爱你", WhatIf())
    s.whatif = WhatIf(prefix_text="I")
    s.reset()
    assert s.whatif == WhatIf() and parts.bar.reset.call_count == 2


def test_set_attention_mode_changes_the_maps_hint(parts):
    s = steering(parts)
    s._attend_mode(True)
    assert parts.panel.hover_hint == SET_ATTENTION_HINT
    s._attend_mode(False)
    assert parts.panel.hover_hint == HOVER_HINT
    parts.panel.hover_label.setText.assert_called_with(HOVER_HINT)


def test_connect_wires_the_bar_the_map_and_the_controller(parts):
    s = steering(parts)
    s.connect()
    parts.bar.undoRequested.connect.assert_called_once_with(s.undo)
    parts.panel.cellClicked.connect.assert_called_once_with(s.cell_clicked)
    parts.controller.whatIfRefused.connect.assert_called_once_with(s._on_refused)
    (prefix,), _ = parts.bar.prefixEntered.connect.call_args
    prefix("I love")
    parts.controller.translate.assert_called_once_with("我爱你", WhatIf(prefix_text="I love"))
