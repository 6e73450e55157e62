"""What one training run is asked to do: the form's values as a plain, frozen record.

:class:`RunSettings` knows no Qt. It turns into the engine's :class:`CorpusChoice`, model options
and :class:`TrainConfig`, and names its run folder. A run's settings are never written by the app:
the engine records what a run was asked for in the first line of its metrics log, and
:meth:`RunSettings.describing` reads them back from there (to resume a run, or to show one started
elsewhere).
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from engine.config import ModelConfig, TrainConfig
from engine.jobs import DEFAULT_VOCAB, CorpusChoice
from engine.tasks import dates

LANGUAGE_LABELS = {"zh": "Chinese", "en": "English", dates.SOURCE_LANGUAGE: "dates", dates.TARGET_LANGUAGE: "ISO"}


@dataclass(frozen=True)
class SizeDefaults:
    """Sizes that suit a kind of corpus on a 2-core CPU (the form starts from these)."""

    embedding_size: int
    hidden_size: int
    epochs: int
    dropout: float
    learning_rate: float = TrainConfig.learning_rate
    tie_embeddings: bool = False
    temperature_warmup: float = TrainConfig.temperature_warmup
    attention_dropout: float = ModelConfig.attention_dropout
    concat_max_group: int = TrainConfig.concat_max_group
    concat_share: float = TrainConfig.concat_share
    concat_start: float = TrainConfig.concat_start


# The dates task learns in a few epochs with a small model; a real corpus needs more of both, and
# learns faster with the shipped models' recipe (Adam 0.002, output layer tied to the embedding, dot and
# bilinear scores warmed up over the whole run) and their sizes: embeddings 256 with dropout 0.3 beat
# 128 with 0.2 even on the one core a run in the app gets (zh→en, 25 minutes: 29.05 against 28.28
# beam-5 BLEU). A corpus run also learns long inputs with the build script's length curriculum: single
# pairs for the first half, then a fifth of each epoch's examples are 2–8 training pairs joined into one.
TASK_DEFAULTS = SizeDefaults(embedding_size=64, hidden_size=128, epochs=6, dropout=0.1)
CORPUS_DEFAULTS = SizeDefaults(embedding_size=256, hidden_size=256, epochs=TrainConfig.epochs, dropout=0.3,
                               learning_rate=0.002, tie_embeddings=True, temperature_warmup=1.0,
                               concat_max_group=8, concat_share=0.2, concat_start=0.5)


@dataclass(frozen=True)
class RunSettings:
    """Everything the form asks for one run; defaults are the engine's."""

    task: str | None = "dates"  # a built-in task, or None for a corpus file
    corpus_path: str | None = None  # the TSV file when ``task`` is None
    source_language: str = dates.SOURCE_LANGUAGE
    target_language: str = dates.TARGET_LANGUAGE
    scorer: str = "additive"
    cell: str = "gru"
    embedding_size: int = TASK_DEFAULTS.embedding_size
    hidden_size: int = TASK_DEFAULTS.hidden_size  # encoder per direction, decoder, attention layer
    dropout: float = TASK_DEFAULTS.dropout
    attention_dropout: float = TASK_DEFAULTS.attention_dropout  # on α in training; no-op for "none"
    tie_embeddings: bool = False  # output layer shares the target embedding
    source_vocab: int = 0  # SentencePiece vocabulary; 0 = the engine's default for the language
    target_vocab: int = 0
    epochs: int = TASK_DEFAULTS.epochs
    max_minutes: float = 0.0  # 0 = no time budget
    batch_size: int = TrainConfig.batch_size
    learning_rate: float = TrainConfig.learning_rate
    lr_schedule: str = TrainConfig.lr_schedule  # "plateau", or "budget" (needs max_minutes)
    temperature_warmup: float = TrainConfig.temperature_warmup  # dot/bilinear only; fraction of the run
    concat_max_group: int = TrainConfig.concat_max_group  # long examples: up to K training pairs joined; 1 = off
    concat_share: float = TrainConfig.concat_share  # share of each epoch's examples that are joined
    concat_start: float = TrainConfig.concat_start  # fraction of the run on single pairs before joining starts
    validate_every_steps: int = 0  # 0 = once per epoch
    early_stopping_patience: int = TrainConfig.early_stopping_patience
    seed: int = 1
    name: str = ""  # run folder name; empty = made from corpus, scorer and time

    # -- engine objects ----------------------------------------------------------------------
    def corpus_choice(self) -> CorpusChoice:
        """The engine's description of the data (raises ConfigError when inconsistent)."""
        if self.task is not None:
            return CorpusChoice(task=self.task, source_language=self.source_language,
                                target_language=self.target_language)
        return CorpusChoice(corpus=Path(self.corpus_path or ""), source_language=self.source_language,
                            target_language=self.target_language)

    def model_options(self) -> dict[str, Any]:
        """ModelConfig fields other than the vocabulary sizes."""
        return dict(scorer=self.scorer, cell=self.cell, embedding_size=self.embedding_size,
                    encoder_hidden_size=self.hidden_size, decoder_hidden_size=self.hidden_size,
                    attention_size=self.hidden_size, dropout=self.dropout, attention_dropout=self.attention_dropout,
                    tie_embeddings=self.tie_embeddings)

    def train_config(self, torch_threads: int = 0) -> TrainConfig:
        """The engine's training configuration (raises ConfigError naming a bad value)."""
        return TrainConfig(
            epochs=self.epochs, max_minutes=self.max_minutes, batch_size=self.batch_size,
            learning_rate=self.learning_rate, lr_schedule=self.lr_schedule,
            temperature_warmup=self.temperature_warmup, concat_max_group=self.concat_max_group,
            concat_share=self.concat_share if self.concat_max_group > 1 else 0.0, concat_start=self.concat_start,
            validate_every_steps=self.validate_every_steps, early_stopping_patience=self.early_stopping_patience,
            seed=self.seed, torch_threads=torch_threads,
        )

    def vocab_sizes(self) -> tuple[int, int]:
        """Source and target vocabulary sizes actually asked of SentencePiece."""
        return (self.source_vocab or DEFAULT_VOCAB.get(self.source_language, 4000),
                self.target_vocab or DEFAULT_VOCAB.get(self.target_language, 4000))

    # -- names shown to a person ---------------------------------------------------------------
    @property
    def corpus_label(self) -> str:
        """"dates task" or the corpus file's name."""
        return f"{self.task} task" if self.task else Path(self.corpus_path or "?").name

    @property
    def direction_label(self) -> str:
        """E.g. "Chinese → English"."""
        source = LANGUAGE_LABELS.get(self.source_language, self.source_language)
        target = LANGUAGE_LABELS.get(self.target_language, self.target_language)
        return f"{source} → {target}"

    def default_name(self, now: datetime.datetime | None = None) -> str:
        """E.g. ``dates-additive-20261129-1830`` or ``zh-en-bilinear-20261129-1830``."""
        stamp = (now or datetime.datetime.now()).strftime("%Y%m%d-%H%M")
        corpus = self.task or f"{self.source_language}-{self.target_language}"
        return f"{corpus}-{self.scorer.replace('_', '-')}-{stamp}"

    def with_unique_name(self, models_folder: Path, now: datetime.datetime | None = None) -> RunSettings:
        """A copy whose ``name`` is free in ``models_folder`` ("-2", "-3" … appended when taken)."""
        base = _safe_name(self.name) or self.default_name(now)
        name, counter = base, 1
        while (models_folder / name).exists():
            counter += 1
            name = f"{base}-{counter}"
        return replace(self, name=name)

    @classmethod
    def describing(cls, description: dict[str, Any], name: str) -> RunSettings:
        """The settings a run's own description implies (the start line of its metrics log, see
        engine.metrics_log), to show a run started elsewhere; what it does not say keeps the default."""
        model = description.get("model") or {}
        train = description.get("train_config") or {}
        data = description.get("data") or {}
        task = description.get("task")
        corpus = description.get("corpus_path") or data.get("corpus") or "?"  # the path; older logs: the name
        values = {
            "task": task, "corpus_path": None if task else str(corpus),
            "source_language": description.get("source_language"),
            "target_language": description.get("target_language"),
            "scorer": model.get("scorer"), "cell": model.get("cell"), "embedding_size": model.get("embedding_size"),
            "hidden_size": model.get("encoder_hidden_size"), "dropout": model.get("dropout"),
            "attention_dropout": model.get("attention_dropout"), "tie_embeddings": model.get("tie_embeddings"),
            "epochs": train.get("epochs"), "max_minutes": train.get("max_minutes"),
            "batch_size": train.get("batch_size"), "learning_rate": train.get("learning_rate"),
            "lr_schedule": train.get("lr_schedule"), "temperature_warmup": train.get("temperature_warmup"),
            "concat_max_group": train.get("concat_max_group"), "concat_share": train.get("concat_share"),
            "concat_start": train.get("concat_start"), "seed": train.get("seed"), "name": name,
            "validate_every_steps": train.get("validate_every_steps"),
            "early_stopping_patience": train.get("early_stopping_patience"),
        }
        return cls(**{key: value for key, value in values.items() if value is not None or key in ("task", "corpus_path")})


def _safe_name(name: str) -> str:
    """A folder name from what a person typed: path separators and leading dots removed."""
    cleaned = "".join("-" if ch in '/\\:*?"<>|' or ord(ch) < 32 else ch for ch in name.strip())
    return cleaned.lstrip(".").strip()
