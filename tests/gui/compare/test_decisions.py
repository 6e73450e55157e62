"""The Compare tab's decisions (gui/compare/decisions.py) on plain values: no widget is made."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.records.catalog import ModelEntry
from engine.settings import ATTENTION_SCORER_NAMES, SCORER_NAMES, SCORER_TABLE
from gui.compare import decisions
from gui.compare.decisions import NOT_INSPECTED, InspectorMove, Status, Travel
from gui.compare.model import OUTPUT_PREFIX, OWN_OUTPUTS, REFERENCE, PanelSlot

NO_ATTENTION = next(s for s in SCORER_NAMES if s not in ATTENTION_SCORER_NAMES)  # the fixed context C
ATTENTION = list(ATTENTION_SCORER_NAMES)


def entry(scorer: str, source: str = "zh", target: str = "en") -> ModelEntry:
    return ModelEntry(Path(f"/models/{source}-{target}-{scorer}"), source, target, scorer, True, None, 0.0)


def test_compare_refuses_a_blank_sentence_and_one_the_models_cannot_read():
    assert decisions.compare_refusal("", None) is Status.TYPE_FIRST
    assert decisions.compare_refusal("  \t", None) is Status.TYPE_FIRST
    assert decisions.compare_refusal("\x01", "control characters removed") is Status.NOTHING_TO_COMPARE
    assert decisions.compare_refusal("我看书", None) is None


def test_statuses_of_the_slots_and_of_a_finished_run():
    assert decisions.slots_status(loading=True) is Status.LOADING
    assert decisions.slots_status(loading=False) is Status.NO_MODEL
    assert decisions.finished_status(OWN_OUTPUTS) is Status.DONE_OWN
    assert decisions.finished_status(REFERENCE) is Status.DONE_SHARED
    assert decisions.finished_status(OUTPUT_PREFIX + ATTENTION[0]) is Status.DONE_SHARED


def test_a_run_status_is_followed_by_what_was_cut_from_a_long_input():
    assert decisions.run_status_text("Decoding…", "") == "Decoding…"
    assert decisions.run_status_text("Decoding…", "Long input.") == "Decoding… Long input."
    assert decisions.long_input_notices([]) == ""
    assert decisions.long_input_notices(["cut at 80", "cut at 60", "cut at 80"]) == "cut at 60; cut at 80"


def test_the_difference_map_subtracts_only_attention_scorers_backed_by_a_model():
    first, *middle, last = ATTENTION
    slots = [PanelSlot(SCORER_TABLE[first], None, "no model"),  # no model: not offered
             *[PanelSlot(SCORER_TABLE[s], entry(s)) for s in middle],
             PanelSlot(SCORER_TABLE[last], None, past="model at step 2,000"),  # earlier weights back it: offered
             PanelSlot(SCORER_TABLE[NO_ATTENTION], entry(NO_ATTENTION))]  # no map to subtract
    assert decisions.difference_scorers(slots) == [(s, SCORER_TABLE[s].label) for s in [*middle, last]]


def test_the_direction_box_lists_the_shown_direction_even_without_a_model():
    assert decisions.direction_choices(["zh-en", "en-zh"], "en-zh") == ["zh-en", "en-zh"]
    assert decisions.direction_choices(["zh-en"], "dates-iso") == ["zh-en", "dates-iso"]
    assert decisions.direction_choices([], "zh-en") == ["zh-en"]


def test_examples_come_in_the_language_of_the_first_loaded_model():
    slots = [PanelSlot(SCORER_TABLE["dot"], None, "no model"), PanelSlot(SCORER_TABLE["additive"], entry("additive", "en", "zh"))]
    assert decisions.examples_language(slots) == "en"
    assert decisions.examples_language(slots[:1]) == ""


def test_the_target_choice_is_kept_while_offered():
    keys = [OWN_OUTPUTS, REFERENCE, OUTPUT_PREFIX + "dot"]
    assert decisions.kept_target(keys, REFERENCE) == REFERENCE
    assert decisions.kept_target([OWN_OUTPUTS, OUTPUT_PREFIX + "dot"], REFERENCE) == OWN_OUTPUTS  # reference cleared
    assert decisions.kept_target(keys, None) == OWN_OUTPUTS


def test_the_shared_target_offered_after_a_run():
    offered = [OWN_OUTPUTS, REFERENCE, OUTPUT_PREFIX + "dot"]
    assert decisions.shared_target_offer(offered, "dot", True, busy=False) == REFERENCE
    assert decisions.shared_target_offer(offered[::2], "dot", True, busy=False) == OUTPUT_PREFIX + "dot"
    assert decisions.shared_target_offer(offered[::2], "dot", False, busy=False) is None  # no output yet
    assert decisions.shared_target_offer(offered[::2], "additive", True, busy=False) is None  # not offered
    assert decisions.shared_target_offer(offered, "dot", True, busy=True) is None
    assert decisions.shared_target_offer(offered, None, True, busy=False) is None


def test_a_forced_target_the_model_could_not_read_whole_is_said_after_the_numbers():
    assert decisions.forced_problem("BLEU 12.0", "") == ""
    assert decisions.forced_problem("BLEU 12.0", "unknown words") == "BLEU 12.0 — unknown words"


@pytest.mark.parametrize(("inspected", "scorer", "has_step", "move"), [
    (("dot", 3), "dot", True, InspectorMove.SHOW),
    (("dot", 3), "dot", False, InspectorMove.CLEAR),
    (("dot", 3), "additive", True, InspectorMove.KEEP),
    (NOT_INSPECTED, "dot", False, InspectorMove.KEEP),
])
def test_what_the_inspector_does_when_a_panels_rows_are_replaced(inspected, scorer, has_step, move):
    assert decisions.inspector_after_rows(inspected, scorer, has_step) is move


def test_travel_before_the_tab_is_shown_waits_for_its_first_load():
    folder = Path("/runs/dot-1")
    assert decisions.travel_to(True, folder, 2000.0) == Travel((folder, 2000.0), None)
    waiting = decisions.travel_to(False, folder, 2000.0)
    assert waiting == Travel(None, (folder, 2000.0))
    direction, travel = decisions.first_load(False, False, None, "en-zh", waiting.waiting)
    assert direction == "en-zh" and travel == Travel((folder, 2000.0), None)


def test_the_first_load_happens_once_in_the_direction_asked_or_given_or_zh_en():
    assert decisions.first_load(False, False, "en-zh", "zh-en", None) == ("en-zh", Travel(None, None))
    assert decisions.first_load(False, False, None, None, None) == (decisions.DEFAULT_DIRECTION, Travel(None, None))
    assert decisions.DEFAULT_DIRECTION == "zh-en"
    assert decisions.first_load(True, False, "en-zh", None, None) is None  # started already
    assert decisions.first_load(False, True, "en-zh", None, None) is None  # the tab closed


def test_every_status_has_its_line():
    from gui.compare.status_lines import status_text

    assert all(status_text(status) for status in Status)
    assert status_text(Status.NOTHING_TO_COMPARE, "control characters only") == "Nothing to compare: control characters only."
    assert status_text(Status.SCORING, "I read.") == "Scoring “I read.” under every model…"
