"""Beam search over a batch of sentences at once, for evaluation (the view's live search is
:func:`engine.decoding.beam_search.beam`, one sentence, one event per step).

Every live hypothesis of every sentence is one row of a single decoder batch, so each step is one
call to the network for the whole batch instead of one per sentence. The search rule is the
one-sentence search's, applied per sentence: the 2·K best continuations by total log-probability,
taken in order, EOS ones set aside as finished, until K live ones are found; a sentence is done
when nothing is live or K have finished and no live one scores better (log p / lp, GNMT's length
penalty) than the best finished one; its answer is the best finished one (or, when fewer than K
finished, the best of those and the live ones). Outputs equal the one-sentence search's; a test
checks it. The same options apply: GNMT's coverage penalty (with β > 0 the continuations are taken
by log p + cp and finished hypotheses ranked by log p / lp + cp, cp over each sentence's own source
positions; engine.decoding.coverage) and the n-gram repetition constraint (engine.decoding.ngram_block); no hypothesis
ends before its first token (engine.decoding.no_empty_output).

Shapes: B sentences, R live rows over all sentences, S source length, V target vocabulary.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch
from torch import Tensor

from engine.decoding.beam_search import _expand, _Ranking
from engine.decoding.coverage import Coverage
from engine.decoding.ngram_block import block_repeats
from engine.decoding.no_empty_output import forbid_empty_end
from engine.decoding.search import _step_logp
from engine.networks.model import Encoded, EncoderDecoder
from engine.text.tokenizer import BOS_ID, EOS_ID


@dataclass(frozen=True)
class BatchHypothesis:
    """One sentence's answer: ids (EOS included when produced), attention rows, log-probability."""

    token_ids: tuple[int, ...]
    attention: np.ndarray | None  # len(token_ids)×S_b (the sentence's own source length)
    log_probability: float
    capped: bool  # the length cap ended it before EOS


@dataclass(frozen=True)
class _Row:
    ids: tuple[int, ...]
    log_probability: float
    attention: tuple[np.ndarray, ...]  # one α row per token
    coverage: Coverage | None = None  # of its rows (the sentence's own source positions) and its cp; β > 0 only


class _Sentence:
    """The search state of one sentence of the batch."""

    def __init__(self, beam_size: int, ranking: _Ranking, source_length: int, no_repeat_ngram: int = 0) -> None:
        self.beam_size, self.ranking, self.source_length = beam_size, ranking, source_length
        self.no_repeat_ngram = no_repeat_ngram
        self.live = [_Row((), 0.0, ())]
        self.finished: list[_Row] = []
        self.done = False

    def score(self, row: _Row) -> float:
        return self.ranking.score(row.log_probability, len(row.ids), row.coverage)

    def advance(self, logp: Tensor, weights: np.ndarray | None, first_row: int) -> list[int]:
        """logp: K×V for this sentence's K live rows (batch rows first_row…); weights: R×S, every
        row's α (None without attention). Keeps the new live hypotheses and returns, for each, the
        batch row its decoder state continues from (nothing once the sentence is done)."""
        logp = forbid_empty_end(logp, [len(r.ids) for r in self.live])
        if self.no_repeat_ngram:
            logp = block_repeats(logp, [r.ids for r in self.live], self.no_repeat_ngram)
        live, parents = self._continue(logp, weights, first_row)
        self.live = live
        self.done = not live or self._search_is_over()
        return parents if not self.done else []

    def _continue(self, logp: Tensor, weights: np.ndarray | None, first_row: int) -> tuple[list[_Row], list[int]]:
        """The 2K best continuations taken in order, those ending with EOS set aside as finished,
        until K are live → the live ones and the batch row of each one's parent."""
        totals = torch.tensor([r.log_probability for r in self.live], device=logp.device).unsqueeze(1) + logp  # K×V
        vocab = logp.size(1)
        rows_of_live = None if weights is None else weights[first_row : first_row + len(self.live)]
        coverages = self.ranking.children([r.coverage for r in self.live], rows_of_live, self.source_length)
        live: list[_Row] = []
        parents: list[int] = []
        for total, position in self.ranking.best(totals, coverages, 2 * self.beam_size):
            if total == -np.inf:  # banned: an empty end, a repeated n-gram (sorted: no better one follows)
                break
            parent_index, token_id = divmod(position, vocab)
            parent = self.live[parent_index]
            rows = parent.attention + ((weights[first_row + parent_index],) if weights is not None else ())
            candidate = _Row(parent.ids + (token_id,), total, rows, coverages[parent_index])
            if token_id == EOS_ID:
                self.finished.append(candidate)
            else:
                live.append(candidate)
                parents.append(first_row + parent_index)
            if len(live) == self.beam_size:
                break
        return live, parents

    def _search_is_over(self) -> bool:
        """K have finished and the best of them scores at least as well as every live one would if it ended now."""
        return len(self.finished) >= self.beam_size and max(map(self.score, self.finished)) >= max(
            map(self.score, self.live), default=-np.inf)

    def answer(self, source_length: int) -> BatchHypothesis:
        pool = self.finished + (self.live if len(self.finished) < self.beam_size else [])
        best = max(pool, key=self.score)
        attention = np.stack(best.attention)[:, :source_length] if best.attention else None
        return BatchHypothesis(best.ids, attention, best.log_probability,
                               capped=not best.ids or best.ids[-1] != EOS_ID)


