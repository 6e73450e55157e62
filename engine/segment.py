"""Chinese word segmentation for the word view (engine/words.py): jieba over a trimmed word list.

Sub-word pieces of Chinese text carry no word-start marks inside a sentence (there are no spaces),
so the word view asks a segmenter where the words are. jieba (dictionary + HMM for unknown words)
is used with ``resources/segmenter/zh-words.txt``: the dictionary words that occur in the shipped
corpus plus jieba's 20,000 most frequent (scripts/build_zh_words.py). The full dictionary (349,046
words) takes 1–4 s to load in one call that holds the interpreter lock — the window would freeze
the first time Chinese is shown as words; the trimmed list loads in a fraction of that and
segments corpus-like text the same way (bench/bench_words.py measures both).

Without jieba installed the segmenter falls back to one word per character (what the pieces show
anyway) and says so in :func:`segmenter_name`. Pure Python: no Qt, no torch.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from pathlib import Path

WORDS_FILE = Path(__file__).resolve().parent.parent / "resources" / "segmenter" / "zh-words.txt"
CHARACTERS = "characters"  # the fallback segmenter's name: one word per character

_lock = threading.Lock()
_cut: Callable[[str], list[str]] | None = None
_name = ""


def _characters(text: str) -> list[str]:
    return list(text)


def _load() -> tuple[Callable[[str], list[str]], str]:
    """jieba over the trimmed word list (its full dictionary when the list is missing), else characters."""
    try:
        import jieba
    except ImportError:
        return _characters, CHARACTERS
    jieba.setLogLevel(logging.WARNING)  # it logs every dictionary load at INFO
    if WORDS_FILE.is_file():
        tokenizer = jieba.Tokenizer(dictionary=str(WORDS_FILE))
        name = f"jieba {jieba.__version__} ({WORDS_FILE.name})"
    else:
        tokenizer = jieba.Tokenizer()
        name = f"jieba {jieba.__version__} (full dictionary)"
    tokenizer.initialize()
    return (lambda text: tokenizer.lcut(text, HMM=True)), name


def _segmenter() -> Callable[[str], list[str]]:
    global _cut, _name
    if _cut is None:
        with _lock:
            if _cut is None:
                _cut, _name = _load()
    return _cut


def warm_up() -> str:
    """Load the segmenter now (e.g. on a helper thread at start-up); returns its name."""
    _segmenter()
    return _name


def is_ready() -> bool:
    """True once the segmenter is loaded: :func:`segment` will not wait for it."""
    return _cut is not None


def segmenter_name() -> str:
    """Which segmenter is in use, e.g. ``jieba 0.42.1 (zh-words.txt)`` or ``characters``."""
    return warm_up()


def segment(text: str) -> list[str]:
    """``text`` (a run of Chinese characters) cut into words; the words join back to ``text``."""
    if not text:
        return []
    words = _segmenter()(text)
    return words if "".join(words) == text else _characters(text)
