"""Beam search over one sentence, as a generator that yields one :class:`DecodeStep` per output position.

Beam search keeps attention per hypothesis; with ``beam_size == 1`` it gives exactly the greedy output
(engine.decoding.search, which also holds the step of the decoder and the events' types). Each yielded step is
the currently best hypothesis' and carries its level of the search (``BeamNode``s: kept, finished,
pruned) for the beam tree. The generator's return value (``StopIteration.value``) is the best finished
:class:`Hypothesis`.

Two options against outputs that go round in circles, both off by default: GNMT's coverage penalty
(engine.decoding.coverage) and the n-gram repetition constraint (engine.decoding.ngram_block). No hypothesis may end
before its first token (engine.decoding.no_empty_output). Batched beam search for
evaluation (engine.decoding.beam_batch) applies the same rule with the same ranking (``_Ranking``).

Shapes: K live hypotheses, S source tokens, V target vocabulary, H heads (batch size 1).
"""

from __future__ import annotations

from collections.abc import Generator
from dataclasses import dataclass, replace
from functools import cached_property

import numpy as np
import torch
from torch import Tensor

from engine.decoding.coverage import Coverage, covering
from engine.decoding.ngram_block import block_repeats
from engine.decoding.no_empty_output import forbid_empty_end
from engine.decoding.search import (
    NO_STEERING,
    Alternative,
    BeamNode,
    DecodeStep,
    Hypothesis,
    Namer,
    Steering,
    _alternatives,
    _normalized,
    _rows,
    _step,
)
from engine.networks.model import Encoded, EncoderDecoder, StepOutput
from engine.text.tokenizer import BOS_ID, EOS_ID


@dataclass(frozen=True)
class _Beam:
    """One live or finished hypothesis of beam search (per-hypothesis attention kept)."""

    ids: tuple[int, ...]
    log_probability: float
    state_row: int  # row of the batched decoder state this hypothesis continues from
    steps: tuple[DecodeStep, ...]
    coverage: Coverage | None = None  # of its steps and its cp; kept only with a coverage penalty


@dataclass(frozen=True)
class _Ranking:
    """How beam search scores a hypothesis that ends (or would end) now: log p / lp(length) + cp."""

    length_penalty: float  # α of GNMT's lp
    coverage_penalty: float = 0.0  # β of GNMT's cp (engine.decoding.coverage); 0 = off

    def score(self, log_probability: float, length: int, coverage: Coverage | None) -> float:
        normalized = _normalized(log_probability, length, self.length_penalty)
        return normalized if coverage is None else normalized + coverage.penalty

    def of(self, hypothesis: _Beam) -> float:
        return self.score(hypothesis.log_probability, len(hypothesis.ids), hypothesis.coverage)

    def children(self, coverages: list[Coverage | None], weights: Tensor | np.ndarray | None,
                 source_length: int) -> list[Coverage | None]:
        """coverages: the K live hypotheses'; weights: K×S, this step's α of each (None without
        attention) → the coverage of every continuation of each: the same whatever its token, since
        α_i comes from the hypothesis' state before the token. All None when β is 0."""
        if self.coverage_penalty <= 0.0 or weights is None:
            return [None] * len(coverages)
        rows = weights.cpu().numpy() if isinstance(weights, Tensor) else weights
        return [covering(c, rows[k, :source_length], self.coverage_penalty) for k, c in enumerate(coverages)]

    @staticmethod
    def best(totals: Tensor, coverages: list[Coverage | None], count: int) -> list[tuple[float, int]]:
        """totals: K×V, log p of every continuation of the K live hypotheses; coverages: the K
        children's (``children``) → the ``count`` best as (log p, flat position K·V), best first:
        by log p, or by log p + cp of the coverage after the step when a coverage penalty is set
        (GNMT's beam ranks partial hypotheses by it too; lp is left out there)."""
        count = min(count, totals.numel())
        if coverages[0] is None:
            values, flat = totals.view(-1).topk(count)
            return list(zip(values.tolist(), flat.tolist(), strict=True))
        penalties = torch.tensor([c.penalty for c in coverages if c is not None],  # K: every row has one or none
                                 dtype=totals.dtype, device=totals.device)
        _, flat = (totals + penalties.unsqueeze(1)).view(-1).topk(count)
        return list(zip(totals.view(-1)[flat].tolist(), flat.tolist(), strict=True))


