"""Attention scorers F(s_{i-1}, h_j): one class per mechanism, registered by name.

At decoder step i the query is the previous decoder state s_{i-1}; every scorer returns the raw
scores e_ij over the source positions j, which :func:`attend` turns into weights
α_ij = softmax_j(e_ij) (padding gets exactly zero) and the context c_i = Σ_j α_ij h_j.

Keys are computed once per sentence by :meth:`Scorer.precompute_keys` and passed back in
explicitly at every step: the per-step cost is only what depends on s_{i-1}.

Shapes: B batch, S source positions, D decoder size (= projected memory size), A attention size.
"""

from __future__ import annotations

import math

import torch
from torch import Tensor, nn

from engine.errors import ConfigError
from engine.scorer_table import SCORER_TABLE


class Scorer(nn.Module):
    """Base class. ``uses_attention`` is False only for the fixed-context baseline.

    ``unscaled`` marks the scorers whose raw scores grow with the vector size (dot, bilinear): only
    they take a training temperature (see :meth:`set_training_temperature`).
    """

    uses_attention = True
    unscaled = False
    label = ""
    formula = ""
    temperature = 1.0  # the raw scores are divided by it; 1 = the formula as written

    def set_training_temperature(self, temperature: float) -> None:
        """Soften an unscaled scorer during the first part of training (the temperature warm-up of
        :class:`~engine.config.TrainConfig`); a no-op for the others. Inference always uses 1."""
        if self.unscaled:
            self.temperature = float(temperature)

    def _query_dot_keys(self, query: Tensor, keys: Tensor) -> Tensor:
        """query: B×D, keys: B×S×D → sᵀk per position (B×S), divided by the training temperature."""
        scores = torch.bmm(keys, query.unsqueeze(2)).squeeze(2)  # B×S×D @ B×D×1 → B×S
        return scores if self.temperature == 1.0 else scores / self.temperature

    def precompute_keys(self, memory: Tensor) -> Tensor:
        """memory: B×S×D → keys, whatever the scorer compares the query with (B×S×·)."""
        raise NotImplementedError

    def score(self, query: Tensor, keys: Tensor) -> Tensor:
        """query: B×D (s_{i-1}), keys from :meth:`precompute_keys` → raw scores e: B×S."""
        raise NotImplementedError


class AdditiveScorer(Scorer):
    """Bahdanau et al. 2014, eq. 6 (appendix A.1.2): e_ij = vᵀ tanh(W s_{i-1} + U h_j)."""

    label, formula = SCORER_TABLE["additive"].label, SCORER_TABLE["additive"].formula

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


class BilinearScorer(Scorer):
    """Luong et al. 2015, "general": e_ij = s_{i-1}ᵀ W h_j (W h_j computed once per sentence)."""

    label, formula = SCORER_TABLE["bilinear"].label, SCORER_TABLE["bilinear"].formula
    unscaled = SCORER_TABLE["bilinear"].unscaled  # grows with the vector size: warmed up in training when asked

    def __init__(self, size: int, attention_size: int) -> None:
        super().__init__()
        self.key_layer = nn.Linear(size, size, bias=False)  # W

    def precompute_keys(self, memory: Tensor) -> Tensor:
        return self.key_layer(memory)  # B×S×D → B×S×D

    def score(self, query: Tensor, keys: Tensor) -> Tensor:
        return self._query_dot_keys(query, keys)  # sᵀ (W h_j)


class DotScorer(Scorer):
    """Luong et al. 2015, "dot": e_ij = s_{i-1}ᵀ h_j. No parameters; sizes must match (they do:
    the memory is projected to the decoder size)."""

    label, formula = SCORER_TABLE["dot"].label, SCORER_TABLE["dot"].formula
    unscaled = SCORER_TABLE["dot"].unscaled  # grows with the vector size: warmed up in training when asked

    def __init__(self, size: int, attention_size: int) -> None:
        super().__init__()

    def precompute_keys(self, memory: Tensor) -> Tensor:
        return memory  # B×S×D

    def score(self, query: Tensor, keys: Tensor) -> Tensor:
        return self._query_dot_keys(query, keys)  # sᵀ h_j (scaled dot: the keys carry 1/√d)


class ScaledDotScorer(DotScorer):
    """Vaswani et al. 2017: e_ij = s_{i-1}ᵀ h_j / √D, keeping the softmax out of saturation."""

    label, formula = SCORER_TABLE["scaled_dot"].label, SCORER_TABLE["scaled_dot"].formula
    unscaled = SCORER_TABLE["scaled_dot"].unscaled  # already divided by √d: no warm-up needed

    def __init__(self, size: int, attention_size: int) -> None:
        super().__init__(size, attention_size)
        self.scale = 1.0 / math.sqrt(size)

    def precompute_keys(self, memory: Tensor) -> Tensor:
        return memory * self.scale  # B×S×D, the 1/√D folded into the keys once


class FixedContextScorer(Scorer):
    """Plain sequence-to-sequence (Sutskever/Cho 2014): no scores; every step sees the same C."""

    uses_attention = SCORER_TABLE["none"].uses_attention
    label, formula = SCORER_TABLE["none"].label, SCORER_TABLE["none"].formula

    def __init__(self, size: int, attention_size: int) -> None:
        super().__init__()

    def precompute_keys(self, memory: Tensor) -> Tensor:
        return memory[:, :0]  # B×0×D: nothing to compare with

    def score(self, query: Tensor, keys: Tensor) -> Tensor:
        raise ConfigError("the 'none' scorer has no attention scores; the context is the fixed C")


SCORERS: dict[str, type[Scorer]] = {
    "additive": AdditiveScorer,
    "bilinear": BilinearScorer,
    "dot": DotScorer,
    "scaled_dot": ScaledDotScorer,
    "none": FixedContextScorer,
}


def build_scorer(name: str, size: int, attention_size: int) -> Scorer:
    """The scorer registered under ``name``; an unknown name lists the valid ones."""
    try:
        scorer_class = SCORERS[name]
    except KeyError:
        raise ConfigError(f"unknown scorer {name!r}; valid: {', '.join(SCORERS)}") from None
    return scorer_class(size, attention_size)


def attend(scores: Tensor, mask: Tensor, memory: Tensor,
           weight_dropout: nn.Module | None = None) -> tuple[Tensor, Tensor]:
    """Masked softmax and weighted sum.

    scores: B×S raw e_ij; mask: B×S bool (True = real token); memory: B×S×D.
    ``weight_dropout`` (training only; an ``nn.Dropout`` is the identity in eval mode) drops whole
    source positions from the sum that forms c_i, so that the context cannot rest on one position
    alone; the weights returned — shown, measured — are the softmax as computed.
    Returns (weights α: B×S, padding exactly 0, rows summing to 1; context c: B×D).
    """
    masked = scores.masked_fill(~mask, float("-inf"))  # B×S
    weights = torch.softmax(masked, dim=1)  # B×S
    mixing = weights if weight_dropout is None else weight_dropout(weights)  # B×S
    context = torch.bmm(mixing.unsqueeze(1), memory).squeeze(1)  # B×1×S @ B×S×D → B×D
    return weights, context
