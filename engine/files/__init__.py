"""Stored files: the typed schema, the one reader and opener, atomic writes.

The room's public names, for the app: each is imported from the module that defines it only when first
asked for (importing the room loads nothing), so a window that never trains never loads the trainer.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

_PUBLIC = {
    "APP_ICON": "engine.files.paths",
    "I18N_FOLDER": "engine.files.paths",
    "RESOURCES": "engine.files.paths",
    "TATOEBA_CORPUS": "engine.files.paths",
    "model_argument": "engine.files.paths",
    "user_data_folder": "engine.files.paths",
    "user_models_folder": "engine.files.paths",
    "write_bytes_atomic": "engine.files.atomic",
}
__all__ = [
    "APP_ICON",
    "I18N_FOLDER",
    "RESOURCES",
    "TATOEBA_CORPUS",
    "model_argument",
    "user_data_folder",
    "user_models_folder",
    "write_bytes_atomic",
]


def __getattr__(name: str) -> Any:
    """A public name of the room, imported from its module when first asked for."""
    if name not in _PUBLIC:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(_PUBLIC[name]), name)
    globals()[name] = value
    return value


if TYPE_CHECKING:
    from engine.files.atomic import write_bytes_atomic
    from engine.files.paths import (
        APP_ICON,
        I18N_FOLDER,
        RESOURCES,
        TATOEBA_CORPUS,
        model_argument,
        user_data_folder,
        user_models_folder,
    )
