"""Greedy search as a generator that yields one :class:`DecodeStep` per output token; the events of every search.

Each step carries what the app shows live: the token, its attention row α_i over the source
tokens, the raw scores e_ij before the softmax, the top-k alternatives with probabilities, and the
whole hypothesis so far (tokens and attention matrix), so a viewer never has to rebuild state.
The generator's return value (``StopIteration.value``) is the finished :class:`Hypothesis`.

This module holds the events' types, one step of the decoder (``_step``), steering (a forced prefix,
attention set by hand), greedy search, and batched greedy decoding for evaluation (:func:`greedy_batch`).
Beam search is engine.decoding.beam_search (one sentence, the same events) and engine.decoding.beam_batch (a batch).

Against outputs that go round in circles, greedy search takes the n-gram repetition constraint
(engine.decoding.ngram_block), off by default; beam search takes it and GNMT's coverage penalty. Every
search bans ``</s>`` as the first token (engine.decoding.no_empty_output): no translation comes back empty.
"""

from __future__ import annotations

from collections.abc import Callable, Generator
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

import numpy as np
import torch
from torch import Tensor

from engine.decoding.ngram_block import block_repeats
from engine.decoding.no_empty_output import forbid_empty_end, forbid_first_end
from engine.decoding.teacher_forcing import teacher_force
from engine.networks.model import Encoded, EncoderDecoder, State
from engine.text.tokenizer import BOS_ID, EOS_ID

if TYPE_CHECKING:
    from engine.decoding.decode_memo import GreedyMemo


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
    layer_attention: np.ndarray | None = None  # (L,H,S) a Transformer's cross-attention, every layer and head
    self_attention: np.ndarray | None = None  # (L,H,i+1) a Transformer decoder's self-attention over y_0..y_i
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


def _step_logp(model: EncoderDecoder, previous: Tensor, state: State, encoded: Encoded, override: Tensor | None = None):
    """previous: K ids → (log p: K×V, new state, weights K×S | None, scores K×S | None).
    ``override`` (K×S) replaces the attention weights of this step (what-if decoding)."""
    logp, out = _step(model, previous, state, encoded, override)
    return logp, out.state, out.weights, out.scores


def _step(model: EncoderDecoder, previous: Tensor, state: State, encoded: Encoded, override: Tensor | None = None):
    """previous: K ids → (log p: K×V, the decoder's StepOutput)."""
    decoder = model.decoder
    embedded = decoder.embedding(previous)  # K×E
    out = decoder.step(embedded, state, encoded, override)
    logits = decoder.logits(out.state[0], out.context, embedded)  # K×V
    return torch.log_softmax(logits, dim=-1), out


def _numpy(tensor: Tensor | None) -> np.ndarray | None:
    """A copy of ``tensor`` as numpy (safe to send between threads); None stays None."""
    return tensor.cpu().numpy().copy() if tensor is not None else None


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
        """A step of an earlier decode that this one repeats (engine.decoding.decode_memo), marked as given."""
        adopted = replace(step, forced=True, previous_steps=tuple(self.steps))
        self.total = step.log_probability
        self.ids.append(step.token_id)
        self.names.append(step.token)
        if step.attention is not None:
            assert step.scores is not None  # a step with α has its scores e_ij
            self.attention.append(step.attention)
            self.scores.append(step.scores)
        self.steps.append(adopted)
        self.states.append(state)
        return adopted

    def add(self, token_id: int, logp: Tensor, state: State, weights: Tensor | None, scores: Tensor | None,
            model_weights: Tensor | None, forced: bool, heads: Tensor | None = None, layers: Tensor | None = None,
            own: Tensor | None = None) -> DecodeStep:
        """logp: V; state: the decoder state after the step; heads: H×S (or None); weights, scores, model_weights: S (or
        None); a Transformer's layers: L×H×S and own (its self-attention): L×H×(i+1) → the step's event."""
        token_logp = float(logp[token_id])
        self.total += token_logp
        self.ids.append(token_id)
        self.names.append(self.namer([token_id])[0])
        if weights is not None:
            assert scores is not None  # a step with α has its scores e_ij
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
            head_attention=_numpy(heads),
            layer_attention=_numpy(layers),
            self_attention=_numpy(own),
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


@torch.inference_mode()  # no autograd bookkeeping at all (engine.decoding.forced): fewer costs per op
def greedy(
    model: EncoderDecoder, encoded: Encoded, max_length: int, namer: Namer, top_k: int = 5,
    steering: Steering = NO_STEERING, memo: GreedyMemo | None = None, no_repeat_ngram: int = 0,
) -> Generator[DecodeStep, None, Hypothesis]:
    """Greedy search over one sentence (encoded with batch size 1), optionally steered.

    A forced prefix costs little: the steps it shares with ``memo`` (the last decode of this
    sentence, engine.decoding.decode_memo) are taken from it, and the rest is teacher-forced
    (engine.decoding.teacher_forcing); only the steps after the prefix are searched. ``no_repeat_ngram`` = n
    > 0 bans, at every searched step, the tokens that would repeat an n-gram of the output so far
    (engine.decoding.ngram_block; the step's alternatives are then those of the constrained distribution)."""
    record = _GreedyRecord(namer, top_k)
    prefix = steering.prefix[:max_length]
    start = yield from _greedy_prefix(model, encoded, prefix, steering, memo, record)
    if start is not None:
        yield from _greedy_search(model, encoded, start, range(len(prefix), max_length), steering, record,
                                  no_repeat_ngram)
    return record.hypothesis()


