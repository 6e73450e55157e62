"""Text: normalization, SentencePiece tokenizers, words and their segmentation, the language check.

The room's public names, for the app: each is imported from the module that defines it only when first
asked for (importing the room loads nothing), so a window that never trains never loads the trainer.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine.lazy_facade import lazy_attributes

_PUBLIC = {
    "LanguageCheck": "engine.text.language_check",
    "MERGE_RULE": "engine.text.words",
    "Verdict": "engine.text.language_check",
    "WordSplit": "engine.text.words",
    "format_duration": "engine.text.readable",
    "format_tokens": "engine.text.readable",
    "is_han": "engine.text.words",
    "language_name": "engine.text.language_check",
    "merge_columns": "engine.text.words",
    "merge_rows": "engine.text.words",
    "merge_scores": "engine.text.words",
    "split_words": "engine.text.words",
    "unseen_piece_indices": "engine.text.training_words",
}
__all__ = [
    "LanguageCheck",
    "MERGE_RULE",
    "Verdict",
    "WordSplit",
    "format_duration",
    "format_tokens",
    "is_han",
    "language_name",
    "merge_columns",
    "merge_rows",
    "merge_scores",
    "split_words",
    "unseen_piece_indices",
]


__getattr__ = lazy_attributes(globals(), _PUBLIC)


if TYPE_CHECKING:
    from engine.text.language_check import LanguageCheck, Verdict, language_name
    from engine.text.readable import format_duration, format_tokens
    from engine.text.training_words import unseen_piece_indices
    from engine.text.words import MERGE_RULE, WordSplit, is_han, merge_columns, merge_rows, merge_scores, split_words
