"""From text to translation: normalization, caps, tokenization, search, detokenization.

:class:`Translator` is what the app and the command line hold: a model with its two tokenizers.
:meth:`Translator.steps` is a generator (one :class:`DecodeStep` per output token, returning the
finished :class:`Translation`); :meth:`Translator.translate_many` decodes a corpus in batches.

Input caps (docs/user-guide.md, "Input caps and odd input"): at most ``MAX_INPUT_CHARS`` characters and
``MAX_SOURCE_TOKENS`` sub-word tokens are translated; longer input is truncated with a notice.
Empty input (nothing left after normalization: whitespace, zero-width characters) gives a
:class:`Translation` with ``empty=True`` instead of reaching the RNN. Input in another language
than the model's source (engine.text.language_check) is decoded, and its translation says so
(``language_check``; the ``warning`` of ``translate --json``).
"""

from __future__ import annotations

from collections.abc import Generator, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import torch

from engine.decoding.beam_batch import beam_batch
from engine.decoding.beam_search import beam
from engine.decoding.decode_memo import GreedyMemo
from engine.decoding.search import NO_STEERING, DecodeStep, Hypothesis, Steering, greedy, greedy_batch
from engine.networks.model import Encoded, EncoderDecoder
from engine.settings.config import MAX_INPUT_CHARS, MAX_SOURCE_TOKENS, DecodeConfig
from engine.settings.scorer_table import attends
from engine.text.language_check import LanguageCheck, check_language
from engine.text.normalization import normalize
from engine.text.tokenizer import EOS_ID, Tokenizer
from engine.text.training_words import NOT_RECORDED, TrainingWords

EMPTY_NOTICE = "empty input: nothing to translate"


@dataclass(frozen=True)
class PreparedSource:
    text: str  # as given
    normalized: str  # after NFKC, whitespace, zero-width removal, Traditional→Simplified, caps
    ids: tuple[int, ...]
    tokens: tuple[str, ...]  # SentencePiece pieces, one per encoder position
    truncated: bool
    notice: str  # why the input was changed ("" when it was not)

    @property
    def empty(self) -> bool:
        return not self.ids


@dataclass(frozen=True)
class Translation:
    """A finished translation with its attention matrix.

    ``tokens`` are the output pieces, ending with ``</s>`` when the model emitted it; ``attention``
    has one row per entry of ``tokens`` (the EOS row included) and one column per source token.
    """

    source: str
    source_tokens: tuple[str, ...]
    tokens: tuple[str, ...]
    text: str
    attention: np.ndarray | None  # len(tokens)×len(source_tokens); None for the 'none' scorer
    scores: np.ndarray | None  # raw e_ij, same shape
    score: float  # log-probability of the output
    empty: bool = False
    truncated: bool = False
    notice: str = ""
    steps: tuple[DecodeStep, ...] = field(default=(), repr=False)
    language_check: LanguageCheck | None = None  # whether the input is in the model's source language
    encoder_attention: np.ndarray | None = field(default=None, repr=False)  # L×H×S×S: a Transformer encoder's

    @property
    def head_attention(self) -> np.ndarray | None:
        """len(tokens)×H×len(source_tokens): each head's α (``attention`` is their mean), for a
        mechanism of several heads decoded step by step; None otherwise."""
        rows = [step.head_attention for step in self.steps]
        if not rows or len(rows) != len(self.tokens) or any(row is None for row in rows):
            return None
        return np.stack(rows)  # type: ignore[arg-type]

    def to_json(self) -> dict[str, Any]:
        """The command line's ``translate --json`` object (docs/command-line.md, "Commands"); a multi-head
        model's adds ``head_attention`` (one matrix per output token: heads × source tokens)."""
        heads = self.head_attention
        return {
            "source": self.source,
            "source_tokens": list(self.source_tokens),
            "tokens": list(self.tokens),
            "text": self.text,
            "attention": None if self.attention is None else np.round(self.attention.astype(np.float64), 6).tolist(),
            "score": round(self.score, 6),
            "empty": self.empty,
            "truncated": self.truncated,
            "notice": self.notice,
            "forced_steps": [step.index for step in self.steps if step.forced],
            "overridden_steps": [step.index for step in self.steps if step.overridden],
            "warning": self.warning(),
        } | ({} if heads is None else {"head_attention": np.round(heads.astype(np.float64), 6).tolist()})

    def warning(self) -> dict[str, Any] | None:
        """What is wrong with the input's language (engine.text.language_check), or None."""
        return self.language_check.to_json() if self.language_check is not None else None