def _greedy_prefix(
    model: EncoderDecoder, encoded: Encoded, prefix: tuple[int, ...], steering: Steering, memo: GreedyMemo | None,
    record: _GreedyRecord,
) -> Generator[DecodeStep, None, tuple[Any, int] | None]:
    """greedy's forced prefix: the steps ``memo`` already holds, then the rest teacher-forced. Returns the
    (state, last id) the search goes on from, or None when the prefix ended with EOS."""
    device = encoded.memory.device
    state, previous_id = encoded.initial_state, BOS_ID
    reused = memo.reusable_steps(steering) if memo is not None else 0
    if memo is not None and reused:
        for index in range(reused):
            yield record.adopt(memo.steps[index], memo.states[index])
        state, previous_id = memo.states[reused - 1], prefix[reused - 1]
    if len(prefix) <= reused:
        return state, previous_id
    run = teacher_force(model, encoded, prefix[reused:],
                        lambda index: steering.override_at(reused + index, 1, device), state, previous_id)
    for offset, token_id in enumerate(prefix[reused:]):
        yield record.add(token_id, run.log_probs[offset], run.states[offset], _row_of(run.weights, offset),
                         _row_of(run.scores, offset), run.model_weights[offset], forced=True,
                         heads=_row_of(run.head_weights, offset), layers=_row_of(run.layer_weights, offset),
                         own=run.self_weights[offset][0] if run.self_weights else None)
        if token_id == EOS_ID:
            return None
    return run.states[-1], prefix[-1]


def _greedy_search(
    model: EncoderDecoder, encoded: Encoded, start: tuple[Any, int], indices: range, steering: Steering,
    record: _GreedyRecord, no_repeat_ngram: int,
) -> Generator[DecodeStep, None, None]:
    """greedy's searched steps ``indices``, from ``start`` (the state and the last id), until EOS."""
    device = encoded.memory.device
    state, previous_id = start
    previous = torch.tensor([previous_id], device=device)
    for index in indices:
        logp, out = _step(model, previous, state, encoded, steering.override_at(index, 1, device))
        logp = forbid_empty_end(logp, [len(record.ids)])
        if no_repeat_ngram:
            logp = block_repeats(logp, [record.ids], no_repeat_ngram)
        state = out.state
        token = logp[0].argmax()
        token_id = int(token)
        yield record.add(token_id, logp[0], state, _row_of(out.weights), _row_of(out.scores),
                         _row_of(out.model_weights), forced=False, heads=_row_of(out.head_weights),
                         layers=_row_of(out.layer_weights), own=_row_of(out.self_weights))
        if token_id == EOS_ID:
            return
        previous = token.view(1)


@torch.no_grad()
def greedy_batch(
    model: EncoderDecoder, source: Tensor, lengths: Tensor, max_length: int, no_repeat_ngram: int = 0,
) -> tuple[list[list[int]], list[np.ndarray | None]]:
    """Greedy search over a batch. source: B×S, lengths: B.

    Returns, per sentence, the output ids (EOS excluded) and its attention matrix
    (len(ids)+1 rows when EOS was produced, the EOS row included; None for the ``none`` scorer).
    ``no_repeat_ngram`` = n > 0: no sentence produces an n-gram of tokens twice (engine.decoding.ngram_block).
    """
    encoded = model.encode(source, lengths)
    batch = source.size(0)
    state = encoded.initial_state
    previous = torch.full((batch,), BOS_ID, dtype=torch.long, device=source.device)
    done = torch.zeros(batch, dtype=torch.bool, device=source.device)
    outputs, weights_per_step = [], []
    produced: list[list[int]] = [[] for _ in range(batch)]  # each unfinished sentence's ids (n-gram constraint)
    for index in range(max_length):
        logp, state, weights, _ = _step_logp(model, previous, state, encoded)
        if index == 0:
            logp = forbid_first_end(logp)
        if no_repeat_ngram:
            logp = block_repeats(logp, produced, no_repeat_ngram)
        previous = logp.argmax(dim=1)  # B
        if no_repeat_ngram:
            _extend_unfinished(produced, previous, done)
        outputs.append(previous)
        if weights is not None:
            weights_per_step.append(weights)
        done |= previous == EOS_ID
        if bool(done.all()):
            break
    return _cut_at_eos(torch.stack(outputs, dim=1).tolist(), weights_per_step, lengths)


def _extend_unfinished(produced: list[list[int]], tokens: Tensor, done: Tensor) -> None:
    """Append each sentence's new token (tokens: B) to its ids, unless it had ended before (done: B)."""
    for ids, token_id, ended in zip(produced, tokens.tolist(), done.tolist(), strict=True):
        if not ended:
            ids.append(token_id)


def _cut_at_eos(ids: list[list[int]], weights_per_step: list[Tensor], lengths: Tensor
                ) -> tuple[list[list[int]], list[np.ndarray | None]]:
    """ids: B rows of T tokens; weights_per_step: T tensors B×S (none without attention); lengths: B →
    each sentence's ids before its first EOS and its attention rows up to that EOS (S_b columns: its own)."""
    attention = torch.stack(weights_per_step, dim=1).cpu().numpy() if weights_per_step else None  # B×T×S
    results: list[list[int]] = []
    matrices: list[np.ndarray | None] = []
    for b, row in enumerate(ids):
        cut = row.index(EOS_ID) if EOS_ID in row else len(row)
        results.append(row[:cut])
        rows = min(cut + 1, len(row))
        matrices.append(None if attention is None else attention[b, :rows, : int(lengths[b])].copy())
    return results, matrices
