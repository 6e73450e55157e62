"""Model folders: the bundle, its files and schema, the catalog, where things live, training words.

The room's public names, for the app: each is imported from the module that defines it only when first
asked for (importing the room loads nothing), so a window that never trains never loads the trainer.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine.lazy_facade import lazy_attributes

_PUBLIC = {
    "ModelBundle": "engine.models.bundle",
    "ModelRecord": "engine.models.model_record",
    "load_model_folder": "engine.models.bundle",
    "read_config": "engine.models.config_file",
    "read_model_record": "engine.models.model_record",
}
__all__ = [
    "ModelBundle",
    "ModelRecord",
    "load_model_folder",
    "read_config",
    "read_model_record",
]


__getattr__ = lazy_attributes(globals(), _PUBLIC)


if TYPE_CHECKING:
    from engine.models.bundle import ModelBundle, load_model_folder
    from engine.models.config_file import read_config
    from engine.models.model_record import ModelRecord, read_model_record
