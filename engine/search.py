"""Greedy and beam search as generators that yield one :class:`DecodeStep` per output token.

Each step carries what the app shows live: the token, its attention row α_i over the source
tokens, the raw scores e_ij before the softmax, the top-k alternatives with probabilities, and the
whole hypothesis so far (tokens and attention matrix), so a viewer never has to rebuild state.
The generator's return value (``StopIteration.value``) is the finished :class:`Hypothesis`.

Beam search keeps attention per hypothesis; with ``beam_size == 1`` it gives exactly the greedy
output. Batched greedy decoding for evaluation is :func:`greedy_batch`.

Two options against outputs that go round in circles, both off by default: GNMT's coverage penalty
(beam only; engine.coverage) and the n-gram repetition constraint (every search; engine.ngram_block).
"""

from __future__ import annotations

from collections.abc import Callable, Generator
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

import numpy as np
import torch
from torch import Tensor

from engine.coverage import Coverage, covering
from engine.model import Encoded, Seq2Seq, State
from engine.ngram_block import block_repeats
from engine.teacher_forcing import teacher_force
from engine.tokenizer import BOS_ID, EOS_ID

if TYPE_CHECKING:
    from engine.decode_memo import GreedyMemo


@dataclass(frozen=True)
class Alternative:
    token_id: int
    token: str
    probability: float


@dataclass(frozen=True)
class BeamNode:
    """One candidate beam search weighed at a step: a hypothesis ``ids`` (its parent is ``ids[:-1]``)."""

    ids: tuple[int, ...]
    token: str
    probability: float  # p(token | parent, x)
    log_probability: float  # of the whole hypothesis
    status: str  # "kept" (goes on), "finished" (ended with EOS), "pruned" (among the 2K best, not kept)
    score: float  # log p / lp(length) + cp (when set): what the search ranks finished hypotheses by
    step: DecodeStep | None = field(default=None, repr=False, compare=False)  # kept / finished only


@dataclass(frozen=True)
class DecodeStep:
    """One output token, as computed (immutable: safe to send between threads)."""

    index: int  # i, 0-based position in the output
    token_id: int
    token: str  # the SentencePiece piece, e.g. "▁book" or "</s>"
    probability: float  # p(y_i | y_<i, x)
    attention: np.ndarray | None  # (S,) α_i; None for the fixed-context scorer
    scores: np.ndarray | None  # (S,) raw e_ij before the softmax
    alternatives: tuple[Alternative, ...]  # top-k of the distribution this token was drawn from
    hypothesis_tokens: tuple[str, ...]  # the hypothesis' tokens 0..i
    hypothesis_attention: np.ndarray | None  # (i+1)×S, rows 0..i
    log_probability: float  # Σ log p over tokens 0..i
    is_eos: bool = False
    previous_steps: tuple[DecodeStep, ...] = field(default=(), repr=False)  # the hypothesis' steps 0..i-1
    forced: bool = False  # the token was given (a forced prefix), not chosen by the model
    overridden: bool = False  # α_i was set by hand (``attention``); the model's own is ``model_attention``
    model_attention: np.ndarray | None = None  # (S,) the model's own α_i at an overridden step
    head_attention: np.ndarray | None = None  # (H,S) each head's α^h_i (``attention`` is their mean); multi-head only
    beam_level: tuple[BeamNode, ...] = field(default=(), repr=False)  # beam search: every candidate of this step


@dataclass(frozen=True)
class Hypothesis:
    """A finished (or length-capped) output sequence and its attention matrix."""

    token_ids: tuple[int, ...]  # ends with EOS unless the length cap was hit
    attention: np.ndarray | None  # len(token_ids)×S
    scores: np.ndarray | None  # len(token_ids)×S raw scores
    log_probability: float
    normalized_score: float  # log_probability / lp(len) (+ cp when set), GNMT's penalties: what beam search ranks by
    capped: bool = False  # True when the length cap ended it before EOS
    steps: tuple[DecodeStep, ...] = field(default=(), repr=False)
    states: tuple[State, ...] = field(default=(), repr=False)  # greedy: the decoder state after each step


Namer = Callable[[list[int]], list[str]]  # token ids → pieces (the target tokenizer)


def length_penalty_factor(length: int, alpha: float) -> float:
    """GNMT's length penalty lp(Y) = ((5 + |Y|) / 6)^α (Wu et al. 2016, eq. 14): 1 for one token,
    growing with the length; α = 0 ranks by raw log-probability, which favours short outputs."""
    return ((5.0 + max(length, 1)) / 6.0) ** alpha


