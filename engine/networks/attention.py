"""The attention contract and the one-head scorers F(s_{i-1}, h_j), one class per mechanism.

**The contract.** A mechanism is an ``nn.Module`` subclass of :class:`Scorer` that owns the whole
attention step of the decoder:

- :meth:`Scorer.precompute_keys` — once per sentence, what the steps compare the query with;
- :meth:`Scorer.precompute_values` — once per sentence, what the steps mix into c_i (the memory h_j
  itself unless the mechanism projects it);
- :meth:`Scorer.attend` — at step i, the query s_{i-1} → :class:`Attention`: the weights α (B×H×S,
  padding exactly 0, each head's row summing to 1), the context c_i (B×D) and the raw scores e (B×H×S);
- :meth:`Scorer.mix` — given weights (B×H×S, e.g. set by hand in what-if decoding) → c_i.

H is the mechanism's number of heads (``heads``, from the registry): 1 for the five classic scorers,
whose weights are α_ij = softmax_j(e_ij) and context c_i = Σ_j α_ij h_j; a multi-head mechanism
(engine.networks.multihead) has one row per head. The shown row of a step (heatmap, statistics) is the heads'
mean — a distribution over the source tokens like any one head's (:meth:`Attention.row_weights`).

**The registry** is engine.settings.scorer_table: each row names its class (``implementation``), and
:data:`SCORERS` maps names to classes by importing them when first asked; a class takes its label,
formula and traits from its row (``class MyScorer(Scorer, entry="my_name")``).

Keys and values are computed once per sentence by :meth:`Scorer.precompute_keys` and
:meth:`Scorer.precompute_values` and passed back in explicitly at every step: the per-step cost is only
what depends on s_{i-1}. They are separate tensors, each laid out as its step reads it: a step that
read a slice of one joint tensor would, in training, send back a gradient the size of the whole of it.

Shapes: B batch, S source positions, D decoder size (= projected memory size), A attention size,
H heads.
"""

from __future__ import annotations

import importlib
import math
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Protocol

import torch
from torch import Tensor, nn

from engine.settings.errors import ConfigError
from engine.settings.scorer_table import RNN_SCORER_NAMES, SCORER_TABLE

SHOWN_SCORE_FLOOR = torch.finfo(torch.float32).tiny  # log of a mean weight that underflowed to 0 stays finite


class AttendedSource(Protocol):
    """What a mechanism reads about the source sentences (engine.networks.model.Encoded provides it)."""

    # read-only members: a frozen dataclass (Encoded) provides them
    @property
    def memory(self) -> Tensor: ...  # B×S×D: the projected encoder states h_j

    @property
    def mask(self) -> Tensor: ...  # B×S bool: True at real tokens

    @property
    def keys(self) -> Tensor: ...  # B×…: what :meth:`Scorer.precompute_keys` returned

    @property
    def values(self) -> Tensor: ...  # B×…: what :meth:`Scorer.precompute_values` returned (the memory itself for one head)

    @property
    def summary(self) -> Tensor: ...  # B×D: the fixed context C


@dataclass(frozen=True)
class Attention:
    """One decoder step's attention, for every head."""

    weights: Tensor | None  # B×H×S: α^h_ij as computed (padding 0, rows sum to 1); None for the fixed context
    context: Tensor  # B×D: c_i (formed from the weights after attention dropout, in training)
    scores: Tensor | None  # B×H×S: raw e^h_ij before the softmax, padding included

    @property
    def heads(self) -> int:
        return 0 if self.weights is None else self.weights.size(1)

    def row_weights(self) -> Tensor | None:
        """B×S: the row a step shows — the one head's α, or the heads' mean (a distribution too)."""
        if self.weights is None:
            return None
        return self.weights.squeeze(1) if self.heads == 1 else self.weights.mean(dim=1)

    def row_scores(self) -> Tensor | None:
        """B×S: the scores a step shows — the one head's raw e_ij; for several heads log ᾱ_ij, the
        scores whose softmax is the shown mean row (each head's own are in :attr:`scores`)."""
        if self.scores is None:
            return None
        if self.heads == 1:
            return self.scores.squeeze(1)
        return self.row_weights().clamp_min(SHOWN_SCORE_FLOOR).log()  # type: ignore[union-attr]


