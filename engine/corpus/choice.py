"""What a run trains on and with which vocabularies: :class:`CorpusChoice` and :class:`VocabularySizes`,
plain values (no PyTorch), each setting described once with engine.settings.settings_meta.

They are part of a run's request (engine.records.runs.RunSpec) and of its preparation
(engine.training.jobs.prepare_job); the ``train`` command's flags take their help from here.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from engine.corpus.corpus_stream import DEFAULT_TOKENIZER_SAMPLE
from engine.corpus.data import SPLIT_RULES
from engine.corpus.tasks import TASKS as TASK_BUILDERS
from engine.corpus.tasks import dates
from engine.settings.errors import ConfigError
from engine.settings.settings_meta import Row, check_settings, setting

TASKS = tuple(TASK_BUILDERS)  # the built-in tasks' names, from their one registry (engine.corpus.tasks)
DEFAULT_VOCAB = {"zh": 4000, "en": 4000, dates.SOURCE_LANGUAGE: 500, dates.TARGET_LANGUAGE: 300}
LANGUAGE_CHOICES = ("zh", "en")  # the languages of a corpus file
MAX_VOCABULARY = 1_000_000
MIN_VOCABULARY = 8  # below this SentencePiece cannot hold its own special pieces


def _vocabulary_row(tip: str) -> Row:
    """The Train form's spin box of a vocabulary size (in the shared row "Vocab src / tgt"): 0 shows as "default"."""
    return Row(tip=tip, step=500, special="default", low=0, high=64_000)


@dataclass(frozen=True)
class CorpusChoice:
    """Either a TSV corpus with a direction, or a built-in task."""

    corpus: Path | None = setting(None, help="TSV file: English<TAB>Chinese[<TAB>attribution]")
    task: str | None = setting(None, help="built-in synthetic task instead of a corpus")
    source_language: str = setting("zh", help="source language (with --corpus)", flag="--src")
    target_language: str = setting("en", help="target language (with --corpus)", flag="--tgt")
    split_rule: str = setting(
        "strict", choices=SPLIT_RULES,
        help="strict (default): hold out valid and test, and drop training pairs sharing a source with them; "
        "peer: train on every non-test pair, as the Joey NMT peer figures did")
    token_cache: bool = setting(
        False, help="big corpora: read the corpus in one streaming pass, train the tokenizers on a sample, and "
        "encode the training pairs once into an on-disk token cache (in the data folder) that later runs on the "
        "same corpus reuse; training reads ids from it, never the text")
    tokenizer_sample: int = setting(
        DEFAULT_TOKENIZER_SAMPLE, low=1_000, high=100_000_000, unit="pairs",
        help=f"with --token-cache: training pairs the tokenizers learn from (default {DEFAULT_TOKENIZER_SAMPLE:,}, "
        "a seeded reservoir sample)")

    def __post_init__(self) -> None:
        check_settings(self)
        if self.token_cache and self.corpus is None:
            raise ConfigError("the token cache is for corpus files; a built-in task is generated, not read")
        if (self.corpus is None) == (self.task is None):
            raise ConfigError("choose exactly one of a corpus file or a built-in task")
        if self.task is not None and self.task not in TASKS:
            raise ConfigError(f"unknown task {self.task!r}; valid: {', '.join(TASKS)}")

    @staticmethod
    def dates_task() -> CorpusChoice:
        return CorpusChoice(task="dates", source_language=dates.SOURCE_LANGUAGE,
                            target_language=dates.TARGET_LANGUAGE)


@dataclass(frozen=True)
class VocabularySizes:
    """SentencePiece vocabulary sizes asked for; 0 takes the engine's size for the language
    (``DEFAULT_VOCAB``). A small corpus may still shrink them (engine.text.tokenizer)."""

    source: int = setting(0, low=0, high=MAX_VOCABULARY, flag="--src-vocab", help="source SentencePiece vocabulary size",
                          row=_vocabulary_row("Source SentencePiece vocabulary; 'default' uses the engine's size "
                                              "for the language (shrinks by itself on small corpora)"))
    target: int = setting(0, low=0, high=MAX_VOCABULARY, flag="--tgt-vocab", help="target SentencePiece vocabulary size",
                          row=_vocabulary_row("Target SentencePiece vocabulary; 'default' uses the engine's size "
                                              "for the language"))

    def __post_init__(self) -> None:
        for side in ("source", "target"):
            value = getattr(self, side)
            if not (value == 0 or MIN_VOCABULARY <= value <= MAX_VOCABULARY):
                raise ConfigError(f"{side} vocabulary must be 0 (the language's default) or between "
                                  f"{MIN_VOCABULARY} and {MAX_VOCABULARY}; got {value!r}")

    def resolved(self, choice: CorpusChoice) -> tuple[int, int]:
        """The source and target sizes actually asked of SentencePiece."""
        return (self.source or DEFAULT_VOCAB.get(choice.source_language, 4000),
                self.target or DEFAULT_VOCAB.get(choice.target_language, 4000))