def _select_rows(tensor: Tensor, rows: Tensor) -> Tensor:
    """``tensor.index_select(0, rows)`` laid out in memory as ``tensor`` is (a Transformer's cross-attention
    keys and values are stored layer first, the keys transposed: engine.networks.transformer), so that a
    step reads the rows' keys as the one-sentence step does, with no copy. The same values either way."""
    if tensor.is_contiguous():
        return tensor.index_select(0, rows)
    order = sorted(range(tensor.dim()), key=tensor.stride, reverse=True)  # the dimensions, outermost first
    stored = tensor.permute(order)
    if not stored.is_contiguous():  # not a permutation of a contiguous block: the plain selection
        return tensor.index_select(0, rows)
    return stored.index_select(order.index(0), rows).permute([order.index(dim) for dim in range(tensor.dim())])


def _expand(encoded: Encoded, rows: Tensor) -> Encoded:
    """Select (and repeat) batch rows of the encoder output: rows is a K-vector of indices."""
    memory = encoded.memory.index_select(0, rows)
    return Encoded(
        memory=memory,
        mask=encoded.mask.index_select(0, rows),
        keys=_select_rows(encoded.keys, rows),
        values=memory if encoded.values is encoded.memory else _select_rows(encoded.values, rows),
        summary=encoded.summary.index_select(0, rows),
        initial_state=tuple(t.index_select(0, rows) for t in encoded.initial_state),
    )


@torch.inference_mode()  # no autograd bookkeeping at all (engine.decoding.forced): fewer costs per op
def beam(
    model: EncoderDecoder,
    encoded: Encoded,
    max_length: int,
    namer: Namer,
    beam_size: int = 5,
    length_penalty: float = 1.0,
    top_k: int = 5,
    steering: Steering = NO_STEERING,
    coverage_penalty: float = 0.0,
    no_repeat_ngram: int = 0,
) -> Generator[DecodeStep, None, Hypothesis]:
    """Beam search over one sentence (batch size 1), optionally steered: the forced prefix is one
    hypothesis, the search branches after it; an override applies to every hypothesis at its step.

    Yields, per output position, the step of the currently best-scoring hypothesis (its whole
    prefix and attention included, as the best may switch between steps). Returns the best
    finished hypothesis by ``log p / lp(length)`` (GNMT's penalty, α = ``length_penalty``), plus
    GNMT's coverage penalty cp with β = ``coverage_penalty`` > 0 (engine.decoding.coverage: the beam is then
    pruned by log p + cp, and finished hypotheses ranked by log p / lp + cp; a model without attention
    has none). ``no_repeat_ngram`` = n > 0 bans the tokens that would repeat an n-gram a hypothesis
    already produced (engine.decoding.ngram_block; forced prefix tokens are never banned).

    The search ends when ``beam_size`` hypotheses have finished and none of the live ones scores
    better than the best finished one at its current length (the usual stopping rule, as in
    Hugging Face's ``early_stopping=False``): stopping at the first ``beam_size`` finished ones
    would keep short hypotheses that ended early and cut long, multi-clause outputs short.
    """
    search = _BeamSearch(model, encoded, namer, top_k, steering, _Ranking(length_penalty, coverage_penalty),
                         beam_size, no_repeat_ngram)
    for index in range(max_length):
        expansion = search.expand(index)
        if index < len(steering.prefix):  # a forced step: one hypothesis, the given token
            step = search.force(expansion, steering.prefix[index])
            yield step
            if step.is_eos:
                break
            continue
        yield search.branch(expansion)
        if search.is_over():
            break
    return search.answer()


