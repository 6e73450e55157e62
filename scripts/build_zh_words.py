"""Build the Chinese word list the word view segments with (resources/segmenter/zh-words.txt).

jieba's own dictionary has 349,046 words; loading it (even from jieba's cache) is one
``marshal.load`` that holds the interpreter lock for 1–4 s — the window would freeze the first
time Chinese is shown as words. The word view needs far fewer: every dictionary word that occurs
in the shipped corpus's Chinese side, plus the most frequent words of the whole dictionary (for
sentences the corpus never saw; jieba's HMM still finds words outside the list). The list keeps
jieba's format (``word frequency tag``) and frequencies, so segmentation of corpus-like text is
unchanged (bench/bench_words.py measures the agreement with the full dictionary).

    .venv/bin/python scripts/build_zh_words.py [--top 20000]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from engine.corpus import read_tsv  # noqa: E402
from engine.files.paths import TATOEBA_CORPUS  # noqa: E402
from engine.text.segment import WORDS_FILE  # noqa: E402

MAX_WORD = 8  # characters: longer dictionary entries (idioms) are rare in the corpus


def corpus_substrings(sentences: list[str]) -> set[str]:
    """Every substring of up to MAX_WORD characters of the sentences."""
    found: set[str] = set()
    for sentence in sentences:
        for start in range(len(sentence)):
            for end in range(start + 1, min(len(sentence), start + MAX_WORD) + 1):
                found.add(sentence[start:end])
    return found


def main() -> None:
    """Parse the command line and run (what it does: the module docstring); the exit status."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--top", type=int, default=20000, help="the most frequent dictionary words kept in any case")
    args = parser.parse_args()
    import jieba

    rows = [line.split(" ") for line in (Path(jieba.__file__).parent / "dict.txt").read_text(encoding="utf-8").splitlines()]
    pairs, _report = read_tsv(TATOEBA_CORPUS, "zh", "en")
    in_corpus = corpus_substrings([pair.source for pair in pairs])
    frequent = {row[0] for row in sorted(rows, key=lambda row: -int(row[1]))[: args.top]}
    kept = [row for row in rows if row[0] in in_corpus or row[0] in frequent]
    WORDS_FILE.parent.mkdir(parents=True, exist_ok=True)
    WORDS_FILE.write_text("".join(" ".join(row) + "\n" for row in kept), encoding="utf-8")
    print(f"{len(kept)} of {len(rows)} words → {WORDS_FILE.relative_to(ROOT)} "
          f"({WORDS_FILE.stat().st_size / 1024:.0f} KiB)")


if __name__ == "__main__":
    main()
