"""Multi-head scaled-dot cross-attention (Vaswani et al. 2017, §3.2.2) on the RNN encoder–decoder.

The query is the previous decoder state s_{i-1}, the keys and values the projected encoder states
h_j, as for every mechanism of the registry (engine.networks.attention); each of the H heads has its own
d = D/H-sized projections:

    e^h_ij = (W_Q^h s_{i-1})ᵀ (W_K^h h_j) / √d          (scaled dot product, per head)
    α^h_ij = softmax_j(e^h_ij)                          (padding exactly 0)
    c_i    = W_O [Σ_j α^1_ij W_V^1 h_j; …; Σ_j α^H_ij W_V^H h_j]

W_Q, W_K, W_V, W_O are D×D (the heads' blocks side by side), without biases, as in the paper's
equations. Keys and values are projected once per sentence, each into its own B×H×S×d tensor (the
layout a step's batched products read without a copy); a step costs one D×D product for the query and
one for the output. The row a step shows is the heads' mean ᾱ_ij (engine.networks.attention).

Shapes: B batch, S source positions, D decoder size, H heads, d = D/H.
"""

from __future__ import annotations

import math

import torch
from torch import Tensor, nn

from engine.networks.attention import AttendedSource, Attention, Scorer, masked_softmax
from engine.settings.errors import ConfigError


class MultiHeadScorer(Scorer, entry="multihead"):
    """H heads of scaled-dot attention from s_{i-1} to the h_j, their contexts joined by W_O."""

    def __init__(self, size: int, attention_size: int) -> None:
        super().__init__()
        if size % self.heads:
            raise ConfigError(f"the {self.label} mechanism splits the decoder size into {self.heads} heads: "
                              f"it must be a multiple of {self.heads}; got {size}")
        self.size, self.head_size = size, size // self.heads
        self.query_layer = nn.Linear(size, size, bias=False)  # W_Q
        self.key_layer = nn.Linear(size, size, bias=False)  # W_K
        self.value_layer = nn.Linear(size, size, bias=False)  # W_V
        self.output_layer = nn.Linear(size, size, bias=False)  # W_O
        self.scale = 1.0 / math.sqrt(self.head_size)

    def precompute_keys(self, memory: Tensor) -> Tensor:
        """memory: B×S×D → the keys per head, 1/√d folded in: B×H×S×d (contiguous)."""
        return self._split(self.key_layer(memory) * self.scale)

    def precompute_values(self, memory: Tensor) -> Tensor:
        """memory: B×S×D → the values per head: B×H×S×d (contiguous)."""
        return self._split(self.value_layer(memory))

    def _split(self, projected: Tensor) -> Tensor:
        """B×S×D → B×H×S×d, contiguous."""
        batch, length, _ = projected.shape
        return projected.view(batch, length, self.heads, self.head_size).transpose(1, 2).contiguous()

    def attend(self, query: Tensor, source: AttendedSource, weight_dropout: nn.Module | None = None) -> Attention:
        """query: B×D → weights, scores B×H×S and context B×D."""
        keys = source.keys  # B×H×S×d
        queries = self.query_layer(query).view(query.size(0), self.heads, self.head_size, 1)  # B×H×d×1
        scores = torch.matmul(keys, queries).squeeze(3)  # B×H×S
        weights, mixing = masked_softmax(scores, source.mask, weight_dropout)  # B×H×S
        return Attention(weights, self.mix(mixing, source), scores)

    def mix(self, weights: Tensor, source: AttendedSource) -> Tensor:
        """weights: B×H×S → c_i = W_O [per head Σ_j α^h_ij v^h_j]: B×D."""
        per_head = torch.matmul(weights.unsqueeze(2), source.values).squeeze(2)  # B×H×1×S @ B×H×S×d → B×H×d
        return self.output_layer(per_head.reshape(weights.size(0), self.size))  # B×D