def masked_softmax(scores: Tensor, mask: Tensor, weight_dropout: nn.Module | None = None) -> tuple[Tensor, Tensor]:
    """scores: B×H×S raw e; mask: B×S bool (True = real token) → (weights α: B×H×S, padding exactly 0,
    rows summing to 1; the weights the context is mixed from: B×H×S).

    ``weight_dropout`` (training only; an ``nn.Dropout`` is the identity in eval mode) drops whole
    source positions from the sum that forms c_i, so that the context cannot rest on one position
    alone; the weights returned first — shown, measured — are the softmax as computed."""
    masked = scores.masked_fill(~mask.unsqueeze(1), float("-inf"))  # B×H×S
    weights = torch.softmax(masked, dim=-1)  # B×H×S
    return weights, (weights if weight_dropout is None else weight_dropout(weights))


class Scorer(nn.Module):
    """Base class of every mechanism; its default :meth:`attend` is the one-head step
    α_ij = softmax_j(e_ij), c_i = Σ_j α_ij h_j over the scores of :meth:`score`.

    ``uses_attention`` is False only for the fixed-context baseline. ``unscaled`` marks the scorers
    whose raw scores grow with the vector size (dot, bilinear): only they take a training
    temperature (see :meth:`set_training_temperature`).
    """

    name = ""
    uses_attention = True
    unscaled = False
    heads = 1
    label = ""
    formula = ""
    temperature = 1.0  # the raw scores are divided by it; 1 = the formula as written

    def __init_subclass__(cls, entry: str = "", **kwargs) -> None:
        """``entry``: the subclass's row of the registry, whose name, label, formula and traits it takes."""
        super().__init_subclass__(**kwargs)
        if entry:
            info = SCORER_TABLE[entry]
            cls.name, cls.label, cls.formula = info.name, info.label, info.formula
            cls.unscaled, cls.uses_attention, cls.heads = info.unscaled, info.uses_attention, info.heads

    def set_training_temperature(self, temperature: float) -> None:
        """Soften an unscaled scorer during the first part of training (the temperature warm-up of
        :class:`~engine.settings.config.TrainConfig`); a no-op for the others. Inference always uses 1."""
        if self.unscaled:
            self.temperature = float(temperature)

    def _query_dot_keys(self, query: Tensor, keys: Tensor) -> Tensor:
        """query: B×D, keys: B×S×D → sᵀk per position (B×S), divided by the training temperature."""
        scores = torch.bmm(keys, query.unsqueeze(2)).squeeze(2)  # B×S×D @ B×D×1 → B×S
        return scores if self.temperature == 1.0 else scores / self.temperature

    def precompute_keys(self, memory: Tensor) -> Tensor:
        """memory: B×S×D → keys, whatever the mechanism compares the query with (B×…, batch first)."""
        raise NotImplementedError

    def precompute_values(self, memory: Tensor) -> Tensor:
        """memory: B×S×D → what the weights mix (B×…, batch first): the memory itself by default."""
        return memory

    def score(self, query: Tensor, keys: Tensor) -> Tensor:
        """One-head scorers: query B×D (s_{i-1}), keys from :meth:`precompute_keys` → raw scores e: B×S."""
        raise NotImplementedError

    def attend(self, query: Tensor, source: AttendedSource, weight_dropout: nn.Module | None = None) -> Attention:
        """The step's attention: query B×D (s_{i-1}) → weights and scores B×H×S, context B×D."""
        scores = self.score(query, source.keys).unsqueeze(1)  # B×1×S
        weights, mixing = masked_softmax(scores, source.mask, weight_dropout)  # B×1×S
        return Attention(weights, self.mix(mixing, source), scores)

    def mix(self, weights: Tensor, source: AttendedSource) -> Tensor:
        """weights: B×H×S → the context they form, B×D (one head: c_i = Σ_j α_ij h_j)."""
        return torch.bmm(weights, source.memory).squeeze(1)  # B×1×S @ B×S×D → B×D


class AdditiveScorer(Scorer, entry="additive"):
    """Bahdanau et al. 2014, eq. 6 (appendix A.1.2): e_ij = vᵀ tanh(W s_{i-1} + U h_j)."""

    def __init__(self, size: int, attention_size: int) -> None:
        super().__init__()
        self.query_layer = nn.Linear(size, attention_size, bias=False)  # W
        self.key_layer = nn.Linear(size, attention_size, bias=False)  # U
        self.energy_layer = nn.Linear(attention_size, 1, bias=False)  # v

    def precompute_keys(self, memory: Tensor) -> Tensor:
        return self.key_layer(memory)  # B×S×D → B×S×A

    def score(self, query: Tensor, keys: Tensor) -> Tensor:
        projected = self.query_layer(query).unsqueeze(1)  # B×D → B×1×A
        energy = torch.tanh(projected + keys)  # B×S×A
        return self.energy_layer(energy).squeeze(2)  # B×S×1 → B×S