@dataclass(frozen=True)
class _Expansion:
    """One decoder step of the K live hypotheses at output position ``index``: what each continuation
    (a live hypothesis and a token) is made of."""

    index: int
    logp: Tensor  # K×V: log p(token | hypothesis, x) (banned tokens at −∞: an empty end, the n-gram constraint)
    out: StepOutput  # weights, scores, model_weights: K×S or None; head_weights: K×H×S or None
    coverages: list[Coverage | None]  # K: the coverage of each hypothesis' continuations (``_Ranking.children``)
    top_k: int
    namer: Namer

    def child(self, parent: _Beam, parent_row: int, token_id: int, total: float, forced: bool = False) -> _Beam:
        """``parent`` (row ``parent_row`` of the K) continued by ``token_id``, of log p ``total``."""
        step = self._event(parent, parent_row, token_id, total, forced)
        return _Beam(parent.ids + (token_id,), total, parent_row, parent.steps + (step,), self.coverages[parent_row])

    def _event(self, parent: _Beam, parent_row: int, token_id: int, total: float, forced: bool) -> DecodeStep:
        """The event of the child's last token: α_i, e_ij, model α_i and head α_i are row ``parent_row`` (S or H×S)."""
        name = self.namer([token_id])[0]
        out = self.out
        row = self._row("weights", parent_row)
        previous_rows = [s.attention for s in parent.steps] if row is not None else []
        return DecodeStep(
            index=self.index,
            token_id=token_id,
            token=name,
            probability=float(self.logp[parent_row, token_id].exp()),
            attention=row,
            scores=self._row("scores", parent_row),
            alternatives=self._alternatives_of(parent_row),
            hypothesis_tokens=tuple(s.token for s in parent.steps) + (name,),
            hypothesis_attention=np.stack(previous_rows + [row]) if row is not None else None,
            log_probability=total,
            is_eos=token_id == EOS_ID,
            previous_steps=parent.steps,
            forced=forced,
            overridden=out.model_weights is not None,
            model_attention=self._row("model_weights", parent_row),
            head_attention=self._row("head_weights", parent_row),
            layer_attention=self._row("layer_weights", parent_row),
            self_attention=self._row("self_weights", parent_row),
        )

    @cached_property
    def _arrays(self) -> dict[str, np.ndarray | None]:
        """The step's rows as numpy (K×…), converted once a step rather than once a candidate and field."""
        return {name: _numpy_view(getattr(self.out, name)) for name in _ROW_FIELDS}

    def _row(self, name: str, row: int) -> np.ndarray | None:
        """Row ``row`` of the step's output ``name`` (S, H×S, L×H×S or L×H×(i+1)) as a numpy copy, or None."""
        matrix = self._arrays[name]
        return None if matrix is None else matrix[row].copy()

    @cached_property
    def _alternatives_cache(self) -> dict[int, tuple[Alternative, ...]]:
        return {}

    def _alternatives_of(self, row: int) -> tuple[Alternative, ...]:
        """The top-k alternatives of row ``row``'s distribution, once a row (its candidates share them)."""
        cache = self._alternatives_cache
        if row not in cache:
            cache[row] = _alternatives(self.logp[row], self.top_k, self.namer)
        return cache[row]

    def pruned(self, rest: list[tuple[float, int]], live: list[_Beam], ranking: _Ranking) -> list[BeamNode]:
        """The candidates ``rest`` (log p, flat position K·V) that the search did not keep: the beam was full."""
        nodes = []
        vocab = self.logp.size(1)
        for total, position in rest:
            parent_row, token_id = divmod(position, vocab)
            ids = live[parent_row].ids + (token_id,)
            nodes.append(BeamNode(ids, self.namer([token_id])[0], float(self.logp[parent_row, token_id].exp()), total,
                                  "pruned", ranking.score(total, len(ids), self.coverages[parent_row])))
        return nodes


_ROW_FIELDS = ("weights", "scores", "model_weights", "head_weights", "layer_weights", "self_weights")  # of StepOutput


def _numpy_view(matrix: Tensor | None) -> np.ndarray | None:
    """A K×… tensor as numpy (its rows are copied out: ``_Expansion._row``), or None when there is none."""
    return matrix.cpu().numpy() if matrix is not None else None


