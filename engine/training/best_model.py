"""A training run's best model, written as the run's model folder (engine.models.bundle) with its
training and scores in config.json, and the record of its training sources' words
(engine.text.training_words), made once at the first save."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engine.models.bundle import save_model_folder
from engine.networks.model import EncoderDecoder
from engine.settings.config import TrainConfig
from engine.text.tokenizer import Tokenizer
from engine.text.training_words import TrainingWords, collect_training_words


@dataclass
class BestModelFolder:
    """Where and how the run's best model is saved (engine.training.train_run builds it from the job)."""

    run_folder: Path
    source_tokenizer: Tokenizer
    target_tokenizer: Tokenizer
    source_language: str
    target_language: str
    train_config: TrainConfig
    metadata: dict[str, Any]  # the job's, written into config.json
    storage_dtype: str
    train_text: Sequence | None  # the training pairs as text (their sources' words are recorded); None: ids only
    _words: TrainingWords | None = field(default=None, repr=False)

    def save(self, model: EncoderDecoder, progress: dict[str, Any], metrics: dict[str, Any], signature: str) -> None:
        """The model as it is now, saved as the run's model folder; its training so far (``progress``)
        and this validation's ``metrics`` in config.json."""
        metadata = dict(self.metadata)
        metadata.update(
            source_language=self.source_language,
            target_language=self.target_language,
            training=dict(metadata.get("training") or {}, train_config=self.train_config.to_dict(),
                          steps=progress["step"], train_seconds=round(progress["train_seconds"], 1),
                          history=progress["history"]),
            metrics=dict(metadata.get("metrics") or {}, valid=dict(metrics, signature=signature)),
        )
        save_model_folder(self.run_folder, model, self.source_tokenizer, self.target_tokenizer, metadata,
                          self.storage_dtype, self.training_words())

    def training_words(self) -> TrainingWords | None:
        """The record of the run's training sources' words, made at its first call; None for a run on the
        token cache (its training pairs are ids, the text is not at hand: the model then has no record)."""
        if self._words is None and self.train_text is not None:
            self._words = collect_training_words((pair.source for pair in self.train_text), self.source_language)
        return self._words