def _normalized(log_probability: float, length: int, length_penalty: float) -> float:
    return log_probability / length_penalty_factor(length, length_penalty)


def _step_logp(model: Seq2Seq, previous: Tensor, state: State, encoded: Encoded, override: Tensor | None = None):
    """previous: K ids → (log p: K×V, new state, weights K×S | None, scores K×S | None).
    ``override`` (K×S) replaces the attention weights of this step (what-if decoding)."""
    logp, out = _step(model, previous, state, encoded, override)
    return logp, out.state, out.weights, out.scores


def _step(model: Seq2Seq, previous: Tensor, state: State, encoded: Encoded, override: Tensor | None = None):
    """previous: K ids → (log p: K×V, the decoder's StepOutput)."""
    decoder = model.decoder
    embedded = decoder.embedding(previous)  # K×E
    out = decoder.step(embedded, state, encoded, override)
    logits = decoder.logits(out.state[0], out.context, embedded)  # K×V
    return torch.log_softmax(logits, dim=-1), out


def _alternatives(logp: Tensor, top_k: int, namer: Namer) -> tuple[Alternative, ...]:
    """logp: V → the top-k tokens with probabilities."""
    values, ids = logp.topk(top_k)
    id_list = ids.tolist()
    return tuple(
        Alternative(i, name, float(p)) for i, name, p in zip(id_list, namer(id_list), values.exp().tolist(), strict=False)
    )


def _rows(matrix_rows: list[np.ndarray]) -> np.ndarray | None:
    return np.stack(matrix_rows) if matrix_rows else None


@dataclass(frozen=True)
class Steering:
    """What-if decoding: a forced prefix and attention set by hand at chosen steps.

    ``prefix``: target ids fed at steps 0…len−1 instead of the model's choices (teacher-forced, so
    the model continues from a corrected output). ``overrides``: step i → weights (S,) summing to 1
    that replace α_i in forming c_i (the model's own α_i is still computed and reported)."""

    prefix: tuple[int, ...] = ()
    overrides: dict[int, np.ndarray] = field(default_factory=dict)

    def override_at(self, index: int, rows: int, device: torch.device | None = None) -> Tensor | None:
        """The override of step ``index`` as a rows×S tensor (on ``device``), or None."""
        weights = self.overrides.get(index)
        if weights is None:
            return None
        row = torch.as_tensor(np.asarray(weights, dtype=np.float32), device=device)
        return row.unsqueeze(0).expand(rows, -1).contiguous()


NO_STEERING = Steering()


def _row_of(matrix: Tensor | None, index: int = 0) -> Tensor | None:
    """Row ``index`` of a K×S tensor, or None when there is none (the fixed-context scorer)."""
    return None if matrix is None else matrix[index]


class _GreedyRecord:
    """The steps of one greedy decode so far, and the DecodeStep event of each new one."""

    def __init__(self, namer: Namer, top_k: int) -> None:
        self.namer, self.top_k = namer, top_k
        self.ids: list[int] = []
        self.names: list[str] = []
        self.attention: list[np.ndarray] = []
        self.scores: list[np.ndarray] = []
        self.steps: list[DecodeStep] = []
        self.states: list[State] = []
        self.total = 0.0

    def adopt(self, step: DecodeStep, state: State) -> DecodeStep:
        """A step of an earlier decode that this one repeats (engine.decode_memo), marked as given."""
        adopted = replace(step, forced=True, previous_steps=tuple(self.steps))
        self.total = step.log_probability
        self.ids.append(step.token_id)
        self.names.append(step.token)
        if step.attention is not None:
            self.attention.append(step.attention)
            self.scores.append(step.scores)
        self.steps.append(adopted)
        self.states.append(state)
        return adopted

    def add(self, token_id: int, logp: Tensor, state: State, weights: Tensor | None, scores: Tensor | None,
            model_weights: Tensor | None, forced: bool, heads: Tensor | None = None) -> DecodeStep:
        """logp: V; state: the decoder state after the step; heads: H×S (or None); weights, scores, model_weights: S (or
        None) → the step's event."""
        token_logp = float(logp[token_id])
        self.total += token_logp
        self.ids.append(token_id)
        self.names.append(self.namer([token_id])[0])
        if weights is not None:
            self.attention.append(weights.cpu().numpy().copy())
            self.scores.append(scores.cpu().numpy().copy())
        step = DecodeStep(
            index=len(self.steps),
            token_id=token_id,
            token=self.names[-1],
            probability=float(np.exp(token_logp)),
            attention=self.attention[-1] if self.attention else None,
            scores=self.scores[-1] if self.scores else None,
            alternatives=_alternatives(logp, self.top_k, self.namer),
            hypothesis_tokens=tuple(self.names),
            hypothesis_attention=_rows(self.attention),
            log_probability=self.total,
            is_eos=token_id == EOS_ID,
            previous_steps=tuple(self.steps),
            forced=forced,
            overridden=model_weights is not None,
            model_attention=model_weights.cpu().numpy().copy() if model_weights is not None else None,
            head_attention=heads.cpu().numpy().copy() if heads is not None else None,
        )
        self.steps.append(step)
        self.states.append(state)
        return step

    def hypothesis(self) -> Hypothesis:
        ids, total = tuple(self.ids), self.total
        return Hypothesis(
            ids, _rows(self.attention), _rows(self.scores), total, _normalized(total, len(ids), 1.0),
            capped=not ids or ids[-1] != EOS_ID, steps=tuple(self.steps), states=tuple(self.states),
        )


