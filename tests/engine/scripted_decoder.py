"""A decoder whose next-token distribution and attention row are read from a script, for search tests.

The script maps the hypothesis so far (a tuple of token ids, BOS left out) to the probabilities of
some next tokens and to the attention row of that step. What is not given is spread evenly over
the other word tokens (and EOS); PAD, UNK and BOS get almost nothing. The decoder state is the
hypothesis itself (one row of ids per live hypothesis, -1 after its end), so every search — greedy,
beam, batched — reads the same script whatever rows it keeps, and the outcome of a search is
known by hand.

:func:`scripted` puts the scripted step in place of the network's (``engine.decoding.search._step``, which
the batched searches call too, and the one beam search calls) for one test and returns the fake model.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import pytest
import torch
from torch import Tensor

import engine.decoding.beam_search
import engine.decoding.search
from engine.networks.model import Encoded, StepOutput
from engine.text.tokenizer import BOS_ID, EOS_ID

VOCAB = 12  # ids 4…11 are words
WORDS = tuple(range(4, VOCAB))
MAX_STEPS = 40
UNLIKELY = 1e-9  # what PAD, UNK and BOS get


@dataclass(frozen=True)
class Script:
    """next[history] = {token: p}; attention[history] = α of that step over the source (rows shorter than the
    source are padded with zeros). Histories not given end at once: EOS with ``default_eos``."""

    next: dict[tuple[int, ...], dict[int, float]]
    attention: dict[tuple[int, ...], tuple[float, ...]] = field(default_factory=dict)
    default_eos: float = 0.9
    default_attention: tuple[float, ...] = (1.0,)
    uses_attention: bool = True

    def log_probabilities(self, history: tuple[int, ...]) -> list[float]:
        given = self.next.get(history, {EOS_ID: self.default_eos})
        rest = [t for t in (EOS_ID, *WORDS) if t not in given]
        share = (1.0 - sum(given.values())) / len(rest)
        p = [UNLIKELY] * VOCAB
        for token in rest:
            p[token] = share
        for token, value in given.items():
            p[token] = value
        total = sum(p)
        return [math.log(value / total) for value in p]

    def row(self, history: tuple[int, ...], source_length: int) -> list[float]:
        row = list(self.attention.get(history, self.default_attention))
        return row + [0.0] * (source_length - len(row))


class ScriptedModel:
    """What the searches ask of a model besides its step: ``encode`` (the scripted state starts empty)."""

    def __init__(self, script: Script) -> None:
        self.script = script

    def encode(self, source: Tensor, lengths: Tensor) -> Encoded:
        """source: B×S, lengths: B → an Encoded whose state is B×MAX_STEPS ids (all -1: nothing produced)."""
        batch, width = source.shape
        mask = torch.arange(width).unsqueeze(0) < lengths.unsqueeze(1)  # B×S
        return Encoded(memory=torch.zeros(batch, width, 1), mask=mask, keys=torch.zeros(batch, width, 1),
                       values=torch.zeros(batch, width, 1),
                       summary=torch.zeros(batch, 1), initial_state=(torch.full((batch, MAX_STEPS), -1.0),))

    def encode_one(self, source_length: int) -> Encoded:
        return self.encode(torch.ones(1, source_length, dtype=torch.long), torch.tensor([source_length]))


def _scripted_step(model: ScriptedModel, previous: Tensor, state, encoded: Encoded, override: Tensor | None = None):
    """previous: K ids; state: (K×MAX_STEPS ids so far,) → (log p: K×V, StepOutput) read from the script."""
    produced = state[0].clone()
    rows, histories = [], []
    for k, token in enumerate(previous.tolist()):
        history = [int(t) for t in produced[k].tolist() if t >= 0]
        if token != BOS_ID:
            produced[k, len(history)] = token
            history.append(token)
        histories.append(tuple(history))
        rows.append(model.script.row(tuple(history), int(encoded.mask[k].sum())) + [0.0] * (
            encoded.mask.size(1) - int(encoded.mask[k].sum())))
    logp = torch.tensor([model.script.log_probabilities(h) for h in histories])
    weights = torch.tensor(rows, dtype=torch.float32) if model.script.uses_attention else None
    scores = torch.log(weights.clamp_min(1e-9)) if weights is not None else None
    return logp, StepOutput((produced,), torch.zeros(len(histories), 1), weights, scores)


def scripted(monkeypatch: pytest.MonkeyPatch, script: Script) -> ScriptedModel:
    """The fake model of ``script``, its step in place of the network's until the test ends."""
    monkeypatch.setattr(engine.decoding.search, "_step", _scripted_step)
    monkeypatch.setattr(engine.decoding.beam_search, "_step", _scripted_step)
    return ScriptedModel(script)


def names(ids: list[int]) -> list[str]:
    """The namer the searches take: ids → pieces."""
    return ["</s>" if i == EOS_ID else f"w{i}" for i in ids]


def run(generator) -> tuple[list, object]:
    """Drive a search generator to its end → (the steps it yielded, its return value)."""
    steps = []
    while True:
        try:
            steps.append(next(generator))
        except StopIteration as stop:
            return steps, stop.value
