"""SentencePiece sub-word tokenizers: training, loading, encoding, decoding, hashing.

One unigram model per language, trained in memory on the training split, with ``byte_fallback``
so that no input (emoji, Arabic, control characters) is ever unrepresentable: an unseen character
becomes byte pieces such as ``<0xF0>`` which the app shows as they are.
"""

from __future__ import annotations

import functools
import hashlib
import io
import os
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
import sentencepiece as spm

from engine.settings.errors import TokenizerError

PAD_ID, UNK_ID, BOS_ID, EOS_ID = 0, 1, 2, 3
BYTE_PIECES = 256  # the pieces <0x00>…<0xFF> of byte fallback
MIN_COVERAGE = 0.98  # the lowest character coverage SentencePiece accepts
SAMPLE_NBEST = 64  # subword regularization draws among this many best segmentations (Kudo 2018: l = 64)


@dataclass(frozen=True)
class TokenizerSettings:
    """What a SentencePiece model was trained with (recorded in the model's config.json)."""

    vocab_size: int = 4000  # pieces, specials and 256 byte pieces included
    model_type: str = "unigram"
    character_coverage: float = 1.0  # every character of the training text is a piece of its own
    byte_fallback: bool = True  # characters never seen in training (only those) fall back to byte pieces

    @staticmethod
    def for_language(language: str, vocab_size: int) -> TokenizerSettings:
        """Full character coverage in every language: with 0.9995 for Chinese, the rarest 0.05 % of the
        training characters (common ones such as 饺 and 贡 among them) were left to byte pieces, which
        the model reads as four unrelated tokens."""
        return TokenizerSettings(vocab_size=vocab_size, character_coverage=1.0)


class Tokenizer:
    """A loaded SentencePiece model with the ids the model expects (pad 0, unk 1, bos 2, eos 3)."""

    def __init__(self, model_bytes: bytes) -> None:
        processor = spm.SentencePieceProcessor()
        try:
            processor.LoadFromSerializedProto(model_bytes)
        except Exception as error:  # sentencepiece raises RuntimeError/OSError with C++ text
            raise TokenizerError(f"not a valid SentencePiece model ({error})") from None
        if (processor.pad_id(), processor.unk_id(), processor.bos_id(), processor.eos_id()) != (
            PAD_ID,
            UNK_ID,
            BOS_ID,
            EOS_ID,
        ):
            raise TokenizerError("SentencePiece model has unexpected special ids (pad, unk, bos, eos must be 0-3)")
        self._processor = processor
        self.model_bytes = model_bytes
        self.sha256 = hashlib.sha256(model_bytes).hexdigest()

    @property
    def vocab_size(self) -> int:
        return self._processor.get_piece_size()

    def encode(self, text: str, sample_alpha: float = 0.0, rng: np.random.Generator | None = None) -> list[int]:
        """Sub-word ids of ``text`` (no BOS/EOS added): the most likely segmentation, or with
        ``sample_alpha`` > 0 one drawn by ``rng`` (subword regularization: see :meth:`sample`)."""
        if sample_alpha > 0:
            return self.sample(text, sample_alpha, rng if rng is not None else np.random.default_rng())
        return self._processor.encode(text, out_type=int)

    def sample(self, text: str, alpha: float, rng: np.random.Generator) -> list[int]:
        """One segmentation of ``text`` drawn from its ``SAMPLE_NBEST`` most likely ones with
        probability ∝ P(segmentation)^α — Kudo 2018's l-best subword regularization (training only: a
        small α samples widely, α = 1 follows the model's own probabilities). The draw is ``rng``'s
        alone, so a seeded generator gives the same segmentations in every process: SentencePiece's
        own sampler does not repeat across processes even with its global seed set."""
        candidates = self._processor.nbest_encode_as_ids(text, nbest_size=SAMPLE_NBEST)
        if len(candidates) <= 1:
            return list(candidates[0]) if candidates else []
        log_p = alpha * np.array([self._piece_scores[ids].sum() for ids in candidates])  # α log P(x), up to a constant
        weights = np.exp(log_p - log_p.max())
        return list(candidates[int(rng.choice(len(candidates), p=weights / weights.sum()))])

    @functools.cached_property
    def _piece_scores(self) -> np.ndarray:
        """(V,) each piece's log-probability in the unigram model."""
        return np.array([self._processor.get_score(i) for i in range(self.vocab_size)])

    def encode_many(self, texts: list[str]) -> list[list[int]]:
        """Sub-word ids of each text (the most likely segmentation), on every CPU core."""
        return self._processor.encode(texts, out_type=int, num_threads=os.cpu_count() or 1)

    def pieces(self, ids: Iterable[int]) -> list[str]:
        """The piece string of each id, e.g. ``['▁I', '▁am', '<0xF0>']``."""
        return [self._processor.id_to_piece(int(i)) for i in ids]

    def piece_id(self, piece: str) -> int | None:
        """The id of the piece string ``piece`` (e.g. ``'▁book'``), or None when the vocabulary has no such piece."""
        index = self._processor.piece_to_id(piece)
        return index if self._processor.id_to_piece(index) == piece else None

    def decode(self, ids: Iterable[int]) -> str:
        """Detokenized text; special ids are dropped."""
        return self._processor.decode([int(i) for i in ids if int(i) > EOS_ID])