@torch.no_grad()
def greedy(
    model: Seq2Seq, encoded: Encoded, max_length: int, namer: Namer, top_k: int = 5,
    steering: Steering = NO_STEERING, memo: GreedyMemo | None = None, no_repeat_ngram: int = 0,
) -> Generator[DecodeStep, None, Hypothesis]:
    """Greedy search over one sentence (encoded with batch size 1), optionally steered.

    A forced prefix costs little: the steps it shares with ``memo`` (the last decode of this
    sentence, engine.decode_memo) are taken from it, and the rest is teacher-forced
    (engine.teacher_forcing); only the steps after the prefix are searched. ``no_repeat_ngram`` = n
    > 0 bans, at every searched step, the tokens that would repeat an n-gram of the output so far
    (engine.ngram_block; the step's alternatives are then those of the constrained distribution)."""
    device = encoded.memory.device
    state = encoded.initial_state
    previous_id = BOS_ID
    record = _GreedyRecord(namer, top_k)
    prefix = steering.prefix[:max_length]
    reused = memo.reusable_steps(steering) if memo is not None else 0
    for index in range(reused):
        yield record.adopt(memo.steps[index], memo.states[index])  # type: ignore[union-attr]
    if reused:
        state, previous_id = memo.states[reused - 1], prefix[reused - 1]  # type: ignore[union-attr]
    if len(prefix) > reused:
        run = teacher_force(model, encoded, prefix[reused:],
                            lambda index: steering.override_at(reused + index, 1, device), state, previous_id)
        for offset, token_id in enumerate(prefix[reused:]):
            yield record.add(token_id, run.log_probs[offset], run.states[offset], _row_of(run.weights, offset),
                             _row_of(run.scores, offset), run.model_weights[offset], forced=True,
                             heads=_row_of(run.head_weights, offset))
            if token_id == EOS_ID:
                return record.hypothesis()
        state, previous_id = run.states[-1], prefix[-1]
    previous = torch.tensor([previous_id], device=device)
    for index in range(len(prefix), max_length):
        logp, out = _step(model, previous, state, encoded, steering.override_at(index, 1, device))
        if no_repeat_ngram:
            logp = block_repeats(logp, [record.ids], no_repeat_ngram)
        state = out.state
        token = logp[0].argmax()
        token_id = int(token)
        yield record.add(token_id, logp[0], state, _row_of(out.weights), _row_of(out.scores),
                         _row_of(out.model_weights), forced=False, heads=_row_of(out.head_weights))
        if token_id == EOS_ID:
            break
        previous = token.view(1)
    return record.hypothesis()


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
    coverage_penalty: float = 0.0  # β of GNMT's cp (engine.coverage); 0 = off

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
        penalties = torch.tensor([c.penalty for c in coverages], dtype=totals.dtype, device=totals.device)  # K
        _, flat = (totals + penalties.unsqueeze(1)).view(-1).topk(count)
        return list(zip(totals.view(-1)[flat].tolist(), flat.tolist(), strict=True))


def _expand(encoded: Encoded, rows: Tensor) -> Encoded:
    """Select (and repeat) batch rows of the encoder output: rows is a K-vector of indices."""
    return Encoded(
        memory=encoded.memory.index_select(0, rows),
        mask=encoded.mask.index_select(0, rows),
        keys=encoded.keys.index_select(0, rows),
        summary=encoded.summary.index_select(0, rows),
        initial_state=tuple(t.index_select(0, rows) for t in encoded.initial_state),
    )


