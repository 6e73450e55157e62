"""Corpora: reading, streaming, the token cache, the split, long examples, tasks and the shipped examples.

The room's public names, for the app: each is imported from the module that defines it only when first
asked for (importing the room loads nothing), so a window that never trains never loads the trainer.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine.lazy_facade import lazy_attributes

_PUBLIC = {
    "CorpusChoice": "engine.corpus.choice",
    "CorpusReport": "engine.corpus.corpus_read",
    "EXAMPLE_LENGTHS": "engine.corpus.examples",
    "Example": "engine.corpus.examples",
    "VocabularySizes": "engine.corpus.choice",
    "load_examples": "engine.corpus.examples",
    "preview": "engine.corpus.corpus_read",
    "read_tsv": "engine.corpus.corpus_read",
    "split_pairs": "engine.corpus.data",
}
__all__ = [
    "CorpusChoice",
    "CorpusReport",
    "EXAMPLE_LENGTHS",
    "Example",
    "VocabularySizes",
    "load_examples",
    "preview",
    "read_tsv",
    "split_pairs",
]


__getattr__ = lazy_attributes(globals(), _PUBLIC)


if TYPE_CHECKING:
    from engine.corpus.choice import CorpusChoice, VocabularySizes
    from engine.corpus.corpus_read import CorpusReport, preview, read_tsv
    from engine.corpus.data import split_pairs
    from engine.corpus.examples import EXAMPLE_LENGTHS, Example, load_examples