@torch.no_grad()
def beam_batch(model: EncoderDecoder, source: Tensor, lengths: Tensor, max_lengths: list[int], beam_size: int = 5,
               length_penalty: float = 1.0, coverage_penalty: float = 0.0,
               no_repeat_ngram: int = 0) -> list[BatchHypothesis]:
    """Beam search over a batch. source: B×S, lengths: B, max_lengths: each sentence's output cap
    → one :class:`BatchHypothesis` per sentence. ``coverage_penalty``: β of GNMT's cp (0 = off);
    ``no_repeat_ngram``: n of the n-gram repetition constraint (0 = off)."""
    encoded: Encoded = model.encode(source, lengths)
    ranking = _Ranking(length_penalty, coverage_penalty)
    sentences = [_Sentence(beam_size, ranking, int(length), no_repeat_ngram) for length in lengths.tolist()]
    owners = list(range(source.size(0)))  # the sentence of each batch row
    state = encoded.initial_state
    expanded, expanded_owners = encoded, None  # the encoder output, one row per live row (kept while the rows' owners stay)
    for step in range(max(max_lengths)):
        if owners != expanded_owners:
            expanded, expanded_owners = _expand(encoded, torch.tensor(owners, device=source.device)), owners
        logp, state, weights, _ = _step_logp(model, _last_tokens(sentences, source.device), state, expanded)  # R×V
        weights_np = weights.cpu().numpy() if weights is not None else None
        next_rows, owners = _advance(sentences, logp, weights_np, step + 1, max_lengths)
        if not next_rows:
            break
        state = tuple(t.index_select(0, torch.tensor(next_rows, device=source.device)) for t in state)
    return [sentence.answer(int(length)) for sentence, length in zip(sentences, lengths.tolist(), strict=True)]


def _last_tokens(sentences: list[_Sentence], device: torch.device) -> Tensor:
    """R: the last token of every live row of the sentences not done (BOS for an empty hypothesis)."""
    return torch.tensor([row.ids[-1] if row.ids else BOS_ID for sentence in _active(sentences)
                         for row in sentence.live], device=device)


def _advance(sentences: list[_Sentence], logp: Tensor, weights: np.ndarray | None, produced: int,
             max_lengths: list[int]) -> tuple[list[int], list[int]]:
    """logp: R×V and weights: R×S (or None) of the live rows of the sentences not done, in order; ``produced``:
    the tokens each hypothesis has after this step → the batch row each new live row continues from,
    and its sentence. A sentence that has reached its length cap ends with what it has."""
    next_rows: list[int] = []
    next_owners: list[int] = []
    first = 0
    for index, sentence in _indexed_active(sentences):
        count = len(sentence.live)
        parents = sentence.advance(logp[first : first + count], weights, first)
        if produced >= max_lengths[index]:  # its length cap: it ends with what it has
            sentence.done, parents = True, []
        next_rows += parents
        next_owners += [index] * len(parents)
        first += count
    return next_rows, next_owners


def _active(sentences: list[_Sentence]) -> list[_Sentence]:
    return [s for s in sentences if not s.done]


def _indexed_active(sentences: list[_Sentence]) -> list[tuple[int, _Sentence]]:
    return [(i, s) for i, s in enumerate(sentences) if not s.done]
