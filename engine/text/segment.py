"""Chinese word segmentation for the word view (engine/text/words.py): jieba over a trimmed word list.

Sub-word pieces of Chinese text carry no word-start marks inside a sentence (there are no spaces),
so the word view asks a segmenter where the words are. jieba (dictionary + HMM for unknown words)
is used with ``resources/segmenter/zh-words.txt``: the dictionary words that occur in the shipped
corpus plus jieba's 20,000 most frequent (scripts/build_zh_words.py). The full dictionary (349,046
words) takes 1–4 s to load in one call that holds the interpreter lock — the window would freeze
the first time Chinese is shown as words; the trimmed list loads in a fraction of that and
segments corpus-like text the same way (bench/bench_words.py measures both).

Without jieba installed the segmenter falls back to one word per character (what the pieces show
anyway) and says so in :func:`segmenter_name`. So it does when the word list cannot be used (empty,
damaged, not a regular file, over its cap): once, with one notice (:func:`segmenter_notice`, and one
log warning) — never an error on every decode. Pure Python: no Qt, no torch.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from pathlib import Path

from engine.files.paths import SEGMENTER_WORDS
from engine.files.safe_open import read_capped
from engine.settings.errors import DataError

WORDS_FILE = SEGMENTER_WORDS  # engine/files/paths.py: the shipped files' folder, installed or in a checkout
CHARACTERS = "characters"  # the fallback segmenter's name: one word per character

MAX_WORDS_BYTES = 64 * 1024 * 1024  # the trimmed list is ~1 MB, jieba's full dictionary 5 MB
log = logging.getLogger(__name__)

_lock = threading.Lock()
_cut: Callable[[str], list[str]] | None = None
_name = ""
_notice = ""


def _characters(text: str) -> list[str]:
    return list(text)


def _load() -> tuple[Callable[[str], list[str]], str]:
    """jieba over the trimmed word list (its full dictionary when the list is missing), else characters."""
    try:
        import jieba
    except ImportError:
        return _characters, CHARACTERS
    jieba.setLogLevel(logging.WARNING)  # it logs every dictionary load at INFO
    if WORDS_FILE.exists() or WORDS_FILE.is_symlink():
        _check_word_list(WORDS_FILE)
        tokenizer = jieba.Tokenizer(dictionary=str(WORDS_FILE))
        name = f"jieba {jieba.__version__} ({WORDS_FILE.name})"
    else:
        tokenizer = jieba.Tokenizer()
        name = f"jieba {jieba.__version__} (full dictionary)"
    tokenizer.initialize()
    return (lambda text: tokenizer.lcut(text, HMM=True)), name


def _check_word_list(path: Path) -> None:
    """Refuse a word list jieba would hang on (a pipe, a device), choke on (empty) or read too much of."""
    if not read_capped(path, MAX_WORDS_BYTES, DataError).strip():
        raise DataError(f"{path} is empty")


def _load_or_characters() -> tuple[Callable[[str], list[str]], str, str]:
    """:func:`_load`, or characters and a one-line notice saying why when the word list cannot be used."""
    try:
        cut, name = _load()
        return cut, name, ""
    except Exception as error:  # jieba raises ValueError, OSError, UnicodeDecodeError … on a damaged list
        reason = " ".join(str(error).split())[:200] or type(error).__name__
        notice = f"the word list {WORDS_FILE.name} cannot be used ({reason}); Chinese words are shown as characters"
        log.warning("%s", notice)
        return _characters, f"{CHARACTERS} ({WORDS_FILE.name} unusable)", notice


def _segmenter() -> Callable[[str], list[str]]:
    global _cut, _name, _notice
    if _cut is None:
        with _lock:
            if _cut is None:
                _cut, _name, _notice = _load_or_characters()
    return _cut


def warm_up() -> str:
    """Load the segmenter now (e.g. on a helper thread at start-up); returns its name."""
    _segmenter()
    return _name


def is_ready() -> bool:
    """True once the segmenter is loaded: :func:`segment` will not wait for it."""
    return _cut is not None


def segmenter_notice() -> str:
    """Why Chinese words are shown as characters when the word list could not be used ("" otherwise)."""
    warm_up()
    return _notice


def segmenter_name() -> str:
    """Which segmenter is in use, e.g. ``jieba 0.42.1 (zh-words.txt)`` or ``characters``."""
    return warm_up()


def segment(text: str) -> list[str]:
    """``text`` (a run of Chinese characters) cut into words; the words join back to ``text``."""
    if not text:
        return []
    words = _segmenter()(text)
    return words if "".join(words) == text else _characters(text)
