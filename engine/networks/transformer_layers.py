"""The Transformer's parts (Vaswani et al. 2017): multi-head scaled-dot attention, positions, and the
pre-norm encoder and decoder layers (Xiong et al. 2020: each sub-layer reads LayerNorm(x) and adds its
output to x, a final LayerNorm closes each stack) — the layers of engine.networks.transformer.

Every attention here is the seed's three formulas per head h, with the query, keys and values
projected by the head's own W_Q^h, W_K^h, W_V^h:

    e^h_ij = (W_Q^h x_i)ᵀ (W_K^h m_j) / √d        α^h_ij = softmax_j(e^h_ij)
    c^h_i  = Σ_j α^h_ij W_V^h m_j                 out_i  = W_O [c^1_i; …; c^H_i]

In training the product runs fused (``scaled_dot_product_attention``, no weights kept); when the
weights are asked for (translating, the tests' reference) they are computed explicitly and returned
per head, so that the app can show every layer and head.

Shapes: B batch, T queries (target positions), S keys (source or earlier target positions), D model
size, H heads, d = D/H, F feed-forward size.
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as functional
from torch import Tensor, nn

MAX_POSITIONS = 1024  # learned positions: the longest sequence they cover (inputs are capped well below)


class MultiHeadAttention(nn.Module):
    """H heads of scaled-dot attention from queries to keys/values (self- or cross-attention)."""

    def __init__(self, size: int, heads: int, dropout: float) -> None:
        super().__init__()
        self.heads, self.head_size = heads, size // heads
        self.query_layer = nn.Linear(size, size)  # W_Q (the heads' blocks side by side)
        self.key_layer = nn.Linear(size, size)  # W_K
        self.value_layer = nn.Linear(size, size)  # W_V
        self.output_layer = nn.Linear(size, size)  # W_O
        self.dropout = dropout  # on the weights, training only
        self._fused: tuple[tuple[tuple[int, int], ...], Tensor, Tensor] | None = None  # query_key_value's

    def split(self, projected: Tensor) -> Tensor:
        """B×T×D → B×H×T×d."""
        batch, length, _ = projected.shape
        return projected.view(batch, length, self.heads, self.head_size).transpose(1, 2)

    def keys_values(self, memory: Tensor) -> tuple[Tensor, Tensor]:
        """memory: B×S×D → (keys, values), each B×H×S×d."""
        return self.split(_linear(self.key_layer, memory)), self.split(_linear(self.value_layer, memory))

    def forward(self, queries: Tensor, keys: Tensor, values: Tensor, allowed: Tensor | None,
                need_weights: bool = False, override: Tensor | None = None) -> tuple[Tensor, Tensor | None, Tensor]:
        """queries: B×T×D (not yet projected); keys, values: B×H×S×d; ``allowed``: bool, broadcastable to
        B×H×T×S (True = may attend) or None → (out B×T×D, weights B×H×T×S or None, the heads' mixed
        values before W_O: B×T×D).

        ``override`` (B×S rows summing to 1; inference, T = 1) replaces every head's weights in the
        mix (what-if decoding); the weights returned are the model's own."""
        query = self.split(_linear(self.query_layer, queries))  # B×H×T×d
        if not need_weights and override is None:
            mixed = functional.scaled_dot_product_attention(
                query, keys, values, attn_mask=allowed, dropout_p=self.dropout if self.training else 0.0)
            weights = None
        else:
            scores = torch.matmul(query, keys.transpose(-1, -2)) / math.sqrt(self.head_size)  # B×H×T×S
            if allowed is not None:
                scores = scores.masked_fill(~allowed, float("-inf"))
            weights = torch.softmax(scores, dim=-1)  # B×H×T×S
            mixing = weights if override is None else override[:, None, None, :].expand_as(weights)
            if self.training and self.dropout > 0:
                mixing = functional.dropout(mixing, self.dropout)
            mixed = torch.matmul(mixing, values)  # B×H×T×d
        joined = mixed.transpose(1, 2).reshape(queries.size(0), queries.size(1), -1)  # B×T×D
        return _linear(self.output_layer, joined), weights, joined

    def query_key_value(self) -> tuple[Tensor, Tensor]:
        """[W_Q; W_K; W_V] (3D×D) and their biases (3D) in one matrix: a decoding step's self-attention
        projects its one new position with one product instead of three. Built when first asked for and
        again whenever a parameter changes (training, loading: each keyed on its version and storage)."""
        parts = (self.query_layer.weight, self.key_layer.weight, self.value_layer.weight,
                 self.query_layer.bias, self.key_layer.bias, self.value_layer.bias)
        key = tuple((part._version, part.data_ptr()) for part in parts)
        cached = self._fused
        if cached is None or cached[0] != key:
            with torch.no_grad():
                cached = key, torch.cat(parts[:3]), torch.cat(parts[3:])
            self._fused = cached
        return cached[1], cached[2]


