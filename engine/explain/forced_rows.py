"""One translation teacher-forced through a model as a batch of rows, each row one decode step's score.

Attribution asks, for output step i, how log p(y_i | y_<i, x) depends on the *embeddings* of the source
pieces x_1..x_S and of the output prefix y_0..y_{i-1}. :class:`ForcedRows` runs the model's own
teacher-forced ``forward(source, lengths, target_in)`` — the same for every family and mechanism: the RNN
encoder–decoder with any scorer, the fixed context C (``none``), several heads, and the Transformer — with
hooks, so that no model code changes (the RNN's decoder steps are run here, engine.networks.model's
``decoder.step``, so that each row stops at its own step):

- a forward hook on ``encoder.embedding`` replaces its output by the given source embeddings (R×S×E);
- a forward hook on ``decoder.embedding`` replaces its output by ``[emb(BOS); the given prefix embeddings]``
  (R×(P+1)×E: the BOS embedding is never varied, so it is neither attributed nor part of a baseline);
- a forward pre-hook on ``decoder.output`` keeps, in each row, the one position that row scores, so the
  output layer (V wide, the largest product) runs over R rows instead of R×T.

What a Transformer adds after its embedding (×√D, positions) stays as it is: a zero embedding keeps its
positions. Row r scores ``log p(y_{i_r}) - log p(y'_r)`` where row r has a contrast piece y'_r, else
``log p(y_{i_r})`` (Yin & Neubig 2022's contrastive score). Rows never mix in the model (batch rows are
independent in eval mode), so the gradient of the rows' sum gives each row its own gradient: many steps
and many interpolation points run as one batched forward.

Shapes: S source pieces, T output pieces (EOS included), P ≤ T prefix positions fed (y_0..y_{P-1}),
E embedding size, V target vocabulary, R rows.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

import torch
from torch import Tensor, nn

from engine.networks.model import Encoded, EncoderDecoder, Seq2Seq
from engine.text.tokenizer import BOS_ID

NO_CONTRAST = -1  # the contrast id of a row without a contrast piece
SHRINK = 0.75  # the RNN's batch is cut to its active rows once they are this share of it or fewer


class ForcedRows:
    """A model, one source sentence and the output pieces it is teacher-forced with."""

    def __init__(self, model: EncoderDecoder, source_ids: Sequence[int], target_ids: Sequence[int]) -> None:
        self.model = model.eval()
        device = next(model.parameters()).device
        self.source = torch.tensor(list(source_ids), device=device)  # S
        self.target = torch.tensor(list(target_ids), device=device)  # T: y_0..y_{T-1}
        self.encoder_embedding: nn.Embedding = model.encoder.embedding
        self.decoder_embedding: nn.Embedding = model.decoder.embedding
        with torch.no_grad():
            self.source_embedded = self.encoder_embedding(self.source)  # S×E
            self.prefix_embedded = self.decoder_embedding(self.target)  # T×E: emb(y_0..y_{T-1})
            self.bos_embedded = self.decoder_embedding(self.target.new_tensor([BOS_ID]))  # 1×E

    @property
    def source_length(self) -> int:
        return int(self.source.numel())

    @property
    def target_length(self) -> int:
        return int(self.target.numel())

    def score(self, source_embedded: Tensor, prefix_embedded: Tensor, steps: Tensor, contrasts: Tensor) -> Tensor:
        """source_embedded: R×S×E, prefix_embedded: R×P×E (emb(y_0..y_{P-1}), P ≥ max(steps)), steps: R
        (the step i each row scores), contrasts: R (a target id, or NO_CONTRAST) → R: each row's score.

        The signature Captum's attribution methods call (``additional_forward_args`` = steps, contrasts)."""
        rows, prefix = source_embedded.size(0), prefix_embedded.size(1)
        fed = torch.cat([self.bos_embedded.expand(rows, 1, -1), prefix_embedded], dim=1)  # R×(P+1)×E
        target_in = self.target_in(prefix).expand(rows, -1)  # R×(P+1)
        log_probs = self._log_probs(self.source.expand(rows, -1), source_embedded, target_in, fed, steps)  # R×V
        return self._contrasted(log_probs, steps, contrasts)

    def ids_score(self, source_ids: Tensor, target_in: Tensor, steps: Tensor, contrasts: Tensor) -> Tensor:
        """The same score from ids: source_ids R×S, target_in R×(P+1) (BOS first) → R (occlusion's forward,
        engine.explain.occlusion)."""
        log_probs = self._log_probs(source_ids, None, target_in, None, steps)
        return self._contrasted(log_probs, steps, contrasts)

    def _contrasted(self, log_probs: Tensor, steps: Tensor, contrasts: Tensor) -> Tensor:
        """log_probs: R×V → R: log p(y_i) - log p(y') where a row has a contrast id, else log p(y_i)."""
        chosen = log_probs.gather(1, self.target[steps].unsqueeze(1)).squeeze(1)  # R
        other = log_probs.gather(1, contrasts.clamp_min(0).unsqueeze(1)).squeeze(1)  # R
        return torch.where(contrasts != NO_CONTRAST, chosen - other, chosen)

    def _log_probs(self, source_ids: Tensor, source_embedded: Tensor | None, target_in: Tensor,
                   fed: Tensor | None, steps: Tensor) -> Tensor:
        """R×V: log p(· | y_<i, x) at each row's step i. ``source_embedded`` (R×S×E) and ``fed`` (R×(P+1)×E),
        where given, replace the embeddings of ``source_ids`` and ``target_in``."""
        rows = source_ids.size(0)
        lengths = torch.full((rows,), self.source_length)
        if isinstance(self.model, Seq2Seq):
            order = torch.argsort(steps, descending=True, stable=True)  # the longest rows first
            fed = self.decoder_embedding(target_in) if fed is None else fed
            with self._hooked(None if source_embedded is None else source_embedded[order], None, None):
                encoded = self.model.encode(source_ids[order], lengths)
            logits = _recurrent_logits(self.model, encoded, fed[order], steps[order])  # R×V, sorted
            return torch.log_softmax(logits, dim=-1)[torch.argsort(order)]
        with self._hooked(source_embedded, fed, steps):
            logits = self.model(source_ids, lengths, target_in)  # R×1×V
        return torch.log_softmax(logits[:, 0], dim=-1)

    def target_in(self, prefix: int) -> Tensor:
        """(prefix+1,) BOS y_0 .. y_{prefix-1}: the decoder's inputs up to step ``prefix``."""
        return torch.cat([self.target.new_tensor([BOS_ID]), self.target[:prefix]])

    @torch.no_grad()
    def log_probs(self) -> Tensor:
        """(T,) log p(y_i | y_<i, x) of every output piece, as one teacher-forced forward computes it."""
        target_in = self.target_in(self.target_length - 1).unsqueeze(0)  # 1×T
        logits = self.model(self.source.unsqueeze(0), torch.tensor([self.source_length]), target_in)  # 1×T×V
        return torch.log_softmax(logits[0], dim=-1).gather(1, self.target.unsqueeze(1)).squeeze(1)

    @contextmanager
    def _hooked(self, source_embedded: Tensor | None, fed: Tensor | None, steps: Tensor | None) -> Iterator[None]:
        """The hooks, for this thread's calls only: another thread decoding with the same model meanwhile (the
        app's next translation) runs it unchanged (a hook that returns None changes nothing)."""
        owner = threading.get_ident()

        def mine() -> bool:
            return threading.get_ident() == owner

        handles = [] if steps is None else [self.model.decoder.output.register_forward_pre_hook(
            lambda _module, args: (args[0][torch.arange(steps.numel(), device=steps.device), steps].unsqueeze(1),)
            if mine() else None)]
        if source_embedded is not None:
            handles.append(self.encoder_embedding.register_forward_hook(
                lambda *_: source_embedded if mine() else None))
        if fed is not None:
            handles.append(self.decoder_embedding.register_forward_hook(lambda *_: fed if mine() else None))
        try:
            yield
        finally:
            for handle in handles:
                handle.remove()