@torch.no_grad()
def beam(
    model: Seq2Seq,
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
    GNMT's coverage penalty cp with β = ``coverage_penalty`` > 0 (engine.coverage: the beam is then
    pruned by log p + cp, and finished hypotheses ranked by log p / lp + cp; a model without attention
    has none). ``no_repeat_ngram`` = n > 0 bans the tokens that would repeat an n-gram a hypothesis
    already produced (engine.ngram_block; forced prefix tokens are never banned).

    The search ends when ``beam_size`` hypotheses have finished and none of the live ones scores
    better than the best finished one at its current length (the usual stopping rule, as in
    Hugging Face's ``early_stopping=False``): stopping at the first ``beam_size`` finished ones
    would keep short hypotheses that ended early and cut long, multi-clause outputs short.
    """
    live = [_Beam((), 0.0, 0, ())]
    finished: list[_Beam] = []
    state = encoded.initial_state
    device = encoded.memory.device
    expanded = encoded
    ranking = _Ranking(length_penalty, coverage_penalty)
    source_length = int(encoded.mask[0].sum())
    for index in range(max_length):
        rows = torch.tensor([b.state_row for b in live], device=device)
        state = tuple(t.index_select(0, rows) for t in state)
        if expanded.memory.size(0) != len(live):
            expanded = _expand(encoded, torch.zeros(len(live), dtype=torch.long, device=device))
        previous = torch.tensor([b.ids[-1] if b.ids else BOS_ID for b in live], device=device)
        logp, out = _step(model, previous, state, expanded, steering.override_at(index, len(live), device))  # K×V
        state, weights, raw = out.state, out.weights, out.scores
        coverages = ranking.children([b.coverage for b in live], weights, source_length)
        if index < len(steering.prefix):  # a forced step: one hypothesis, the given token
            token_id = steering.prefix[index]
            total = live[0].log_probability + float(logp[0, token_id])
            step = replace(_beam_step(live[0], 0, token_id, total, logp, weights, raw, index, top_k, namer,
                                      out.model_weights, out.head_weights), forced=True)
            candidate = _Beam(live[0].ids + (token_id,), total, 0, live[0].steps + (step,), coverages[0])
            yield step
            if token_id == EOS_ID:
                finished.append(candidate)
                live = []
                break
            live = [candidate]
            continue
        if no_repeat_ngram:
            logp = block_repeats(logp, [b.ids for b in live], no_repeat_ngram)
        totals = torch.tensor([b.log_probability for b in live], device=device).unsqueeze(1) + logp  # K×V
        candidates = ranking.best(totals, coverages, 2 * beam_size)
        vocab = logp.size(1)
        new_live: list[_Beam] = []
        best_step: DecodeStep | None = None
        level: list[BeamNode] = []
        if no_repeat_ngram:  # a banned continuation is no candidate (EOS never is: no live hypothesis holds it)
            candidates = [(total, position) for total, position in candidates if total != -np.inf]
        for rank, (total, position) in enumerate(candidates):
            parent_row, token_id = divmod(position, vocab)
            parent = live[parent_row]
            step = _beam_step(parent, parent_row, token_id, total, logp, weights, raw, index, top_k, namer,
                              out.model_weights, out.head_weights)
            candidate = _Beam(parent.ids + (token_id,), total, parent_row, parent.steps + (step,),
                              coverages[parent_row])
            best_step = best_step or step
            status = "finished" if token_id == EOS_ID else "kept"
            level.append(BeamNode(candidate.ids, step.token, step.probability, total, status, ranking.of(candidate),
                                  step))
            if token_id == EOS_ID:
                finished.append(candidate)
            else:
                new_live.append(candidate)
            if len(new_live) == beam_size:
                level += _pruned(candidates[rank + 1:], live, logp, vocab, namer, ranking, coverages)
                break
        yield replace(best_step, beam_level=tuple(level))  # type: ignore[arg-type]
        live = new_live
        if not live or (len(finished) >= beam_size and _search_is_over(finished, live, length_penalty, ranking)):
            break
    capped = [replace(b, state_row=-1) for b in live] if len(finished) < beam_size else []
    pool = finished + capped
    best = max(pool, key=ranking.of)
    return _to_hypothesis(best, ranking)


def _pruned(rest, live, logp, vocab, namer, ranking: _Ranking, coverages: list[Coverage | None]) -> list[BeamNode]:
    """The candidates among the 2K best that the search did not keep (the beam was full)."""
    nodes = []
    for total, position in rest:
        parent_row, token_id = divmod(position, vocab)
        ids = live[parent_row].ids + (token_id,)
        nodes.append(BeamNode(ids, namer([token_id])[0], float(logp[parent_row, token_id].exp()), total, "pruned",
                              ranking.score(total, len(ids), coverages[parent_row])))
    return nodes


def _search_is_over(finished: list[_Beam], live: list[_Beam], length_penalty: float,
                    ranking: _Ranking | None = None) -> bool:
    """True when the best finished hypothesis scores at least as well as every live one would if it
    ended now (with α > 0 a live one may still overtake it by growing, and with a coverage penalty
    by covering more; that chance is given up). ``ranking`` (with its coverage penalty) defaults
    to log p / lp with α = ``length_penalty``."""
    ranking = ranking or _Ranking(length_penalty)
    return max(map(ranking.of, finished)) >= max(map(ranking.of, live))


def _beam_step(parent, parent_row, token_id, total, logp, weights, raw, index, top_k, namer,
               model_weights=None, head_weights=None) -> DecodeStep:
    name = namer([token_id])[0]
    row = weights[parent_row].cpu().numpy().copy() if weights is not None else None
    raw_row = raw[parent_row].cpu().numpy().copy() if raw is not None else None
    previous_rows = [s.attention for s in parent.steps] if row is not None else []
    return DecodeStep(
        index=index,
        token_id=token_id,
        token=name,
        probability=float(logp[parent_row, token_id].exp()),
        attention=row,
        scores=raw_row,
        alternatives=_alternatives(logp[parent_row], top_k, namer),
        hypothesis_tokens=tuple(s.token for s in parent.steps) + (name,),
        hypothesis_attention=np.stack(previous_rows + [row]) if row is not None else None,
        log_probability=total,
        is_eos=token_id == EOS_ID,
        previous_steps=parent.steps,
        overridden=model_weights is not None,
        model_attention=model_weights[parent_row].cpu().numpy().copy() if model_weights is not None else None,
        head_attention=head_weights[parent_row].cpu().numpy().copy() if head_weights is not None else None,
    )


def _to_hypothesis(best: _Beam, ranking: _Ranking) -> Hypothesis:
    attention = [s.attention for s in best.steps if s.attention is not None]
    scores = [s.scores for s in best.steps if s.scores is not None]
    return Hypothesis(
        best.ids, _rows(attention), _rows(scores), best.log_probability, ranking.of(best),
        capped=not best.ids or best.ids[-1] != EOS_ID, steps=best.steps,
    )


@torch.no_grad()
def greedy_batch(
    model: Seq2Seq, source: Tensor, lengths: Tensor, max_length: int, no_repeat_ngram: int = 0,
) -> tuple[list[list[int]], list[np.ndarray | None]]:
    """Greedy search over a batch. source: B×S, lengths: B.

    Returns, per sentence, the output ids (EOS excluded) and its attention matrix
    (len(ids)+1 rows when EOS was produced, the EOS row included; None for the ``none`` scorer).
    ``no_repeat_ngram`` = n > 0: no sentence produces an n-gram of tokens twice (engine.ngram_block).
    """
    encoded = model.encode(source, lengths)
    batch = source.size(0)
    state = encoded.initial_state
    previous = torch.full((batch,), BOS_ID, dtype=torch.long, device=source.device)
    done = torch.zeros(batch, dtype=torch.bool, device=source.device)
    outputs, weights_per_step = [], []
    produced: list[list[int]] = [[] for _ in range(batch)]  # each unfinished sentence's ids (n-gram constraint)
    for _ in range(max_length):
        logp, state, weights, _ = _step_logp(model, previous, state, encoded)
        if no_repeat_ngram:
            logp = block_repeats(logp, produced, no_repeat_ngram)
        previous = logp.argmax(dim=1)  # B
        if no_repeat_ngram:
            for ids, token_id, ended in zip(produced, previous.tolist(), done.tolist(), strict=True):
                if not ended:
                    ids.append(token_id)
        outputs.append(previous)
        if weights is not None:
            weights_per_step.append(weights)
        done |= previous == EOS_ID
        if bool(done.all()):
            break
    ids = torch.stack(outputs, dim=1).tolist()  # B×T
    attention = torch.stack(weights_per_step, dim=1).cpu().numpy() if weights_per_step else None  # B×T×S
    results: list[list[int]] = []
    matrices: list[np.ndarray | None] = []
    for b, row in enumerate(ids):
        cut = row.index(EOS_ID) if EOS_ID in row else len(row)
        results.append(row[:cut])
        rows = min(cut + 1, len(row))
        matrices.append(None if attention is None else attention[b, :rows, : int(lengths[b])].copy())
    return results, matrices
