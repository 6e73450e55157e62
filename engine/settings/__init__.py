"""Typed, frozen settings, each described once, and the engine's errors.

The room's public names, for the app: each is imported from the module that defines it only when first
asked for (importing the room loads nothing), so a window that never trains never loads the trainer.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine.lazy_facade import lazy_attributes

_PUBLIC = {
    "ATTENTION_SCORER_NAMES": "engine.settings.scorer_table",
    "ConfigError": "engine.settings.errors",
    "DataError": "engine.settings.errors",
    "DecodeConfig": "engine.settings.config",
    "DivergedError": "engine.settings.errors",
    "EngineError": "engine.settings.errors",
    "FIXED_CONTEXT": "engine.settings.scorer_table",
    "HIDDEN_SIZE_FIELDS": "engine.settings.config",
    "ModelFileError": "engine.settings.errors",
    "ModelShape": "engine.settings.config",
    "NonFiniteError": "engine.settings.errors",
    "SCORER_NAMES": "engine.settings.scorer_table",
    "SCORER_TABLE": "engine.settings.scorer_table",
    "ScorerInfo": "engine.settings.scorer_table",
    "TokenizerError": "engine.settings.errors",
    "TrainConfig": "engine.settings.config",
    "attends": "engine.settings.scorer_table",
    "described": "engine.settings.settings_meta",
    "scorer_row": "engine.settings.scorer_table",
}
__all__ = [
    "ATTENTION_SCORER_NAMES",
    "ConfigError",
    "DataError",
    "DecodeConfig",
    "DivergedError",
    "EngineError",
    "FIXED_CONTEXT",
    "HIDDEN_SIZE_FIELDS",
    "ModelFileError",
    "ModelShape",
    "NonFiniteError",
    "SCORER_NAMES",
    "SCORER_TABLE",
    "ScorerInfo",
    "TokenizerError",
    "TrainConfig",
    "attends",
    "described",
    "scorer_row",
]


__getattr__ = lazy_attributes(globals(), _PUBLIC)


if TYPE_CHECKING:
    from engine.settings.config import HIDDEN_SIZE_FIELDS, DecodeConfig, ModelShape, TrainConfig
    from engine.settings.errors import (
        ConfigError,
        DataError,
        DivergedError,
        EngineError,
        ModelFileError,
        NonFiniteError,
        TokenizerError,
    )
    from engine.settings.scorer_table import (
        ATTENTION_SCORER_NAMES,
        FIXED_CONTEXT,
        SCORER_NAMES,
        SCORER_TABLE,
        ScorerInfo,
        attends,
        scorer_row,
    )
    from engine.settings.settings_meta import described
