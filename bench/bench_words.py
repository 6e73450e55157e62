"""The word view's cost and the Chinese segmenter it relies on (engine/text/words.py, engine/text/segment.py).

    .venv/bin/python bench/bench_words.py [--sentences 2000] [--full]

1. **The merge per decoding step** (goal ≤ 1 ms): what the app does when a step arrives in the word
   view — split the output so far into words (the source's split is kept for the run) and merge the
   attention rows so far over a 200-piece source — replayed for outputs of 100 steps in English and
   in Chinese (the Chinese output segmented by jieba at every step).
2. **The segmenter**: loading (the trimmed word list; ``--full`` also times jieba's whole dictionary,
   1–4 s in one call holding the interpreter lock), speed per sentence against one word per
   character, and agreement: word-boundary precision / recall / F1 of the trimmed list and of
   characters, taking jieba with its full dictionary as the reference, on Chinese sentences of the
   shipped corpus (no hand-segmented gold standard ships with the project, so this measures what
   the trimmed list costs against full jieba, and how far characters are from words).
3. **What the word view merges**: over the corpus sample cut by the shipped zh tokenizer, how many
   pieces there are per word, and how many pieces a word spans at most.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

from engine.text import segment  # noqa: E402
from engine.text.words import merge_attention, split_words  # noqa: E402

ZH_PIECES = ("▁汤姆", "昨天", "晚上", "没有", "睡", "好", "。", "他", "今天早上", "起", "得很", "晚", "<0xEF>", "<0xBC>",
             "<0x8C>", "所以", "上班", "迟", "到了", "。", "他的", "老板", "很", "生气", "。")
EN_PIECES = ("▁Tom", "▁did", "n", "'", "t", "▁sleep", "▁well", "▁last", "▁night", ".", "▁He", "▁got", "▁up", "▁late",
             "▁this", "▁morning", ",", "▁so", "▁he", "▁was", "▁late", "▁for", "▁work", ".", "▁Al", "though")


def describe(values_ms: list[float]) -> str:
    """Median, 95th percentile and maximum of ``values_ms``, in words."""
    ordered = sorted(values_ms)
    p95 = ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]
    return f"median {statistics.median(ordered):.3f} ms, p95 {p95:.3f} ms, max {ordered[-1]:.3f} ms (n={len(ordered)})"


def cycle(pieces: tuple[str, ...], count: int) -> list[str]:
    """``count`` items taken from ``pieces`` in turn."""
    return [pieces[k % len(pieces)] for k in range(count)]


def bench_merge(source: list[str], target: list[str], repeat: int) -> list[float]:
    """Per step: the output's split and the merged matrix, the source's split made once per run."""
    rng = np.random.default_rng(0)
    logits = rng.normal(0, 2, (len(target), len(source)))
    matrix = (np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)).astype(np.float32)
    times = []
    for _ in range(repeat):
        source_split = split_words(source)
        for step in range(1, len(target) + 1):
            started = time.perf_counter()
            target_split = split_words(target[:step])
            merge_attention(matrix[:step], source_split, target_split)
            times.append((time.perf_counter() - started) * 1000)
    return times


def boundaries(words: list[str]) -> set[int]:
    """The character offsets where one word of ``words`` ends and the next begins."""
    positions, at = set(), 0
    for word in words[:-1]:
        at += len(word)
        positions.add(at)
    return positions


def agreement(cut, reference, sentences: list[str]) -> tuple[float, float, float]:
    """Precision, recall and F1 of ``cut``'s word boundaries against ``reference``'s over ``sentences``."""
    found = expected = right = 0
    for sentence in sentences:
        mine, theirs = boundaries(cut(sentence)), boundaries(reference(sentence))
        found, expected, right = found + len(mine), expected + len(theirs), right + len(mine & theirs)
    precision, recall = right / max(found, 1), right / max(expected, 1)
    return precision, recall, 2 * precision * recall / max(precision + recall, 1e-9)


def corpus_sentences(count: int) -> list[str]:
    """The first ``count`` Chinese sentences of the shipped corpus."""
    from engine.corpus import read_tsv
    from engine.files.paths import TATOEBA_CORPUS

    pairs, _ = read_tsv(TATOEBA_CORPUS, "zh", "en")
    sentences = ["".join(ch for ch in pair.source if "\u4e00" <= ch <= "\u9fff") for pair in pairs]
    sentences = [s for s in sentences if s]
    return random.Random(0).sample(sentences, min(count, len(sentences)))


def main() -> None:
    """Parse the command line and run the benchmark (what it measures: the module docstring)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sentences", type=int, default=2000, help="corpus sentences for the segmenter's figures")
    parser.add_argument("--full", action="store_true", help="also load jieba's whole dictionary (slow) and compare")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()

    started = time.perf_counter()
    name = segment.warm_up()
    print(f"segmenter: {name}; loaded in {(time.perf_counter() - started) * 1000:.0f} ms "
          "(a first load builds jieba's cache; later loads read it)")

    print("\n1. the word view's merge per decoding step, 200 source pieces (goal ≤ 1 ms)")
    for label, source, target in (("zh→en", cycle(ZH_PIECES, 200), cycle(EN_PIECES, 100)),
                                  ("en→zh", cycle(EN_PIECES, 200), cycle(ZH_PIECES, 100))):
        times = bench_merge(source, target, args.repeat)
        verdict = "met" if statistics.median(times) <= 1 else "MISSED"
        print(f"  {label}: 100 steps  {describe(times)}  ({verdict})")

    sentences = corpus_sentences(args.sentences)
    print(f"\n2. the segmenter on {len(sentences)} Chinese sentences of the corpus "
          f"(mean {statistics.mean(len(s) for s in sentences):.1f} characters)")
    trimmed = segment.segment
    for label, cut in (("jieba, trimmed list", trimmed), ("characters", list)):
        started = time.perf_counter()
        for sentence in sentences:
            cut(sentence)
        per = (time.perf_counter() - started) * 1e6 / len(sentences)
        print(f"  {label:22s} {per:7.1f} µs per sentence")
    if args.full:
        import jieba

        started = time.perf_counter()
        full = jieba.Tokenizer()
        full.initialize()
        print(f"  jieba, full dictionary: loaded in {(time.perf_counter() - started) * 1000:.0f} ms")
        reference = full.lcut
        for label, cut in (("jieba, trimmed list", trimmed), ("characters", list)):
            precision, recall, f1 = agreement(cut, reference, sentences)
            print(f"  boundaries of {label:20s} against full jieba: precision {precision:.3f}, recall {recall:.3f}, "
                  f"F1 {f1:.3f}")

    from engine.text.tokenizer import Tokenizer

    tokenizer = Tokenizer((ROOT / "resources" / "models" / "zh-en-additive" / "src.model").read_bytes())
    pieces = words = longest = 0
    for sentence in sentences:
        split = split_words(tokenizer.pieces(tokenizer.encode(sentence)))
        pieces, words = pieces + len(split.pieces), words + split.count
        longest = max(longest, int(split.sizes().max()) if split.count else 0)
    print(f"\n3. the shipped zh tokenizer's pieces as words: {pieces / max(words, 1):.2f} pieces per word "
          f"({pieces} pieces → {words} words), at most {longest} pieces in one word")


if __name__ == "__main__":
    main()
