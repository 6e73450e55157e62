"""The beam tree's decisions (gui/translate/beam_tree_follow.py), driven through its parts as mocks: which
steps are levels, what the footer says, which node is outlined, and that picking a live node continues the
search from it. The pane itself is a mock: no widget is built."""

from __future__ import annotations

from types import SimpleNamespace
from unittest.mock import MagicMock

import pytest

from gui.translate.beam_dialog import tree_footer
from gui.translate.beam_tree_follow import (
    BeamTreeFollower,
    BeamTreeParts,
    HypothesisMap,
    OutputLine,
    WhatIfDecoder,
)
from gui.translate.whatif_state import WhatIf


@pytest.fixture
def parts():
    steering = MagicMock(spec=WhatIfDecoder)
    steering.whatif = WhatIf(prefix_ids=(4, 5))
    state = SimpleNamespace(running=False, beam=3)
    return BeamTreeParts(dock=MagicMock(), output=MagicMock(spec=OutputLine), panel=MagicMock(spec=HypothesisMap),
                         running=lambda: state.running, beam=lambda: state.beam, steering=steering), state


def node(status: str, ids=(1, 2), score=-1.0, tokens=("▁I", "▁run")):
    return SimpleNamespace(status=status, ids=ids, score=score, log_probability=score, token=tokens[-1],
                           step=SimpleNamespace(hypothesis_tokens=tokens))


def follower_with_pane(parts) -> BeamTreeFollower:
    follower = BeamTreeFollower(parts)
    follower.dialog = MagicMock()
    follower.dialog.tree.current = None
    return follower


def test_only_beam_steps_are_levels(parts):
    follower = BeamTreeFollower(parts[0])
    follower.step(SimpleNamespace(index=0, beam_level=()))  # greedy: no level
    follower.step(SimpleNamespace(index=1, beam_level=("a", "b")))
    assert follower.levels == [(1, ("a", "b"))]
    follower.run_started()
    assert follower.levels == []


def test_the_footer_counts_finished_hypotheses_and_the_fixed_tokens_once_the_search_ended(parts):
    parts, state = parts
    follower = follower_with_pane(parts)
    follower.levels = [(0, (node("kept"), node("pruned"))), (1, (node("finished"), node("finished")))]
    follower.update_footer()
    follower.dialog.status.setText.assert_called_with(tree_footer(3, False, 2, 2, 2))
    state.running, state.beam = True, 5
    follower.update_footer()  # while it searches nothing is finished yet
    follower.dialog.status.setText.assert_called_with(tree_footer(5, True, 2, 0, 2))


def test_picking_a_live_node_continues_the_search_from_its_tokens(parts):
    parts, _ = parts
    follower = BeamTreeFollower(parts)
    follower._on_node_picked(node("pruned", ids=(7,)))
    follower._on_node_picked(node("finished", ids=(7, 8)))
    parts.steering.redecode.assert_not_called()
    follower._on_node_picked(node("kept", ids=(7, 8, 9)))
    parts.steering.redecode.assert_called_once_with(WhatIf(prefix_ids=(7, 8, 9)))


def test_a_chosen_node_shows_its_hypothesis_on_the_output_line_and_the_map(parts):
    parts, _ = parts
    chosen = node("kept", tokens=("▁I", "▁walk"))
    BeamTreeFollower(parts)._on_node_chosen(chosen)
    parts.output.set_pieces.assert_called_once_with(("▁I", "▁walk"))
    parts.panel.show_hypothesis.assert_called_once_with(chosen.step)


def test_the_output_shown_is_outlined_once_the_search_ended(parts):
    parts, state = parts
    follower = follower_with_pane(parts)
    best, shown = node("finished", score=-0.5, tokens=("▁a",)), node("finished", score=-2.0, tokens=("▁b",))
    items = [SimpleNamespace(node=best), SimpleNamespace(node=shown)]
    follower.dialog.tree.levels = [items]
    follower.levels = [(0, ("level",))]
    parts.panel.target_tokens.return_value = ["▁b"]
    state.running = True
    follower._outline_output()
    follower.dialog.tree.mark.assert_not_called()  # not while it searches
    state.running = False
    follower._outline_output()
    follower.dialog.tree.mark.assert_called_once_with(items[1])  # the output shown, not the best score
    parts.panel.target_tokens.return_value = ["▁c"]
    follower._outline_output()
    follower.dialog.tree.mark.assert_called_with(items[0])  # else the best-scored finished one
