"""gui/compare/tab_parts.py: the Compare tab as its exports and attributions see it, read from the pieces the
tab hands in (here mocks of them: no tab, widget or model is made)."""

from __future__ import annotations

import inspect
from types import SimpleNamespace
from unittest.mock import MagicMock

import pytest

from gui.compare.controller import CompareController
from gui.compare.explain_link import ExplainParts
from gui.compare.tab_exports import ExportParts
from gui.compare.tab_parts import CompareParts


def members(protocol) -> dict[str, inspect.Signature]:
    return {name: inspect.signature(value) for name, value in vars(protocol).items()
            if callable(value) and not name.startswith("_")}


@pytest.mark.parametrize("protocol", [ExportParts, ExplainParts])
def test_the_parts_have_every_member_of_both_protocols(protocol):
    wanted = members(protocol)
    assert wanted  # the protocols name what they drive
    for name, signature in wanted.items():
        assert list(inspect.signature(getattr(CompareParts, name)).parameters) == list(signature.parameters), name


@pytest.fixture
def parts():
    controller = MagicMock(spec=CompareController)
    controller.run, controller.jobs = None, MagicMock()
    controller.bundles = {"dot": SimpleNamespace(translator="dot translator")}
    sentence, reference = MagicMock(), MagicMock()
    sentence.text.return_value, reference.text.return_value = "我看书", "I read."
    view_bar, scheduler, say = MagicMock(), MagicMock(), MagicMock()
    view_bar.scale_name.return_value = "auto"
    panels = {"dot": MagicMock()}
    made = CompareParts(controller, lambda: panels, sentence, reference, lambda: "own", scheduler, view_bar, say,
                        lambda: "font")
    return made, controller, panels


def test_what_the_parts_read(parts):
    made, controller, panels = parts
    assert made.scorer_panels() is panels and made.reference_text() == "I read." and made.target_choice() == "own"
    assert made.run_sentence() is None and made.shown_sentence() == "我看书"  # before a run: the sentence typed
    controller.run = SimpleNamespace(text="他看书")
    assert made.run_sentence() == made.shown_sentence() == "他看书"  # the run's, whatever is typed since
    assert made.translator_of("dot") == "dot translator" and made.translator_of("additive") is None
    assert made.map_scale() == "auto" and made.font() == "font"


def test_what_the_parts_drive(parts):
    made, controller, _ = parts
    made.flush_maps()
    made.scheduler.flush.assert_called_once_with()
    made.set_status("Saved grid.png")
    made.say.assert_called_once_with("Saved grid.png")
    work = MagicMock()
    assert made.start_job(work, "compare explain") is controller.jobs.start.return_value
    controller.jobs.start.assert_called_once_with(work, "compare explain")