class _BeamSearch:
    """The search state of one sentence: the live hypotheses (their decoder state, K rows), the finished ones."""

    def __init__(self, model: EncoderDecoder, encoded: Encoded, namer: Namer, top_k: int, steering: Steering,
                 ranking: _Ranking, beam_size: int, no_repeat_ngram: int) -> None:
        self.model, self.encoded, self.namer, self.top_k = model, encoded, namer, top_k
        self.steering, self.ranking = steering, ranking
        self.beam_size, self.no_repeat_ngram = beam_size, no_repeat_ngram
        self.live = [_Beam((), 0.0, 0, ())]
        self.finished: list[_Beam] = []
        self.state = encoded.initial_state
        self.expanded = encoded  # the encoder output, one row per live hypothesis
        self.source_length = int(encoded.mask[0].sum())

    @property
    def device(self) -> torch.device:
        return self.encoded.memory.device

    def expand(self, index: int) -> _Expansion:
        """Run the decoder one step for every live hypothesis (each from its own state row)."""
        live, device = self.live, self.device
        rows = torch.tensor([b.state_row for b in live], device=device)
        state = tuple(t.index_select(0, rows) for t in self.state)
        if self.expanded.memory.size(0) != len(live):
            self.expanded = _expand(self.encoded, torch.zeros(len(live), dtype=torch.long, device=device))
        previous = torch.tensor([b.ids[-1] if b.ids else BOS_ID for b in live], device=device)
        override = self.steering.override_at(index, len(live), device)
        logp, out = _step(self.model, previous, state, self.expanded, override)  # K×V
        self.state = out.state
        coverages = self.ranking.children([b.coverage for b in live], out.weights, self.source_length)
        return _Expansion(index, logp, out, coverages, self.top_k, self.namer)

    def force(self, expansion: _Expansion, token_id: int) -> DecodeStep:
        """A step of the forced prefix: the one live hypothesis continued by the given token."""
        parent = self.live[0]
        total = parent.log_probability + float(expansion.logp[0, token_id])
        candidate = expansion.child(parent, 0, token_id, total, forced=True)
        if token_id == EOS_ID:
            self.finished.append(candidate)
            self.live = []
        else:
            self.live = [candidate]
        return candidate.steps[-1]

    def branch(self, expansion: _Expansion) -> DecodeStep:
        """A searched step: the 2K best continuations taken in order, those ending with EOS set aside as
        finished, until K are live → the best one's step, carrying the step's whole level."""
        logp = forbid_empty_end(expansion.logp, [len(b.ids) for b in self.live])
        if self.no_repeat_ngram:
            logp = block_repeats(logp, [b.ids for b in self.live], self.no_repeat_ngram)
        expansion = replace(expansion, logp=logp)
        so_far = torch.tensor([b.log_probability for b in self.live], device=self.device).unsqueeze(1)  # K×1
        totals = so_far + expansion.logp  # K×V
        candidates = self.ranking.best(totals, expansion.coverages, 2 * self.beam_size)
        # a banned continuation (an empty end, a repeated n-gram) is no candidate
        candidates = [(total, position) for total, position in candidates if total != -np.inf]
        kept, level = self._take(expansion, candidates)
        self.live = kept
        best = level[0].step
        assert best is not None  # the best candidate is kept or finished, and those carry their step
        return replace(best, beam_level=tuple(level))

    def _take(self, expansion: _Expansion, candidates: list[tuple[float, int]]) -> tuple[list[_Beam], list[BeamNode]]:
        """The candidates (log p, flat position K·V), best first → the new live hypotheses and the level's nodes."""
        vocab = expansion.logp.size(1)
        kept: list[_Beam] = []
        level: list[BeamNode] = []
        for rank, (total, position) in enumerate(candidates):
            parent_row, token_id = divmod(position, vocab)
            candidate = expansion.child(self.live[parent_row], parent_row, token_id, total)
            ended = token_id == EOS_ID
            step = candidate.steps[-1]
            level.append(BeamNode(candidate.ids, step.token, step.probability, total,
                                  "finished" if ended else "kept", self.ranking.of(candidate), step))
            (self.finished if ended else kept).append(candidate)
            if len(kept) == self.beam_size:
                level += expansion.pruned(candidates[rank + 1:], self.live, self.ranking)
                break
        return kept, level

    def is_over(self) -> bool:
        """Nothing is live, or K have finished and the best of them beats every live one (``_search_is_over``)."""
        return not self.live or (len(self.finished) >= self.beam_size and _search_is_over(
            self.finished, self.live, self.ranking.length_penalty, self.ranking))

    def answer(self) -> Hypothesis:
        """The best finished hypothesis; the live ones compete too when fewer than K finished (the length cap)."""
        capped = [replace(b, state_row=-1) for b in self.live] if len(self.finished) < self.beam_size else []
        return _to_hypothesis(max(self.finished + capped, key=self.ranking.of), self.ranking)


def _search_is_over(finished: list[_Beam], live: list[_Beam], length_penalty: float,
                    ranking: _Ranking | None = None) -> bool:
    """True when the best finished hypothesis scores at least as well as every live one would if it
    ended now (with α > 0 a live one may still overtake it by growing, and with a coverage penalty
    by covering more; that chance is given up). ``ranking`` (with its coverage penalty) defaults
    to log p / lp with α = ``length_penalty``."""
    ranking = ranking or _Ranking(length_penalty)
    return max(map(ranking.of, finished)) >= max(map(ranking.of, live))


def _to_hypothesis(best: _Beam, ranking: _Ranking) -> Hypothesis:
    attention = [s.attention for s in best.steps if s.attention is not None]
    scores = [s.scores for s in best.steps if s.scores is not None]
    return Hypothesis(
        best.ids, _rows(attention), _rows(scores), best.log_probability, ranking.of(best),
        capped=not best.ids or best.ids[-1] != EOS_ID, steps=best.steps,
    )
