"""A Transformer's decode saved as a session keeps every layer's and head's attention (cross- and
self-attention), and a file whose layer maps are damaged or mismatched is refused in one line."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from engine.records import SessionFileError
from engine.records.session_file import load_session
from engine.records.session_save import save_session
from tests.engine.test_session_file import hand_made_steps, session


def _with_layers(layers: int = 2, heads: int = 4, *, shapes: tuple[tuple[int, int], ...] = ()):
    """The hand-made steps, each with (layers×heads) uniform cross-attention over the source and causal
    self-attention over its output so far; ``shapes`` gives a step its own layers×heads."""
    steps = hand_made_steps()
    width = len(steps[0].attention)
    made = []
    for k, step in enumerate(steps):
        depth, count = shapes[k] if shapes else (layers, heads)
        own = np.full((depth, count, step.index + 1), 1 / (step.index + 1), np.float32)
        made.append(replace(step, layer_attention=np.full((depth, count, width), 1 / width, np.float32),
                            self_attention=own))
    return tuple(made)


def test_layer_and_self_attention_survive_a_save_and_a_load(tmp_path) -> None:
    steps = _with_layers()
    loaded = load_session(save_session(tmp_path / "s.session.json", session(steps))).steps
    for mine, theirs in zip(steps, loaded, strict=True):
        np.testing.assert_allclose(theirs.layer_attention, mine.layer_attention, atol=1e-6)
        np.testing.assert_allclose(theirs.self_attention, mine.self_attention, atol=1e-6)


def test_a_session_without_layer_maps_loads_without_them(tmp_path) -> None:
    loaded = load_session(save_session(tmp_path / "s.session.json", session(hand_made_steps()))).steps
    assert all(step.layer_attention is None and step.self_attention is None for step in loaded)


def test_steps_of_different_layers_and_heads_are_refused_in_one_line(tmp_path) -> None:
    path = save_session(tmp_path / "s.session.json", session(_with_layers(shapes=((2, 4), (2, 2), (2, 4)))))
    with pytest.raises(SessionFileError, match=r"different layers × heads \(2×2, 2×4\)") as refused:
        load_session(path)
    assert "\n" not in str(refused.value)


def test_layer_rows_that_are_not_attention_are_refused(tmp_path) -> None:
    steps = _with_layers()
    broken = (replace(steps[0], layer_attention=steps[0].layer_attention * 2), *steps[1:])
    with pytest.raises(SessionFileError, match="layer_attention is not attention"):
        load_session(save_session(tmp_path / "s.session.json", session(broken)))


def test_self_attention_longer_than_the_output_so_far_is_refused(tmp_path) -> None:
    steps = _with_layers()
    wide = np.full((2, 4, steps[0].index + 3), 1 / (steps[0].index + 3), np.float32)
    with pytest.raises(SessionFileError, match="self_attention has shape"):
        load_session(save_session(tmp_path / "s.session.json", session((replace(steps[0], self_attention=wide),
                                                                        *steps[1:]))))