def _recurrent_logits(model: Seq2Seq, encoded: Encoded, fed: Tensor, steps: Tensor) -> Tensor:
    """The RNN decoder run over ``fed`` (R×(P+1)×E, rows sorted by ``steps`` descending) → R×V: the logits of
    each row at its own step. A row stops where its step is scored: at position t only the rows whose step
    is ≥ t — the first ones — go on (about half the work of running every row to the end)."""
    decoder = model.decoder
    inputs = fed.unbind(1)  # P+1 tensors R×E
    state = encoded.initial_state
    pieces: list[tuple[Tensor, Tensor, Tensor]] = []
    for position in range(int(steps[0]) + 1):
        active = int((steps >= position).sum())
        if active <= SHRINK * state[0].size(0):  # dropped in a few stages: each cut costs a copy in the backward
            state, encoded = tuple(part[:active] for part in state), _first_rows(encoded, active)
        kept = state[0].size(0)
        embedded = inputs[position][:kept]  # kept×E
        out = decoder.step(embedded, state, encoded)
        state = out.state
        done = int((steps > position).sum())  # rows done..active-1 score this position
        if done < active:
            pieces.append((state[0][done:active], out.context[done:active], embedded[done:active]))
    hidden, context, embedded = (torch.cat([piece[k] for piece in reversed(pieces)]) for k in range(3))
    return decoder.logits(hidden, context, embedded)  # R×V


def _first_rows(encoded: Encoded, count: int) -> Encoded:
    """``encoded`` (batch first) kept to its first ``count`` rows."""
    return Encoded(encoded.memory[:count], encoded.mask[:count], encoded.keys[:count], encoded.values[:count],
                   encoded.summary[:count], tuple(part[:count] for part in encoded.initial_state))
