"""The Transformer encoder–decoder (Vaswani et al. 2017): attention in place of the recurrence.

A model family beside engine.networks.model's RNN, behind the same contract, so that every search, forced
decoding, what-if steering, the studies and the app drive it unchanged:

- :meth:`TransformerSeq2Seq.encode` → :class:`~engine.networks.model.Encoded`: the memory h_1..h_n (the
  encoder stack's output), the mask, the cross-attention keys and values of every decoder layer
  computed once per sentence, and the encoder's self-attention (every layer and head, for display);
- ``decoder.embedding(y)`` and ``decoder.step(embedded, state, encoded, override)`` →
  :class:`~engine.networks.model.StepOutput`: one output position at a time with cached keys and values
  (incremental decoding: a step costs one position's projections, not the prefix's);
- ``decoder.logits(state[0], …)``: the output layer over the top layer's output at that position.

The decoder state is ``(x_i, keys_1, values_1, …, keys_L, values_L)``: the top layer's normalized output at
the last position (B×D, what the output layer reads — the counterpart of the RNN's s_i), and each layer's
self-attention keys and values of the positions so far (B×H×t×d each, one tensor a layer and kind: a step
appends a position to each without copying the others; batch first, so that beam search selects
hypotheses' rows as it does the RNN's state).

What a step shows: the last layer's cross-attention, the heads' mean as the map's row (its scores the
log of that mean, as for the RNN's multi-head mechanism), each head's row, every layer's and head's
row (``layer_weights``), and the decoder's self-attention over y_0..y_i (``self_weights``).
Set attention by hand (``override``) replaces every head's weights of the last layer's cross-attention.

Pre-norm layers (engine.networks.transformer_layers), embeddings scaled by √D, sinusoidal or learned positions,
the output layer tied to the target embedding when asked, dropout on the residuals, the attention
weights and the feed-forward activations.

Shapes: B batch, S source length, T target length, D model size (the embedding size), L layers, H heads,
d = D/H, V target vocabulary.
"""

from __future__ import annotations

import math
from collections.abc import Iterator

import torch
import torch.nn.functional as functional
from torch import Tensor, nn

from engine.networks.attention import SHOWN_SCORE_FLOOR
from engine.networks.model import Encoded, State, StepOutput
from engine.networks.transformer_layers import DecoderLayer, EncoderLayer, Positions, layer_norm
from engine.settings.config import ModelConfig
from engine.settings.scorer_table import SCORER_TABLE
from engine.text.tokenizer import PAD_ID


def _layers(config: ModelConfig, layer_class: type[nn.Module]) -> nn.ModuleList:
    heads = SCORER_TABLE[config.scorer].heads
    return nn.ModuleList(layer_class(config.embedding_size, heads, config.feedforward_size, config.dropout,
                                     config.attention_dropout, config.activation_dropout)
                         for _ in range(config.transformer_layers))


def _embedding(vocab_size: int, size: int) -> nn.Embedding:
    """V×D token embeddings drawn from N(0, 1/D) (scaled by √D where they are read), padding exactly 0."""
    embedding = nn.Embedding(vocab_size, size, padding_idx=PAD_ID)
    nn.init.normal_(embedding.weight, 0.0, size**-0.5)
    with torch.no_grad():
        embedding.weight[PAD_ID].zero_()
    return embedding


class TransformerEncoder(nn.Module):
    def __init__(self, config: ModelConfig) -> None:
        super().__init__()
        self.scale = math.sqrt(config.embedding_size)
        self.embedding = _embedding(config.src_vocab_size, config.embedding_size)
        self.positions = Positions(config.positions, config.embedding_size)
        self.dropout = nn.Dropout(config.dropout)
        self.layers = _layers(config, EncoderLayer)
        self.final_norm = nn.LayerNorm(config.embedding_size)

    def forward(self, source: Tensor, need_weights: bool = False) -> tuple[Tensor, Tensor, Tensor | None]:
        """source: B×S ids → (memory B×S×D, mask B×S, self-attention B×L×H×S×S or None)."""
        mask = source != PAD_ID  # B×S
        x = self.embedding(source) * self.scale + self.positions(0, source.size(1))  # B×S×D
        x = self.dropout(x)
        allowed = mask[:, None, None, :]  # B×1×1×S
        weights = []
        for layer in self.layers:
            x, layer_weights = layer(x, allowed, need_weights)
            weights.append(layer_weights)
        stacked = torch.stack(weights, dim=1) if need_weights else None  # B×L×H×S×S
        return self.final_norm(x), mask, stacked