def _attend_row(query: Tensor, keys: Tensor, values: Tensor, blocked: Tensor | None, override: Tensor | None,
                root: float, output: tuple[Tensor, Tensor]) -> tuple[Tensor, Tensor]:
    """:meth:`MultiHeadAttention.forward`'s explicit path for one query position per row, inference only.
    query: B×H×1×d (projected); keys, values: B×H×S×d; ``blocked``: B×1×1×S bool (True = may not attend) or
    None; ``override`` (B×S) as in forward; root: √d; output: W_O and its bias → (out B×D, weights B×H×S)."""
    scores = torch.matmul(query, keys.transpose(-1, -2)) / root  # B×H×1×S
    if blocked is not None:
        scores = scores.masked_fill(blocked, float("-inf"))
    weights = torch.softmax(scores, dim=-1)  # B×H×1×S
    mixing = weights if override is None else override[:, None, None, :].expand_as(weights)
    mixed = torch.matmul(mixing, values)  # B×H×1×d: the heads side by side once flattened
    return functional.linear(mixed.view(query.size(0), -1), *output), weights[:, :, 0]


def _linear(layer: nn.Linear, x: Tensor) -> Tensor:
    """``layer(x)``, the same operation (nn.Linear.forward is this call) without a module call's bookkeeping,
    which costs as much as a small product at one row: a decoding step makes 16 of them."""
    return functional.linear(x, layer.weight, layer.bias)


def layer_norm(layer: nn.LayerNorm, x: Tensor) -> Tensor:
    """``layer(x)`` (nn.LayerNorm.forward is this call) without a module call's bookkeeping."""
    return functional.layer_norm(x, layer.normalized_shape, layer.weight, layer.bias, layer.eps)


class FeedForward(nn.Module):
    """W_2 dropout(ReLU(W_1 x)): D → F → D."""

    def __init__(self, size: int, hidden: int, activation_dropout: float) -> None:
        super().__init__()
        self.inner = nn.Linear(size, hidden)
        self.outer = nn.Linear(hidden, size)
        self.dropout = nn.Dropout(activation_dropout)

    def forward(self, x: Tensor) -> Tensor:
        active = torch.relu(_linear(self.inner, x))
        return _linear(self.outer, self.dropout(active) if self.training else active)  # dropout is the identity in eval


class Positions(nn.Module):
    """What is added to the scaled embeddings at each position: fixed sinusoids (Vaswani et al. §3.5)
    or a learned vector per position."""

    sinusoids: Tensor  # MAX_POSITIONS×D, a buffer (fixed sinusoids only)

    def __init__(self, kind: str, size: int) -> None:
        super().__init__()
        self.kind = kind
        if kind == "learned":
            self.table = nn.Embedding(MAX_POSITIONS, size)
            nn.init.normal_(self.table.weight, 0.0, size**-0.5)
        else:
            self.register_buffer("sinusoids", sinusoids(MAX_POSITIONS, size), persistent=False)

    def forward(self, start: int, length: int) -> Tensor:
        """Positions start … start+length−1 → length×D."""
        if start + length > MAX_POSITIONS:
            raise ValueError(f"a sequence of {start + length} positions is longer than the {MAX_POSITIONS} covered")
        if self.kind == "learned":
            return self.table.weight[start : start + length]
        return self.sinusoids[start : start + length]


