"""What one training run is asked to do: the engine's own settings, composed.

:class:`RunSettings` knows no Qt and restates no field: it is the engine's request of a run
(:class:`engine.records.runs.RunSpec`: a :class:`~engine.training.jobs.CorpusChoice`, a :class:`~engine.settings.config.ModelShape`,
a :class:`~engine.settings.config.TrainConfig` and :class:`~engine.training.jobs.VocabularySizes`, as they are) with
the form's presets as defaults, and it names its run folder. A run's settings are never written by
the app: the engine records what a run was asked for, and :meth:`RunSettings.of_request` takes what
:meth:`engine.records.runs.RunFolder.request` reads back (to resume a run, or to show one started elsewhere).
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass, fields, replace
from pathlib import Path

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication

from engine.corpus.tasks import dates
from engine.records import RunSpec
from engine.settings import ModelShape, TrainConfig

LANGUAGE_LABELS = {"zh": QT_TRANSLATE_NOOP("RunSettings", "Chinese"), "en": QT_TRANSLATE_NOOP("RunSettings", "English"),
                   dates.SOURCE_LANGUAGE: QT_TRANSLATE_NOOP("RunSettings", "dates"), dates.TARGET_LANGUAGE: "ISO"}


@dataclass(frozen=True)
class Preset:
    """The model and training settings that suit a kind of corpus on a 2-core CPU (the form starts
    from these, and switching kinds restores them)."""

    model: ModelShape
    train: TrainConfig


# The dates task learns in a few epochs with a small model; a real corpus needs more of both, and
# learns faster with the shipped models' recipe (Adam 0.002, output layer tied to the embedding, dot and
# bilinear scores warmed up over the whole run) and their sizes: embeddings 256 with dropout 0.3 beat
# 128 with 0.2 even on the one core a run in the app gets (zh→en, 25 minutes: 29.05 against 28.28
# beam-5 BLEU). A corpus run also learns long inputs with the build script's length curriculum: single
# pairs for the first half, then a fifth of each epoch's examples are 2–8 training pairs joined into one.
# Runs in the app keep weight snapshots of 12 validations (float16; the last 5 in a row, older ones thinned
# evenly), so that a click on any step of their curves goes back to weights near it: ~12 MB for the dates
# task's model, ~120 MB for a corpus model of the preset's size (the form shows the cost).
APP_KEEP_SNAPSHOTS = 12
TASK_PRESET = Preset(ModelShape(embedding_size=64, dropout=0.1).with_hidden_size(128),
                     TrainConfig(epochs=6, keep_snapshots=APP_KEEP_SNAPSHOTS))
CORPUS_PRESET = Preset(
    ModelShape(embedding_size=256, dropout=0.3, tie_embeddings=True).with_hidden_size(256),
    TrainConfig(learning_rate=0.002, temperature_warmup=1.0, concat_max_group=8, concat_share=0.2,
                concat_start=0.5, keep_snapshots=APP_KEEP_SNAPSHOTS),
)


@dataclass(frozen=True)
class RunSettings(RunSpec):
    """Everything the form asks for one run: the engine's request of a run (corpus, model, train,
    vocabularies; the model and training from the task preset unless given) and a folder name."""

    model: ModelShape = TASK_PRESET.model
    train: TrainConfig = TASK_PRESET.train
    name: str = ""  # run folder name; empty = made from corpus, scorer and time

    @property
    def scorer(self) -> str:
        return self.model.scorer

    def for_threads(self, torch_threads: int) -> TrainConfig:
        """The training configuration a run in the app uses: these settings on ``torch_threads``."""
        return replace(self.train, torch_threads=torch_threads)

    # -- names shown to a person ---------------------------------------------------------------
    @property
    def corpus_label(self) -> str:
        """"dates task" or the corpus file's name."""
        if self.corpus.task:
            task = QCoreApplication.translate("RunSettings", self.corpus.task)  # "dates": a marked word
            return QCoreApplication.translate("RunSettings", "%1 task").replace("%1", task)
        return Path(self.corpus.corpus or "?").name

    @property
    def direction_label(self) -> str:
        """E.g. "Chinese → English"."""
        source = LANGUAGE_LABELS.get(self.corpus.source_language, self.corpus.source_language)
        target = LANGUAGE_LABELS.get(self.corpus.target_language, self.corpus.target_language)
        return f"{QCoreApplication.translate('RunSettings', source)} → {QCoreApplication.translate('RunSettings', target)}"

    def default_name(self, now: datetime.datetime | None = None) -> str:
        """E.g. ``dates-additive-20261129-1830`` or ``zh-en-bilinear-20261129-1830``."""
        stamp = (now or datetime.datetime.now()).strftime("%Y%m%d-%H%M")
        corpus = self.corpus.task or f"{self.corpus.source_language}-{self.corpus.target_language}"
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
    def of_request(cls, request: RunSpec, name: str) -> RunSettings:
        """The settings of a run that asked for ``request`` (engine.records.runs.RunFolder.request), in the folder ``name``."""
        return cls(**{f.name: getattr(request, f.name) for f in fields(RunSpec)}, name=name)


def _safe_name(name: str) -> str:
    """A folder name from what a person typed: path separators and leading dots removed."""
    cleaned = "".join("-" if ch in '/\\:*?"<>|' or ord(ch) < 32 else ch for ch in name.strip())
    return cleaned.lstrip(".").strip()
