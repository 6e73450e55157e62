"""A Transformer translation's attention, every layer and head, in the shapes a "model view" draws.

Three kinds of map per layer ℓ and head h (BertViz's model view shows the first two for one sequence):

- **encoder self-attention**, source × source: how each source position's representation mixes the
  others' (computed once per sentence, engine.networks.transformer's ``Encoded.self_attention``);
- **decoder self-attention**, output × decoder input, causal: at step i the decoder reads its inputs
  ``<s>, y_1 … y_i`` (the tokens written so far), never a later one — the map is lower-triangular;
- **cross-attention**, output × source: the RNN's map, one per layer and head (the app's main map is the
  last layer's mean of heads).

Pure numpy, no PyTorch: built from the decode's steps (engine.decoding.search.DecodeStep) and the translation.

Shapes: L layers, H heads, S source tokens, T output tokens.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

START = "<s>"  # the decoder's first input, shown as the first column of its self-attention
KINDS = ("encoder", "decoder", "cross")  # the three kinds of map, in the order the model view offers them


@dataclass(frozen=True)
class AttentionLayers:
    """Every layer's and head's attention of one translation."""

    source_tokens: tuple[str, ...]
    output_tokens: tuple[str, ...]
    encoder: np.ndarray  # L×H×S×S
    decoder: np.ndarray  # L×H×T×T, row i over the decoder inputs <s>, y_1 … y_i (zero beyond: causal)
    cross: np.ndarray  # L×H×T×S

    @property
    def layers(self) -> int:
        return int(self.encoder.shape[0])

    @property
    def heads(self) -> int:
        return int(self.encoder.shape[1])

    @property
    def decoder_inputs(self) -> tuple[str, ...]:
        """The decoder self-attention's columns: <s> and every output token but the last."""
        return (START, *self.output_tokens[:-1])

    def map(self, kind: str, layer: int, head: int | None) -> np.ndarray:
        """One map: ``kind`` of :data:`KINDS`, layer ``layer``, head ``head`` (None: the heads' mean)."""
        if kind not in KINDS:
            raise ValueError(f"kind must be one of {', '.join(KINDS)}; got {kind!r}")
        maps = getattr(self, kind)[layer]  # H×rows×columns
        return maps.mean(axis=0) if head is None else maps[head]

    def axes(self, kind: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """(row labels, column labels) of a ``kind`` map."""
        if kind == "encoder":
            return self.source_tokens, self.source_tokens
        if kind == "decoder":
            return self.output_tokens, self.decoder_inputs
        return self.output_tokens, self.source_tokens


def attention_layers(source_tokens: Sequence[str], output_tokens: Sequence[str], encoder: np.ndarray | None,
                     steps: Sequence) -> AttentionLayers | None:
    """The maps of one decode: ``encoder`` (L×H×S×S, the translation's ``encoder_attention``) and the
    ``steps`` (DecodeSteps, one per output token, each with its ``layer_attention`` L×H×S and
    ``self_attention`` L×H×(i+1)); None unless they are a Transformer's, whole and of matching shapes."""
    if encoder is None or encoder.ndim != 4 or len(steps) != len(output_tokens) or not steps:
        return None
    layers, heads, length = encoder.shape[:3]
    if length != len(source_tokens):
        return None
    cross_rows, own_rows = [], []
    for index, step in enumerate(steps):
        maps = _step_maps(step, index, layers, heads, length, len(steps))
        if maps is None:
            return None
        cross_rows.append(maps[0])
        own_rows.append(maps[1])
    return AttentionLayers(tuple(source_tokens), tuple(output_tokens), encoder,
                           np.stack(own_rows, axis=2), np.stack(cross_rows, axis=2))


def _step_maps(step: Any, index: int, layers: int, heads: int, length: int,
               steps: int) -> tuple[np.ndarray, np.ndarray] | None:
    """Step ``index``'s cross-attention (L×H×S) and its self-attention padded to L×H×``steps`` (zeros after
    its own i+1 positions); None when either is missing or of another shape."""
    cross, own = getattr(step, "layer_attention", None), getattr(step, "self_attention", None)
    if cross is None or own is None or cross.shape != (layers, heads, length) or own.shape != (layers, heads, index + 1):
        return None
    padded = np.zeros((layers, heads, steps), dtype=own.dtype)
    padded[:, :, : index + 1] = own
    return cross, padded
