"""The RNN encoder–decoder with attention (Bahdanau et al. 2014's wiring; docs/architecture.md).

Encoder: embedding → bidirectional RNN over packed sequences → memory h_1..h_n, projected once to
the decoder size D. Decoder, at step i:

    e_ij = F(s_{i-1}, h_j)            (the scorer; skipped by the fixed-context baseline)
    α_ij = softmax_j(e_ij)            (padding gets exactly zero; optional dropout on α in training)
    c_i  = Σ_j α_ij h_j               (or the fixed summary C for the ``none`` scorer)

(these three lines are the attention mechanism's, engine.networks.attention's contract: a multi-head one has a
row of α per head and its own c_i, engine.networks.multihead)
    s_i  = RNN(s_{i-1}, [emb(y_{i-1}); c_i])
    p(y_i | …) = softmax(W_o tanh(W_p [s_i; c_i; emb(y_{i-1})]))   (W_o may be the target embedding)

Shapes: B batch, S source length, T target length, E embedding, H encoder size per direction,
D decoder size, V target vocabulary.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeAlias

import torch
from torch import Tensor, nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

from engine.networks.attention import build_scorer
from engine.settings.config import ModelConfig
from engine.settings.scorer_table import SCORER_TABLE
from engine.text.tokenizer import PAD_ID

if TYPE_CHECKING:
    from engine.networks.transformer import TransformerSeq2Seq

RNN_LAYERS = {"gru": nn.GRU, "lstm": nn.LSTM, "rnn": nn.RNN}
RNN_CELLS = {"gru": nn.GRUCell, "lstm": nn.LSTMCell, "rnn": nn.RNNCell}

State = tuple[Tensor, ...]  # (h,) for GRU/RNN, (h, cell) for LSTM; each B×D


@dataclass(frozen=True)
class Encoded:
    """Everything the decoder needs about one batch of source sentences, computed once."""

    memory: Tensor  # B×S×D: the projected encoder states h_j
    mask: Tensor  # B×S bool: True at real tokens
    keys: Tensor  # B×… : the mechanism's precomputed keys (multi-head: B×H×S×d)
    values: Tensor  # B×… : what its weights mix (the memory itself for one head; multi-head: B×H×S×d)
    summary: Tensor  # B×D: the fixed context C of plain seq2seq
    initial_state: State  # s_0
    self_attention: Tensor | None = None  # B×L×H×S×S: a Transformer encoder's self-attention, every layer and head


@dataclass(frozen=True)
class StepOutput:
    state: State  # s_i
    context: Tensor  # B×D: c_i
    weights: Tensor | None  # B×S: α_i (None for the fixed-context baseline; the heads' mean for several); the override when one is given
    scores: Tensor | None  # B×S: raw e_ij before the softmax, padding included (several heads: log of the mean α)
    model_weights: Tensor | None = None  # B×S: the model's own α_i when ``weights`` was overridden
    head_weights: Tensor | None = None  # B×H×S: each head's α^h_i, for a mechanism of several heads only
    layer_weights: Tensor | None = None  # B×L×H×S: a Transformer's cross-attention α of every layer and head
    self_weights: Tensor | None = None  # B×L×H×(i+1): a Transformer decoder's self-attention over y_0..y_i


class Encoder(nn.Module):
    def __init__(self, config: ModelConfig) -> None:
        super().__init__()
        self.embedding = nn.Embedding(config.src_vocab_size, config.embedding_size, padding_idx=PAD_ID)
        self.dropout = nn.Dropout(config.dropout)
        self.rnn = RNN_LAYERS[config.cell](
            config.embedding_size,
            config.encoder_hidden_size,
            num_layers=config.encoder_layers,
            batch_first=True,
            bidirectional=True,
            dropout=config.dropout if config.encoder_layers > 1 else 0.0,
        )
        self.memory_layer = nn.Linear(2 * config.encoder_hidden_size, config.decoder_hidden_size)

    def forward(self, source: Tensor, lengths: Tensor) -> tuple[Tensor, Tensor, Tensor]:
        """source: B×S ids, lengths: B (cpu, ≥1) → (memory B×S×D, mask B×S, final B×2H)."""
        embedded = self.dropout(self.embedding(source))  # B×S×E
        packed = pack_padded_sequence(embedded, lengths.cpu(), batch_first=True, enforce_sorted=False)
        outputs, final = self.rnn(packed)
        outputs, _ = pad_packed_sequence(outputs, batch_first=True, total_length=source.size(1))  # B×S×2H
        final_hidden = final[0] if isinstance(final, tuple) else final  # (layers·2)×B×H
        final_both = torch.cat([final_hidden[-2], final_hidden[-1]], dim=1)  # B×2H (fwd end, bwd start)
        mask = source != PAD_ID  # B×S
        return self.memory_layer(outputs), mask, final_both


class Decoder(nn.Module):
    def __init__(self, config: ModelConfig) -> None:
        super().__init__()
        size = config.decoder_hidden_size
        self.cell_type = config.cell
        self.embedding = nn.Embedding(config.tgt_vocab_size, config.embedding_size, padding_idx=PAD_ID)
        self.dropout = nn.Dropout(config.dropout)
        self.scorer = build_scorer(config.scorer, size, config.attention_size)  # the attention mechanism
        # Attention dropout (on α, training only): a no-op for the fixed-context baseline.
        self.attention_dropout = nn.Dropout(config.attention_dropout) if config.attention_dropout > 0 else None
        self.init_layer = nn.Linear(2 * config.encoder_hidden_size, size)
        self.cell = RNN_CELLS[config.cell](config.embedding_size + size, size)
        # Tied (Press & Wolf 2017): the output layer reuses the target embedding matrix (V×E), so the
        # pre-output layer maps to E; fewer parameters, and a smaller output product at every step.
        pre_output_size = config.embedding_size if config.tie_embeddings else size
        self.pre_output = nn.Linear(2 * size + config.embedding_size, pre_output_size)
        self.output = nn.Linear(pre_output_size, config.tgt_vocab_size)
        if config.tie_embeddings:
            # N(0, 1/E) instead of N(0, 1): the shared matrix also makes the initial logits, which
            # should start small.
            with torch.no_grad():
                self.embedding.weight.normal_(0.0, config.embedding_size**-0.5)
                self.embedding.weight[PAD_ID].zero_()
            self.output.weight = self.embedding.weight

    def initial_state(self, final_both: Tensor) -> State:
        """final_both: B×2H → s_0 (B×D; LSTM cell state starts at zero)."""
        hidden = torch.tanh(self.init_layer(final_both))  # B×D
        if self.cell_type == "lstm":
            return (hidden, torch.zeros_like(hidden))
        return (hidden,)

    def step(self, embedded: Tensor, state: State, encoded: Encoded, override: Tensor | None = None) -> StepOutput:
        """One decoder step. embedded: B×E = emb(y_{i-1}); state: s_{i-1}.

        ``override`` (B×S, rows summing to 1; inference only) replaces the weights α_i that form c_i
        — what-if decoding: "attend here instead" — while e_ij and the model's own α_i are still
        computed and reported."""
        query = state[0]  # B×D: s_{i-1}
        attention = self.scorer.attend(query, encoded, self.attention_dropout)  # α, e: B×H×S; c_i: B×D
        weights, scores, context = attention.row_weights(), attention.row_scores(), attention.context  # B×S, B×S, B×D
        model_weights = None
        if override is not None and weights is not None:  # every head attends as set by hand
            model_weights, weights = weights, override
            context = self.scorer.mix(override.unsqueeze(1).expand(-1, attention.heads, -1), encoded)  # B×D
        head_weights = attention.weights if attention.heads > 1 else None  # B×H×S
        cell_input = torch.cat([embedded, context], dim=1)  # B×(E+D)
        if self.cell_type == "lstm":
            new_state: State = self.cell(cell_input, state)  # type: ignore[assignment]
        else:
            new_state = (self.cell(cell_input, state[0]),)
        return StepOutput(tuple(new_state), context, weights, scores, model_weights, head_weights)

    def logits(self, hidden: Tensor, context: Tensor, embedded: Tensor) -> Tensor:
        """[s_i; c_i; emb(y_{i-1})] → unnormalized scores over the target vocabulary.

        Works on any leading shape: (B×·) or (B×T×·) → (B×V) or (B×T×V).
        """
        combined = torch.cat([hidden, context, embedded], dim=-1)  # …×(2D+E)
        return self.output(self.dropout(torch.tanh(self.pre_output(combined))))  # …×V


class Seq2Seq(nn.Module):
    """Encoder + decoder; :meth:`forward` is teacher-forced training, search lives in search.py."""

    def __init__(self, config: ModelConfig) -> None:
        super().__init__()
        self.config = config
        self.encoder = Encoder(config)
        self.decoder = Decoder(config)

    def encode(self, source: Tensor, lengths: Tensor) -> Encoded:
        """source: B×S, lengths: B → :class:`Encoded` (keys precomputed once for all steps)."""
        memory, mask, final_both = self.encoder(source, lengths)  # B×S×D, B×S, B×2H
        summary = self.encoder.memory_layer(final_both)  # B×D: C, in the same space as the h_j
        scorer = self.decoder.scorer
        keys, values = scorer.precompute_keys(memory), scorer.precompute_values(memory)  # B×…
        return Encoded(memory, mask, keys, values, summary, self.decoder.initial_state(final_both))

    def forward(self, source: Tensor, lengths: Tensor, target_in: Tensor) -> Tensor:
        """Teacher forcing. source: B×S, lengths: B, target_in: B×T (BOS y_1 … y_{T-1}) → B×T×V."""
        encoded = self.encode(source, lengths)
        embedded = self.decoder.dropout(self.decoder.embedding(target_in))  # B×T×E
        state = encoded.initial_state
        hiddens, contexts = [], []
        for i in range(target_in.size(1)):
            out = self.decoder.step(embedded[:, i], state, encoded)
            state = out.state
            hiddens.append(state[0])
            contexts.append(out.context)
        hidden = torch.stack(hiddens, dim=1)  # B×T×D
        context = torch.stack(contexts, dim=1)  # B×T×D
        return self.decoder.logits(hidden, context, embedded)  # B×T×V

    def set_training_temperature(self, temperature: float) -> None:
        """Soften a dot or bilinear scorer early in training (engine.networks.attention.Scorer); a no-op for the others."""
        self.decoder.scorer.set_training_temperature(temperature)

    def parameter_count(self) -> int:
        return sum(p.numel() for p in self.parameters())  # a tied matrix is counted once


EncoderDecoder: TypeAlias = "Seq2Seq | TransformerSeq2Seq"  # a model of either family (model_class picks it)


def model_class(config: ModelConfig) -> type[EncoderDecoder]:
    """The class of the family ``config``'s mechanism belongs to: the RNN encoder–decoder, or
    engine.networks.transformer's."""
    if SCORER_TABLE[config.scorer].family == "transformer":
        from engine.networks.transformer import TransformerSeq2Seq  # imports this module: imported on demand

        return TransformerSeq2Seq
    return Seq2Seq


def build_model(config: ModelConfig, seed: int | None = None) -> EncoderDecoder:
    """A freshly initialized model of ``config``'s family; ``seed`` makes the initialization reproducible."""
    if seed is not None:
        torch.manual_seed(seed)
    return model_class(config)(config)
