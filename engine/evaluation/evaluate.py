"""Translation quality with sacrebleu: corpus BLEU and chrF, BLEU by source length, exact match.

All scores are sacrebleu's corpus scores on detokenized text, 0–100. BLEU on a Chinese target
uses sacrebleu's ``zh`` tokenizer, on anything else its default ``13a``.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sacrebleu.metrics import BLEU, CHRF

from engine.corpus.corpus_read import Pair
from engine.decoding.translator import Translation, Translator
from engine.settings.config import DecodeConfig

# Source-length buckets (in source sub-word tokens) for the "BLEU by length" table.
LENGTH_BUCKETS = ((1, 5), (6, 10), (11, 15), (16, 20), (21, 30), (31, 10_000))


@dataclass(frozen=True)
class Scores:
    bleu: float
    chrf: float
    signature: str  # BLEU signature, then chrF signature


@dataclass(frozen=True)
class Evaluation:
    scores: Scores
    count: int
    seconds: float
    exact_match: float  # share of outputs identical to the reference
    buckets: tuple[tuple[str, int, float], ...]  # (label, sentences, BLEU) per source-length bucket
    translations: tuple[Translation, ...]

    def to_json(self, include_exact_match: bool) -> dict[str, Any]:
        result: dict[str, Any] = {
            "bleu": round(self.scores.bleu, 2),
            "chrf": round(self.scores.chrf, 2),
            "signature": self.scores.signature,
            "n": self.count,
            "sentences_per_second": round(self.count / max(self.seconds, 1e-9), 1),
            "bleu_by_source_length": [
                {"bucket": label, "n": n, "bleu": round(bleu, 2)} for label, n, bleu in self.buckets
            ],
        }
        if include_exact_match:
            result["exact_match"] = round(self.exact_match, 4)
        return result


def bucket_label(low: int, high: int) -> str:
    """A source-length bucket's label: '6-10', or '31+' for the open-ended last one."""
    return f"{low}-{high}" if high < 10_000 else f"{low}+"


def bleu_tokenizer(target_language: str) -> str:
    """sacrebleu's tokenizer for ``target_language``: "zh" for Chinese, else "13a"."""
    return "zh" if target_language == "zh" else "13a"


def corpus_scores(hypotheses: Sequence[str], references: Sequence[str], target_language: str) -> Scores:
    """sacrebleu corpus BLEU and chrF of detokenized hypotheses against one reference each."""
    bleu_metric = BLEU(tokenize=bleu_tokenizer(target_language))
    chrf_metric = CHRF()
    bleu = bleu_metric.corpus_score(list(hypotheses), [list(references)])
    chrf = chrf_metric.corpus_score(list(hypotheses), [list(references)])
    signature = f"BLEU {bleu_metric.get_signature()} / chrF {chrf_metric.get_signature()}"
    return Scores(bleu.score, chrf.score, signature)


def sentence_scores(hypothesis: str, reference: str, target_language: str) -> tuple[float, float]:
    """sacrebleu sentence BLEU (exponential smoothing, sacrebleu's default for sentences) and chrF of
    one output against one reference — noisy on one sentence, meant for side-by-side reading."""
    bleu = BLEU(tokenize=bleu_tokenizer(target_language), effective_order=True)
    return bleu.sentence_score(hypothesis, [reference]).score, CHRF().sentence_score(hypothesis, [reference]).score


def evaluate(
    translator: Translator, pairs: Sequence[Pair], target_language: str, config: DecodeConfig = DecodeConfig()
) -> Evaluation:
    """Translate the sources of ``pairs`` and score them against the targets."""
    started = time.perf_counter()
    translations = translator.translate_many([p.source for p in pairs], config)
    seconds = time.perf_counter() - started
    hypotheses = [t.text for t in translations]
    references = [p.target for p in pairs]
    scores = corpus_scores(hypotheses, references, target_language)
    exact = sum(h.strip() == r.strip() for h, r in zip(hypotheses, references, strict=False)) / max(len(pairs), 1)
    buckets = _length_buckets([len(t.source_tokens) for t in translations], hypotheses, references, target_language)
    return Evaluation(scores, len(pairs), seconds, exact, buckets, tuple(translations))


def _length_buckets(source_lengths: Sequence[int], hypotheses: Sequence[str], references: Sequence[str],
                    target_language: str) -> tuple[tuple[str, int, float], ...]:
    """(label, sentences, BLEU) of each of LENGTH_BUCKETS that holds a sentence (by its source sub-word tokens)."""
    buckets = []
    for low, high in LENGTH_BUCKETS:
        members = [i for i, length in enumerate(source_lengths) if low <= length <= high]
        if members:
            bucket = corpus_scores([hypotheses[i] for i in members], [references[i] for i in members], target_language)
            buckets.append((bucket_label(low, high), len(members), bucket.bleu))
    return tuple(buckets)
