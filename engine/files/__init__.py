"""Stored files: the typed schema, the one reader and opener, atomic writes.

The room's public names, for the app: each is imported from the module that defines it only when first
asked for (importing the room loads nothing), so a window that never trains never loads the trainer.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine.lazy_facade import lazy_attributes

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


__getattr__ = lazy_attributes(globals(), _PUBLIC)


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