def coverage_that_fits(corpus: Iterable[str], settings: TokenizerSettings) -> float:
    """The character coverage asked of SentencePiece: ``settings.character_coverage``, unless full
    coverage would need more single-character pieces than the vocabulary has room for (a large
    Chinese corpus can hold more distinct characters than a 4,000-piece vocabulary): then the share
    of the text covered by as many of the most frequent characters as leave a tenth of the vocabulary
    to longer pieces, the rest falling back to byte pieces (SentencePiece's floor of 0.98 at least)."""
    if settings.character_coverage < 1.0:
        return settings.character_coverage
    counts = Counter(character for sentence in corpus for character in sentence if not character.isspace())
    reserved = 4 + (BYTE_PIECES if settings.byte_fallback else 0) + max(8, settings.vocab_size // 10)
    room = settings.vocab_size - reserved
    if len(counts) <= room or room <= 0:
        return 1.0  # everything fits (or the vocabulary cannot even hold the byte pieces: SentencePiece says so)
    frequencies = sorted(counts.values(), reverse=True)
    return max(MIN_COVERAGE, sum(frequencies[:room]) / sum(frequencies))


def train_tokenizer(sentences: Iterable[str], settings: TokenizerSettings) -> Tokenizer:
    """Train a SentencePiece model in memory on ``sentences`` and load it.

    The vocabulary is a soft limit: a corpus too small for ``vocab_size`` gets a smaller one
    (recorded in the model config) rather than an error, unless it is far too small to train.
    """
    corpus = [s for s in sentences if s.strip()]
    if len(corpus) < 10:
        raise TokenizerError(f"too little text to train a tokenizer ({len(corpus)} sentences; at least 10 needed)")
    buffer = io.BytesIO()
    try:
        spm.SentencePieceTrainer.train(
            sentence_iterator=iter(corpus),
            model_writer=buffer,
            vocab_size=settings.vocab_size,
            model_type=settings.model_type,
            character_coverage=coverage_that_fits(corpus, settings),
            byte_fallback=settings.byte_fallback,
            hard_vocab_limit=False,
            pad_id=PAD_ID,
            unk_id=UNK_ID,
            bos_id=BOS_ID,
            eos_id=EOS_ID,
            normalization_rule_name="identity",  # the corpus reader already applied NFKC
            input_sentence_size=2_000_000,
            shuffle_input_sentence=False,
            num_threads=2,
            minloglevel=2,
        )
    except RuntimeError as error:
        raise TokenizerError(f"SentencePiece training failed: {error}") from None
    return Tokenizer(buffer.getvalue())
