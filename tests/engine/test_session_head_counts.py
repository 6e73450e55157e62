"""A session whose steps carry different head counts is refused when it is loaded, in one line — not
loaded and then failing on every replayed step."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from engine.records import SessionFileError
from engine.records.session_file import load_session
from engine.records.session_save import save_session
from tests.engine.test_session_file import hand_made_steps, session


def _with_heads(*counts: int):
    """The hand-made steps, each carrying ``counts[k]`` heads' rows (uniform weights over the source)."""
    steps = hand_made_steps()
    width = len(steps[0].attention)
    return tuple(replace(step, head_attention=np.full((count, width), 1 / width, np.float32))
                 for step, count in zip(steps, counts, strict=True))


def test_steps_with_one_head_count_load(tmp_path) -> None:
    path = save_session(tmp_path / "s.session.json", session(_with_heads(4, 4, 4)))
    assert {len(step.head_attention) for step in load_session(path).steps} == {4}


def test_steps_with_different_head_counts_are_refused_in_one_line(tmp_path) -> None:
    path = save_session(tmp_path / "s.session.json", session(_with_heads(4, 2, 4)))
    with pytest.raises(SessionFileError, match=r"different head counts \(2, 4\)") as refused:
        load_session(path)
    assert "\n" not in str(refused.value)
