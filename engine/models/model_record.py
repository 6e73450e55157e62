"""A model folder as the app and the studies read it: :class:`ModelRecord`, its ``config.json`` parsed once
into typed fields (languages, scorer, test BLEU, the sections a study reads), no weights read and no PyTorch.

:func:`read_model_record` reads a folder's (engine.models.config_file checks the file first) and refuses
one that lacks the scorer or the languages; :meth:`ModelRecord.parse` takes a config already read,
leniently (what a section lacks is empty), for the studies that read configs kept elsewhere.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any

from engine.models.config_file import read_config
from engine.models.model_files import CONFIG_FILE, model_files_folder
from engine.settings.errors import ModelFileError

_EMPTY: Mapping[str, Any] = MappingProxyType({})


def _section(info: Mapping[str, Any], key: str) -> Mapping[str, Any]:
    value = info.get(key)
    return MappingProxyType(value) if isinstance(value, dict) else _EMPTY


def _number(value: Any) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


@dataclass(frozen=True)
class ModelRecord:
    """One model folder's ``config.json``, read once: the fields every reader needs, typed, and the
    sections the studies read (read-only mappings)."""

    folder: Path = Path()
    source_language: str = ""
    target_language: str = ""
    scorer: str = ""
    test_bleu: float | None = None  # metrics.test.bleu, when its run was scored
    data: Mapping[str, Any] = field(default_factory=lambda: _EMPTY, compare=False)  # the corpus, its split and rule
    model: Mapping[str, Any] = field(default_factory=lambda: _EMPTY, compare=False)  # the architecture (ModelConfig's fields)
    tokenizers: Mapping[str, Any] = field(default_factory=lambda: _EMPTY, compare=False)  # each side's sha256 and size
    training: Mapping[str, Any] = field(default_factory=lambda: _EMPTY, compare=False)  # its settings, history and how it ended
    metrics: Mapping[str, Any] = field(default_factory=lambda: _EMPTY, compare=False)  # test scores and the stored studies
    config: Mapping[str, Any] = field(default_factory=lambda: _EMPTY, compare=False)  # the whole file, for a study's own section

    @property
    def direction(self) -> str:
        return f"{self.source_language}-{self.target_language}"

    @classmethod
    def parse(cls, info: Mapping[str, Any], folder: Path = Path()) -> ModelRecord:
        """The record of a config already read (a missing or mistyped section reads as empty)."""
        model = _section(info, "model")
        metrics = _section(info, "metrics")
        test = metrics.get("test")
        return cls(folder=Path(folder), source_language=str(info.get("source_language") or ""),
                   target_language=str(info.get("target_language") or ""), scorer=str(model.get("scorer") or ""),
                   test_bleu=_number(test.get("bleu")) if isinstance(test, dict) else None,
                   data=_section(info, "data"), model=model, tokenizers=_section(info, "tokenizers"),
                   training=_section(info, "training"), metrics=metrics, config=MappingProxyType(dict(info)))


def read_model_record(folder: Path) -> ModelRecord:
    """The record of the model in ``folder`` (config.json only: cheap); ModelFileError when the folder
    is not a model folder or its config lacks the model's scorer or languages."""
    info = read_config(folder)
    record = ModelRecord.parse(info, folder)
    if not (record.scorer and record.source_language and record.target_language):
        raise ModelFileError(f"{folder}/{CONFIG_FILE} lacks the model's scorer or languages")
    return record


def config_time(folder: Path) -> float:
    """When the model's config.json was last written (seconds since the epoch)."""
    try:
        return (model_files_folder(folder) / CONFIG_FILE).stat().st_mtime
    except OSError as error:
        raise ModelFileError(f"cannot read {folder}/{CONFIG_FILE}: {error.strerror or error}") from None