class TransformerDecoder(nn.Module):
    def __init__(self, config: ModelConfig) -> None:
        super().__init__()
        size = config.embedding_size
        self.scale = math.sqrt(size)
        self.heads = SCORER_TABLE[config.scorer].heads
        self.embedding = _embedding(config.tgt_vocab_size, size)
        self.positions = Positions(config.positions, size)
        self.dropout = nn.Dropout(config.dropout)
        self.layers = _layers(config, DecoderLayer)
        self.final_norm = nn.LayerNorm(size)
        self.output = nn.Linear(size, config.tgt_vocab_size, bias=False)
        self._sentence_cache: tuple[Tensor, Tensor | None, list[tuple]] | None = None  # _for_sentence's last
        if config.tie_embeddings:  # Press & Wolf 2017: the output layer is the target embedding
            self.output.weight = self.embedding.weight

    def initial_state(self, batch: int, device: torch.device, dtype: torch.dtype) -> State:
        """No position yet: x_0 = 0 (never read) and every layer's empty caches, B×H×0×d each."""
        size = self.embedding.embedding_dim
        empty = torch.zeros(batch, self.heads, 0, size // self.heads, device=device, dtype=dtype)
        return (torch.zeros(batch, size, device=device, dtype=dtype), *(empty for _ in range(2 * len(self.layers))))

    def decoder_layers(self) -> Iterator[DecoderLayer]:
        """The layers, bottom first, as what they are (an nn.ModuleList hands them out as Modules)."""
        for layer in self.layers:
            assert isinstance(layer, DecoderLayer)
            yield layer

    def cross_keys_values(self, memory: Tensor) -> tuple[Tensor, Tensor]:
        """memory: B×S×D → every layer's cross-attention keys and values, B×L×H×S×d each.

        Laid out in memory layer first (L×B×…), and for several sentences the keys transposed (L×B×H×d×S):
        one layer's keys and values are then each one contiguous block, the operands of the step's products
        q·Kᵀ and α·V as they are, so that no step copies them again. The values are a plain stack's; the
        layout is the one the products read (one row reads Kᵀ as a transposed view, several a contiguous
        Kᵀ: :func:`_step_keys`), so the weights are bit for bit those of keys laid out plainly."""
        pairs = [layer.cross_attention.keys_values(memory) for layer in self.decoder_layers()]
        values = torch.stack([v for _, v in pairs])  # L×B×H×S×d
        if memory.size(0) == 1:
            return torch.stack([k for k, _ in pairs]).transpose(0, 1), values.transpose(0, 1)
        keys = torch.stack([k.transpose(-1, -2) for k, _ in pairs])  # L×B×H×d×S
        return keys.permute(1, 0, 2, 4, 3), values.transpose(0, 1)

    def step(self, embedded: Tensor, state: State, encoded: Encoded, override: Tensor | None = None) -> StepOutput:
        """One output position. embedded: B×D = emb(y_{i-1}); state: (x_{i-1}, keys_1, values_1, …).

        ``override`` (B×S, rows summing to 1; inference only) replaces the weights of every head of the
        last layer's cross-attention; the model's own are reported beside it."""
        if not self.training:
            return self._inference_step(embedded, state, encoded, override)
        caches = state[1:]  # keys and values of layer 1, of layer 2, …: B×H×t×d each
        position = caches[0].size(2)
        x = embedded * self.scale + self.positions(position, 1)  # B×D
        x = (self.dropout(x) if self.training else x).unsqueeze(1)  # B×1×D
        allowed = encoded.mask[:, None, None, :]  # B×1×1×S
        last = len(self.layers) - 1
        new_caches: list[Tensor] = []
        own, cross = [], []
        weights = None
        for index, layer in enumerate(self.layers):
            x, layer_caches, weights = layer(
                x, (caches[2 * index], caches[2 * index + 1]), (_step_keys(encoded.keys, index), encoded.values[:, index]),
                None, allowed, need_weights=True, override=override if index == last else None)
            new_caches += layer_caches
            own.append(weights.own[:, :, 0])  # B×H×(t+1)
            cross.append(weights.cross[:, :, 0])  # B×H×S
        output = self.final_norm(x[:, 0])  # B×D
        new_state = (output, *new_caches)
        every_layer = torch.stack(cross, dim=1)  # B×L×H×S
        heads = every_layer[:, last]  # B×H×S
        mean = heads.mean(dim=1)  # B×S
        context = weights.context[:, 0]  # type: ignore[union-attr]  # B×D: the last layer's c_i
        scores = mean.clamp_min(SHOWN_SCORE_FLOOR).log()
        shown, model_weights = (mean, None) if override is None else (override, mean)
        return StepOutput(new_state, context, shown, scores, model_weights, heads, every_layer,
                          torch.stack(own, dim=1))

    def _inference_step(self, embedded: Tensor, state: State, encoded: Encoded, override: Tensor | None) -> StepOutput:
        """:meth:`step` out of training: the layers' :meth:`DecoderLayer.step` on B×D rows, the padding mask
        inverted and the layers' weights gathered once a sentence (no mask when no row has padding)."""
        caches = state[1:]  # keys and values of layer 1, of layer 2, …: B×H×t×d each
        x = embedded * self.scale + self.positions.forward(caches[0].size(2), 1)  # B×D
        blocked, weights = self._for_sentence(encoded.mask)
        last = len(weights) - 1
        new_caches: list[Tensor] = []
        own, cross = [], []
        context = x
        for index, layer_weights in enumerate(weights):
            x, keys, values, own_weights, cross_weights, context = DecoderLayer.step(
                x, (caches[2 * index], caches[2 * index + 1]), (_step_keys(encoded.keys, index), encoded.values[:, index]),
                blocked, override if index == last else None, layer_weights)
            new_caches += (keys, values)
            own.append(own_weights)  # B×H×(t+1)
            cross.append(cross_weights)  # B×H×S
        output = layer_norm(self.final_norm, x)  # B×D
        every_layer = torch.stack(cross, dim=1)  # B×L×H×S
        heads = every_layer[:, last]  # B×H×S
        mean = heads.mean(dim=1)  # B×S
        scores = mean.clamp_min(SHOWN_SCORE_FLOOR).log()
        shown, model_weights = (mean, None) if override is None else (override, mean)
        return StepOutput((output, *new_caches), context, shown, scores, model_weights, heads, every_layer,
                          torch.stack(own, dim=1))

    def _for_sentence(self, mask: Tensor) -> tuple[Tensor | None, list[tuple]]:
        """mask: B×S (True = a real token) → (B×1×1×S, True where a row may not attend, or None when no row has
        padding; each layer's :meth:`DecoderLayer.step_weights`), kept for the sentence's next steps (the same
        mask tensor): a sentence's steps all read the weights its encoding was computed with."""
        cached = self._sentence_cache
        if cached is not None and cached[0] is mask:
            return cached[1], cached[2]
        blocked = None if bool(mask.all()) else ~mask[:, None, None, :]
        weights = [layer.step_weights() for layer in self.decoder_layers()]
        self._sentence_cache = (mask, blocked, weights)
        return blocked, weights

    def logits(self, hidden: Tensor, context: Tensor, embedded: Tensor) -> Tensor:
        """The top layer's normalized output x_i (…×D) → unnormalized scores over the target vocabulary
        (…×V); the context and the embedding are the RNN's inputs to this layer, not the Transformer's."""
        return functional.linear(hidden, self.output.weight)  # self.output(hidden) without a module call

    def forward(self, target_in: Tensor, memory: Tensor, mask: Tensor) -> Tensor:
        """Teacher forcing, every position at once. target_in: B×T, memory: B×S×D, mask: B×S → B×T×V."""
        length = target_in.size(1)
        x = self.dropout(self.embedding(target_in) * self.scale + self.positions(0, length))  # B×T×D
        causal = torch.ones(length, length, dtype=torch.bool, device=target_in.device).tril()  # T×T
        allowed = mask[:, None, None, :]  # B×1×1×S
        for layer in self.decoder_layers():
            cross = layer.cross_attention.keys_values(memory)
            x, _, _ = layer(x, None, cross, causal, allowed)
        return self.output(self.final_norm(x))  # B×T×V


def _step_keys(keys: Tensor, layer: int) -> Tensor:
    """keys: B×L×H×S×d (:meth:`TransformerDecoder.cross_keys_values`) → layer ``layer``'s, B×H×S×d, laid out as the
    product q·Kᵀ has always read them: one row's as S×d (its Kᵀ a transposed view), several rows' as a contiguous
    Kᵀ (which the product would otherwise copy at every step). The two differ in their last bits."""
    chosen = keys[:, layer]
    return chosen.contiguous() if chosen.size(0) == 1 else chosen


class TransformerSeq2Seq(nn.Module):
    """Encoder + decoder stacks; :meth:`forward` is teacher-forced training, search lives in search.py."""

    def __init__(self, config: ModelConfig) -> None:
        super().__init__()
        self.config = config
        self.encoder = TransformerEncoder(config)
        self.decoder = TransformerDecoder(config)

    def encode(self, source: Tensor, lengths: Tensor) -> Encoded:
        """source: B×S, lengths: B → :class:`Encoded` (the decoder layers' cross keys and values once for
        all steps; the encoder's self-attention kept when not training)."""
        memory, mask, self_attention = self.encoder(source, need_weights=not self.training)
        keys, values = self.decoder.cross_keys_values(memory)  # B×L×H×S×d each
        real = mask.unsqueeze(2).to(memory.dtype)  # B×S×1
        summary = (memory * real).sum(1) / real.sum(1).clamp_min(1.0)  # B×D: the mean of the h_j
        state = self.decoder.initial_state(source.size(0), memory.device, memory.dtype)
        return Encoded(memory, mask, keys, values, summary, state, self_attention)

    def forward(self, source: Tensor, lengths: Tensor, target_in: Tensor) -> Tensor:
        """Teacher forcing. source: B×S, lengths: B, target_in: B×T (BOS y_1 … y_{T-1}) → B×T×V."""
        memory, mask, _ = self.encoder(source)
        return self.decoder(target_in, memory, mask)

    def set_training_temperature(self, temperature: float) -> None:
        """Scaled-dot attention throughout: no score warm-up applies (the RNN's dot and bilinear take one)."""

    def parameter_count(self) -> int:
        return sum(p.numel() for p in self.parameters())  # a tied matrix is counted once