def sinusoids(length: int, size: int) -> Tensor:
    """length×D: PE(p, 2k) = sin(p / 10000^(2k/D)), PE(p, 2k+1) = cos(…)."""
    position = torch.arange(length, dtype=torch.float32).unsqueeze(1)  # L×1
    rates = torch.exp(torch.arange(0, size, 2, dtype=torch.float32) * (-math.log(10000.0) / size))  # D/2
    table = torch.zeros(length, size)
    table[:, 0::2] = torch.sin(position * rates)
    table[:, 1::2] = torch.cos(position * rates[: size // 2])
    return table


class EncoderLayer(nn.Module):
    """x + SelfAttention(LN(x)), then x + FeedForward(LN(x))."""

    def __init__(self, size: int, heads: int, hidden: int, dropout: float, attention_dropout: float,
                 activation_dropout: float) -> None:
        super().__init__()
        self.attention_norm = nn.LayerNorm(size)
        self.attention = MultiHeadAttention(size, heads, attention_dropout)
        self.feed_forward_norm = nn.LayerNorm(size)
        self.feed_forward = FeedForward(size, hidden, activation_dropout)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x: Tensor, allowed: Tensor, need_weights: bool = False) -> tuple[Tensor, Tensor | None]:
        """x: B×S×D, allowed: B×1×1×S → (B×S×D, self-attention weights B×H×S×S or None)."""
        normed = self.attention_norm(x)
        keys, values = self.attention.keys_values(normed)
        attended, weights, _ = self.attention(normed, keys, values, allowed, need_weights)
        x = x + self.dropout(attended)
        return x + self.dropout(self.feed_forward(self.feed_forward_norm(x))), weights


class DecoderLayer(nn.Module):
    """x + CausalSelfAttention(LN(x)), then x + CrossAttention(LN(x), memory), then x + FeedForward(LN(x))."""

    def __init__(self, size: int, heads: int, hidden: int, dropout: float, attention_dropout: float,
                 activation_dropout: float) -> None:
        super().__init__()
        self.self_attention_norm = nn.LayerNorm(size)
        self.self_attention = MultiHeadAttention(size, heads, attention_dropout)
        self.cross_attention_norm = nn.LayerNorm(size)
        self.cross_attention = MultiHeadAttention(size, heads, attention_dropout)
        self.feed_forward_norm = nn.LayerNorm(size)
        self.feed_forward = FeedForward(size, hidden, activation_dropout)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x: Tensor, own: tuple[Tensor, Tensor] | None, cross: tuple[Tensor, Tensor],
                causal: Tensor | None, source_allowed: Tensor, need_weights: bool = False,
                override: Tensor | None = None) -> tuple[Tensor, tuple[Tensor, Tensor], LayerWeights]:
        """x: B×T×D (T new positions); ``own``: this layer's self-attention keys and values of the earlier
        positions (B×H×t×d each) or None; ``cross``: its keys and values of the memory (B×H×S×d);
        ``causal``: T×(t+T) bool or None (T = 1: every earlier position is allowed); ``source_allowed``:
        B×1×1×S → (B×T×D, the self-attention keys and values of all t+T positions, the weights)."""
        normed = layer_norm(self.self_attention_norm, x)
        keys, values = self.self_attention.keys_values(normed)  # B×H×T×d
        if own is not None:
            keys, values = torch.cat([own[0], keys], dim=2), torch.cat([own[1], values], dim=2)
        attended, self_weights, _ = self.self_attention(normed, keys, values, causal, need_weights)
        x = self._residual(x, attended)
        attended, cross_weights, _ = self.cross_attention(
            layer_norm(self.cross_attention_norm, x), cross[0], cross[1], source_allowed, need_weights, override)
        x = self._residual(x, attended)
        x = self._residual(x, self.feed_forward(layer_norm(self.feed_forward_norm, x)))
        return x, (keys, values), LayerWeights(self_weights, cross_weights, attended)

    def step_weights(self) -> tuple:
        """What :meth:`step` reads, in its order: the three layer norms' weights, biases and ε, the self-attention's
        W_Q, W_K, W_V joined (:meth:`MultiHeadAttention.query_key_value`) and its W_O, the cross-attention's W_Q
        and W_O, the feed-forward's W_1 and W_2 (each with its bias), the heads and √d. Gathered once a sentence
        (TransformerDecoder._inference_step) instead of looked up module by module at every step."""
        own, cross, inner, outer = (self.self_attention, self.cross_attention, self.feed_forward.inner,
                                    self.feed_forward.outer)
        norms = [self.self_attention_norm, self.cross_attention_norm, self.feed_forward_norm]
        layers = [cross.query_layer, cross.output_layer, inner, outer]
        return (*[(norm.weight, norm.bias, norm.eps) for norm in norms], own.query_key_value(),
                (own.output_layer.weight, own.output_layer.bias), *[(layer.weight, layer.bias) for layer in layers],
                own.heads, math.sqrt(own.head_size))

    @staticmethod
    def step(x: Tensor, own: tuple[Tensor, Tensor], cross: tuple[Tensor, Tensor], blocked: Tensor | None,
             override: Tensor | None, weights: tuple) -> tuple[Tensor, Tensor, Tensor, Tensor, Tensor, Tensor]:
        """One new position per row, inference only (:meth:`forward`'s operations on B×D rows, the
        self-attention's W_Q, W_K, W_V as one product), with ``weights`` = :meth:`step_weights`. x: B×D;
        ``own``: the earlier positions' keys and values (B×H×t×d each); ``cross``: the memory's keys and values
        (B×H×S×d); ``blocked``: B×1×1×S (True = padding) or None → (x B×D, keys and values B×H×(t+1)×d,
        self-attention weights B×H×(t+1), cross-attention weights B×H×S, the cross-attention's output: the
        layer's context c_i, B×D)."""
        norm_own, norm_cross, norm_ff, joined, out_own, query_cross, out_cross, inner, outer, heads, root = weights
        # torch.layer_norm: the op functional.layer_norm calls, without its Python wrapper (6 calls a step)
        batch, size = x.shape
        projected = functional.linear(torch.layer_norm(x, (size,), *norm_own), *joined)  # B×3D
        query, key, value = projected.view(batch, 3, heads, 1, -1).unbind(1)  # B×H×1×d each
        keys, values = torch.cat([own[0], key], dim=2), torch.cat([own[1], value], dim=2)  # B×H×(t+1)×d
        attended, own_weights = _attend_row(query, keys, values, None, None, root, out_own)
        x = x + attended
        query = functional.linear(torch.layer_norm(x, (size,), *norm_cross), *query_cross)  # B×D
        context, cross_weights = _attend_row(query.view(batch, heads, 1, -1), cross[0], cross[1], blocked, override,
                                             root, out_cross)
        x = x + context
        active = torch.relu(functional.linear(torch.layer_norm(x, (size,), *norm_ff), *inner))  # B×F
        return x + functional.linear(active, *outer), keys, values, own_weights, cross_weights, context

    def _residual(self, x: Tensor, update: Tensor) -> Tensor:
        """x + dropout(update); in eval the dropout module is not called (the identity: one call less a step)."""
        return x + (self.dropout(update) if self.training else update)


class LayerWeights:
    """One decoder layer's attention at the new positions: self B×H×T×(t+T), cross B×H×T×S (None in
    training), and the cross-attention's output W_O[c^1; …; c^H] (B×T×D): the layer's context c_i."""

    __slots__ = ("context", "cross", "own")

    def __init__(self, own: Tensor | None, cross: Tensor | None, context: Tensor) -> None:
        self.own, self.cross, self.context = own, cross, context