class BilinearScorer(Scorer, entry="bilinear"):
    """Luong et al. 2015, "general": e_ij = s_{i-1}ᵀ W h_j (W h_j computed once per sentence).
    Unscaled: grows with the vector size, so it is warmed up in training when asked."""

    def __init__(self, size: int, attention_size: int) -> None:
        super().__init__()
        self.key_layer = nn.Linear(size, size, bias=False)  # W

    def precompute_keys(self, memory: Tensor) -> Tensor:
        return self.key_layer(memory)  # B×S×D → B×S×D

    def score(self, query: Tensor, keys: Tensor) -> Tensor:
        return self._query_dot_keys(query, keys)  # sᵀ (W h_j)


class DotScorer(Scorer, entry="dot"):
    """Luong et al. 2015, "dot": e_ij = s_{i-1}ᵀ h_j. No parameters; sizes must match (they do:
    the memory is projected to the decoder size). Unscaled, like bilinear."""

    def __init__(self, size: int, attention_size: int) -> None:
        super().__init__()

    def precompute_keys(self, memory: Tensor) -> Tensor:
        return memory  # B×S×D

    def score(self, query: Tensor, keys: Tensor) -> Tensor:
        return self._query_dot_keys(query, keys)  # sᵀ h_j (scaled dot: the keys carry 1/√d)


class ScaledDotScorer(DotScorer, entry="scaled_dot"):
    """Vaswani et al. 2017: e_ij = s_{i-1}ᵀ h_j / √D, keeping the softmax out of saturation
    (already divided by √d: no warm-up needed)."""

    def __init__(self, size: int, attention_size: int) -> None:
        super().__init__(size, attention_size)
        self.scale = 1.0 / math.sqrt(size)

    def precompute_keys(self, memory: Tensor) -> Tensor:
        return memory * self.scale  # B×S×D, the 1/√D folded into the keys once


class FixedContextScorer(Scorer, entry="none"):
    """Plain sequence-to-sequence (Sutskever/Cho 2014): no scores; every step sees the same C."""

    def __init__(self, size: int, attention_size: int) -> None:
        super().__init__()

    def precompute_keys(self, memory: Tensor) -> Tensor:
        return memory[:, :0]  # B×0×D: nothing to compare with

    def score(self, query: Tensor, keys: Tensor) -> Tensor:
        raise ConfigError("the 'none' scorer has no attention scores; the context is the fixed C")

    def attend(self, query: Tensor, source: AttendedSource, weight_dropout: nn.Module | None = None) -> Attention:
        return Attention(None, source.summary, None)  # c_i = C: B×D

    def mix(self, weights: Tensor, source: AttendedSource) -> Tensor:
        return source.summary  # no weights to mix: C


class _RegisteredScorers(Mapping[str, type[Scorer]]):
    """Registry name → mechanism class of the RNN encoder–decoder, in the registry's order; each class is
    imported from its row's ``implementation`` when first asked for (a mechanism's module may import this
    one). The Transformer's row names a model of its own (engine.networks.transformer), not a scorer."""

    def __getitem__(self, name: str) -> type[Scorer]:
        if name not in RNN_SCORER_NAMES:
            raise KeyError(name)
        module_name, _, class_name = SCORER_TABLE[name].implementation.partition(":")
        scorer_class = getattr(importlib.import_module(module_name), class_name)
        if not (isinstance(scorer_class, type) and issubclass(scorer_class, Scorer) and scorer_class.name == name):
            raise ConfigError(f"the registry's {name!r} names {class_name}, which is not a Scorer declared "
                              f"with entry={name!r}")
        return scorer_class

    def __iter__(self) -> Iterator[str]:
        return iter(RNN_SCORER_NAMES)

    def __len__(self) -> int:
        return len(RNN_SCORER_NAMES)


SCORERS: Mapping[str, type[Scorer]] = _RegisteredScorers()


def build_scorer(name: str, size: int, attention_size: int) -> Scorer:
    """The mechanism registered under ``name``; an unknown name lists the valid ones."""
    if name in SCORER_TABLE and name not in RNN_SCORER_NAMES:
        raise ConfigError(f"{name!r} is a model of its own ({SCORER_TABLE[name].implementation}), not a scorer of the "
                          f"RNN encoder–decoder; valid scorers: {', '.join(RNN_SCORER_NAMES)}")
    if name not in RNN_SCORER_NAMES:
        raise ConfigError(f"unknown scorer {name!r}; valid: {', '.join(RNN_SCORER_NAMES)}")
    return SCORERS[name](size, attention_size)
