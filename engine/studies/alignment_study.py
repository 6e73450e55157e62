"""Is attention alignment? One model's attention scored against a statistical aligner's word links.

Bahdanau et al. call α an alignment; Koehn & Knowles (2017) and Ghader & Monz (2017) measured how
far it is one. This study does the same for one model on the held-out test split:

1. each test pair's **reference** is fed to the model (forced decoding, batched:
   ``engine.studies.forced_attention``), so that every scorer attends over the same source and target words;
2. the T×S attention between pieces becomes Wt×Ws attention between words
   (``engine.studies.align_words.word_attention``: a source word's α is the sum over its pieces, an output
   word's row the mean over its pieces; the end-of-sentence row is left out);
3. two link sets are read from it — **argmax**: each output word linked to its most-attended source
   word (to all of them on a tie, as when one piece spells several words), and **threshold**: every
   (output word, source word) with α ≥ :data:`THRESHOLD`;
4. each is compared with the aligner's links for the pair (``engine.studies.alignment_store``), taken as
   *sure* links, summed over the test split:

       precision = |A∩S| / |A|     recall = |A∩S| / |S|     AER = 1 − 2|A∩S| / (|A| + |S|)

   (Och & Ney 2003's alignment error rate with sure links only, which is 1 − F1: 0 when the attention
   links are exactly the aligner's, 1 when they share none).

The aligner is a model too, and wrong at times: a low AER says attention agrees with what a
word aligner finds, not that it is right. The study is stored in the model folder's config.json
(``metrics.alignment``), beside the length study, so the app shows it without decoding anything; the
figures, the stored study and its checked reader are ``engine.studies.alignment_scores`` (no PyTorch: the
app reads them before the engine is loaded).

Shapes: T output pieces (EOS included), S source pieces; Wt, Ws output and source words.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from engine.corpus.corpus_read import Pair
from engine.decoding.forced import ForcedTargetError, target_ids
from engine.decoding.translator import Translator
from engine.models.config_file import read_config, update_config
from engine.settings.errors import EngineError
from engine.studies.align_words import piece_word_map, split_words, word_attention
from engine.studies.alignment_scores import (
    STUDY_KEY,
    THRESHOLD,
    AlignmentStudy,
    LinkScores,
    argmax_links,
    score_links,
    stored_alignment_study,
    threshold_links,
)
from engine.studies.alignment_store import CorpusAlignment
from engine.studies.forced_attention import forced_attention
from engine.studies.symmetrize import Link
from engine.text.normalization import normalize


class AlignmentStudyError(EngineError):
    """The study cannot be made (no attention, no aligned pair); says why."""


@dataclass(frozen=True)
class _Prepared:
    """One test pair ready to be forced: its pieces and words on both sides, and the aligner's links."""

    source_ids: tuple[int, ...]
    target_ids: tuple[int, ...]
    source_map: np.ndarray  # S×Ws
    target_map: np.ndarray  # T×Wt
    sure: frozenset[Link]


def _prepare(translator: Translator, pair: Pair, sure: frozenset[Link], target_language: str) -> _Prepared | None:
    """The pair's pieces and piece→word maps; None when the source was cut or the target cannot be forced."""
    prepared = translator.prepare(pair.source)
    if prepared.truncated or prepared.empty:
        return None
    try:
        ids, _notice = target_ids(translator, pair.target, target_language)
    except ForcedTargetError:
        return None
    target_text = normalize(pair.target, target_language, translator.simplify_chinese)
    source_map = piece_word_map(prepared.tokens, prepared.normalized,
                                split_words(prepared.normalized, translator.source_language))
    target_map = piece_word_map(translator.target_tokenizer.pieces(ids), target_text,
                                split_words(target_text, target_language))
    return _Prepared(prepared.ids, tuple(ids), source_map, target_map, sure)


def run_alignment_study(translator: Translator, pairs: Sequence[Pair], alignment: CorpusAlignment,
                        source_language: str, target_language: str, threshold: float = THRESHOLD) -> AlignmentStudy:
    """Score ``translator``'s attention on ``pairs`` (the test split, normalized) against
    ``alignment``. Raises AlignmentStudyError for a model without attention or when no pair is aligned."""
    if not translator.uses_attention:
        raise AlignmentStudyError("the model has no attention (fixed context C): there is nothing to align")
    started = time.monotonic()
    ready: list[_Prepared] = []
    for pair in pairs:
        sure = alignment.links(pair.source, pair.target, source_language, target_language)
        prepared = None if sure is None else _prepare(translator, pair, sure, target_language)
        if prepared is not None:
            ready.append(prepared)
    matrices = forced_attention(translator, [p.source_ids for p in ready], [p.target_ids for p in ready])
    argmax, thresholded = LinkScores(0, 0, 0), LinkScores(0, 0, 0)
    for prepared, attention in zip(ready, matrices, strict=True):
        assert attention is not None  # the model attends (checked above): forced_attention gave every pair its map
        words = word_attention(attention, prepared.source_map, prepared.target_map)  # Wt×Ws
        argmax += score_links(argmax_links(words), prepared.sure)
        thresholded += score_links(threshold_links(words, threshold), prepared.sure)
    scored, skipped = len(ready), len(pairs) - len(ready)
    if not scored:
        raise AlignmentStudyError(f"none of the {len(pairs)} pairs has aligner links ({alignment.description})")
    return AlignmentStudy(scored, skipped, argmax, thresholded, threshold, alignment.description, alignment.digest,
                          time.monotonic() - started)


def record_alignment_study(folder: Path, study: AlignmentStudy) -> None:
    """Store ``study`` in the model folder's config.json (``metrics.alignment``); the weights and
    tokenizers are not touched, so the folder's hashes stay valid."""
    info = read_config(folder)
    info.setdefault("metrics", {})[STUDY_KEY] = study.to_json()
    update_config(folder, info)


def read_alignment_study(folder: Path) -> AlignmentStudy | None:
    """The study stored in the model folder ``folder`` (config.json only: no decoding)."""
    return stored_alignment_study(read_config(folder))