class Translator:
    """A model and its tokenizers, ready to translate (the model is put in eval mode)."""

    def __init__(
        self,
        model: EncoderDecoder,
        source_tokenizer: Tokenizer,
        target_tokenizer: Tokenizer,
        source_language: str,
        simplify_chinese: bool = True,
        training_words: TrainingWords | None = None,
        training_words_note: str = NOT_RECORDED,
    ) -> None:
        self.model = model.eval()
        self.source_tokenizer = source_tokenizer
        self.target_tokenizer = target_tokenizer
        self.source_language = source_language
        self.simplify_chinese = simplify_chinese
        self._memo: GreedyMemo | None = None  # the last finished greedy decode (engine.decoding.decode_memo)
        self.training_words = training_words  # the words of its training sources (engine.text.training_words)
        self.training_words_note = "" if training_words is not None else training_words_note  # why none

    @property
    def device(self) -> torch.device:
        """Where the model's weights are (inputs are created there)."""
        return next(self.model.parameters()).device

    def to(self, device: torch.device) -> Translator:
        """Move the model to ``device`` (engine.networks.device.resolve_device); returns self."""
        self.model.to(device)
        self._memo = None
        return self

    @property
    def uses_attention(self) -> bool:
        return attends(self.model.config.scorer)

    def prepare(self, text: str) -> PreparedSource:
        """Normalize, cap and tokenize one input sentence."""
        notices = []
        truncated = False
        if len(text) > MAX_INPUT_CHARS:
            notices.append(f"input truncated to its first {MAX_INPUT_CHARS:,} of {len(text):,} characters")
            text_in, truncated = text[:MAX_INPUT_CHARS], True
        else:
            text_in = text
        normalized = normalize(text_in, self.source_language, self.simplify_chinese)
        ids = self.source_tokenizer.encode(normalized) if normalized else []
        if len(ids) > MAX_SOURCE_TOKENS:
            notices.append(f"input truncated to its first {MAX_SOURCE_TOKENS:,} of {len(ids):,} sub-word tokens")
            ids, truncated = ids[:MAX_SOURCE_TOKENS], True
        if not ids:
            notices = [EMPTY_NOTICE]
        return PreparedSource(
            text, normalized, tuple(ids), tuple(self.source_tokenizer.pieces(ids)), truncated, "; ".join(notices)
        )

    def unseen_words(self, text: str | PreparedSource) -> list[str]:
        """The input's words that its training sources never had, as the model reads the input
        (engine.text.training_words); [] when there is no usable record (``training_words_note`` says why)."""
        if self.training_words is None:
            return []
        return self.training_words.unseen_words(self._normalized(text))

    def unseen_characters(self, text: str | PreparedSource) -> list[str]:
        """The input's Chinese characters that its training sources never had ([] without a record)."""
        if self.training_words is None:
            return []
        return self.training_words.unseen_characters(self._normalized(text))

    def _normalized(self, text: str | PreparedSource) -> str:
        return text.normalized if isinstance(text, PreparedSource) else self.prepare(text).normalized

    def check_language(self, prepared: PreparedSource) -> LanguageCheck:
        """Whether ``prepared`` is in the model's source language (engine.text.language_check)."""
        return check_language(prepared.normalized, prepared.tokens, self.source_language)

    def steps(
        self, text: str | PreparedSource, config: DecodeConfig = DecodeConfig(), steering: Steering = NO_STEERING,
    ) -> Generator[DecodeStep, None, Translation]:
        """Decode step by step: yields one :class:`DecodeStep` per output token; ``steering`` forces
        a prefix and/or sets attention by hand at chosen steps (engine.decoding.whatif builds it)."""
        prepared = text if isinstance(text, PreparedSource) else self.prepare(text)
        if prepared.empty:
            return self._empty(prepared)
        memo = self._memo  # read once: another thread may replace it meanwhile
        encoded = self._encoded(prepared, memo)
        if memo is not None and not memo.matches(prepared.ids, config.top_k):
            memo = None
        if config.no_repeat_ngram:  # its steps' alternatives were not constrained (the memo is kept unconstrained)
            memo = None
        max_length = config.max_output_length(len(prepared.ids))
        namer = self.target_tokenizer.pieces
        max_length = max(max_length, len(steering.prefix) + 1)  # a long correction still gets its next token
        if config.beam_size == 1:
            hypothesis = yield from greedy(self.model, encoded, max_length, namer, config.top_k, steering, memo,
                                           config.no_repeat_ngram)
            if not config.no_repeat_ngram:
                self._memo = GreedyMemo(prepared.ids, config.top_k, encoded, hypothesis.steps, hypothesis.states,
                                        dict(steering.overrides))
        else:
            hypothesis = yield from beam(
                self.model, encoded, max_length, namer, config.beam_size, config.length_penalty, config.top_k,
                steering, config.coverage_penalty, config.no_repeat_ngram,
            )
        return self._finish(prepared, hypothesis, encoded)

    def encoded(self, prepared: PreparedSource) -> Encoded:
        """The encoder's output for ``prepared`` (not empty): the last greedy decode's when that was
        the same sentence — what-if decoding and forced decoding ask about the sentence just decoded
        — else computed now. Reused values are the very ones the same operations give."""
        return self._encoded(prepared, self._memo)

    def _encoded(self, prepared: PreparedSource, memo: GreedyMemo | None) -> Encoded:
        if memo is not None and memo.source_ids == prepared.ids:
            return memo.encoded
        with torch.no_grad():
            source = torch.tensor([prepared.ids], device=self.device)
            return self.model.encode(source, torch.tensor([len(prepared.ids)]))

    def translate(self, text: str | PreparedSource, config: DecodeConfig = DecodeConfig(),
                  steering: Steering = NO_STEERING) -> Translation:
        """Decode to the end and return the :class:`Translation`."""
        generator = self.steps(text, config, steering)
        while True:
            try:
                next(generator)
            except StopIteration as stop:
                return stop.value

    def translate_many(
        self, texts: Sequence[str], config: DecodeConfig = DecodeConfig(), batch_size: int = 64
    ) -> list[Translation]:
        """Translate a list of sentences with batched search (greedy, or beam: engine.decoding.beam_batch)."""
        prepared = [self.prepare(text) for text in texts]
        if config.beam_size > 1:
            return self._beam_many(prepared, config, max(1, batch_size // config.beam_size))
        results: list[Translation | None] = [None] * len(prepared)
        for chunk, source, lengths in _batches(prepared, batch_size, self.device):
            max_length = config.max_output_length(int(lengths.max()))
            ids, attention = greedy_batch(self.model, source, lengths, max_length, config.no_repeat_ngram)
            for row, i in enumerate(chunk):
                capped = len(ids[row]) >= max_length
                token_ids = ids[row] + ([] if capped else [EOS_ID])
                results[i] = Translation(
                    source=prepared[i].text,
                    source_tokens=prepared[i].tokens,
                    tokens=tuple(self.target_tokenizer.pieces(token_ids)),
                    text=self.target_tokenizer.decode(ids[row]),
                    attention=attention[row],
                    scores=None,
                    score=float("nan"),
                    truncated=prepared[i].truncated,
                    notice=prepared[i].notice,
                    language_check=self.check_language(prepared[i]),
                )
        return [r if r is not None else self._empty(p) for r, p in zip(results, prepared, strict=False)]

    def _beam_many(self, prepared: list[PreparedSource], config: DecodeConfig, batch_size: int) -> list[Translation]:
        results: list[Translation | None] = [None] * len(prepared)
        for chunk, source, lengths in _batches(prepared, batch_size, self.device):
            caps = [config.max_output_length(len(prepared[i].ids)) for i in chunk]
            answers = beam_batch(self.model, source, lengths, caps, config.beam_size, config.length_penalty,
                                 config.coverage_penalty, config.no_repeat_ngram)
            for answer, i in zip(answers, chunk, strict=True):
                ids = [t for t in answer.token_ids if t != EOS_ID]
                results[i] = Translation(
                    source=prepared[i].text, source_tokens=prepared[i].tokens,
                    tokens=tuple(self.target_tokenizer.pieces(answer.token_ids)),
                    text=self.target_tokenizer.decode(ids), attention=answer.attention, scores=None,
                    score=answer.log_probability, truncated=prepared[i].truncated, notice=prepared[i].notice,
                    language_check=self.check_language(prepared[i]),
                )
        return [r if r is not None else self._empty(p) for r, p in zip(results, prepared, strict=False)]

    def _empty(self, prepared: PreparedSource) -> Translation:
        return Translation(prepared.text, (), (), "", None, None, 0.0, empty=True, notice=prepared.notice)

    def _finish(self, prepared: PreparedSource, hypothesis: Hypothesis, encoded: Encoded | None = None) -> Translation:
        own = encoded.self_attention if encoded is not None else None  # B×L×H×S×S (a Transformer's), B = 1
        return Translation(
            source=prepared.text,
            source_tokens=prepared.tokens,
            tokens=tuple(self.target_tokenizer.pieces(hypothesis.token_ids)),
            text=self.target_tokenizer.decode(hypothesis.token_ids),
            attention=hypothesis.attention,
            scores=hypothesis.scores,
            score=hypothesis.log_probability,
            truncated=prepared.truncated,
            notice=prepared.notice,
            steps=hypothesis.steps,
            language_check=self.check_language(prepared),
            encoder_attention=own[0].cpu().numpy().copy() if own is not None else None,
        )


def _batches(prepared: Sequence[PreparedSource], batch_size: int, device: torch.device):
    """(indices, source B×S padded with PAD, lengths B) of the non-empty inputs, sorted by length so
    that each batch wastes little on padding."""
    order = sorted((i for i, p in enumerate(prepared) if not p.empty), key=lambda i: len(prepared[i].ids))
    for start in range(0, len(order), batch_size):
        chunk = order[start : start + batch_size]
        lengths = torch.tensor([len(prepared[i].ids) for i in chunk])
        source = torch.zeros(len(chunk), int(lengths.max()), dtype=torch.long)
        for row, i in enumerate(chunk):
            source[row, : lengths[row]] = torch.tensor(prepared[i].ids)
        yield chunk, source.to(device), lengths
