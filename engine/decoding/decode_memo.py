"""The last greedy decode of a sentence, kept so that a what-if decode need not redo its beginning.

What-if decoding (engine.decoding.whatif) asks again about the sentence just decoded: "continue from this
alternative at step i", "attend here at step i". Everything before step i is the decode already on
screen — the same source, the same tokens fed back, the same attention — so its encoder output
and decoder states are reused instead of recomputed: continuing from step i costs the steps from
i on, not the whole sentence again (bench/bench_whatif.py measures it).

A memo is immutable and belongs to one translator; reusing it gives exactly the numbers a fresh
decode would (the same operations on the same values), which the tests check.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from engine.decoding.search import DecodeStep, Steering
from engine.networks.model import Encoded, State


def _same_override(first: np.ndarray | None, second: np.ndarray | None) -> bool:
    if first is None or second is None:
        return first is None and second is None
    return first.shape == second.shape and bool(np.array_equal(first, second))


@dataclass(frozen=True)
class GreedyMemo:
    """One finished greedy decode: its source, encoder output, steps and the state after each step."""

    source_ids: tuple[int, ...]
    top_k: int  # the alternatives each step lists
    encoded: Encoded
    steps: tuple[DecodeStep, ...]
    states: tuple[State, ...]  # states[i]: the decoder state after step i
    overrides: dict[int, np.ndarray] = field(default_factory=dict)  # the attention set by hand in that decode

    def matches(self, source_ids: tuple[int, ...], top_k: int) -> bool:
        return source_ids == self.source_ids and top_k == self.top_k

    def reusable_steps(self, steering: Steering) -> int:
        """How many leading steps a decode steered by ``steering`` repeats: its forced prefix agrees
        with this decode's tokens so far, and the attention set by hand agrees at each of them."""
        count = 0
        for step, token_id in zip(self.steps, steering.prefix, strict=False):
            if step.token_id != token_id or step.is_eos:
                break
            if not _same_override(self.overrides.get(count), steering.overrides.get(count)):
                break
            count += 1
        return count
