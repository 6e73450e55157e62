"""The networks: scorers (the table and the classes), the RNN encoder-decoder, the Transformer.

The room's public names, for the app: each is imported from the module that defines it only when first
asked for (importing the room loads nothing), so a window that never trains never loads the trainer.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

_PUBLIC = {
    "AttentionLayers": "engine.networks.layer_maps",
    "KINDS": "engine.networks.layer_maps",
    "attention_layers": "engine.networks.layer_maps",
    "use_torch_threads": "engine.networks.threads",
}
__all__ = [
    "AttentionLayers",
    "KINDS",
    "attention_layers",
    "use_torch_threads",
]


def __getattr__(name: str) -> Any:
    """A public name of the room, imported from its module when first asked for."""
    if name not in _PUBLIC:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(_PUBLIC[name]), name)
    globals()[name] = value
    return value


if TYPE_CHECKING:
    from engine.networks.layer_maps import KINDS, AttentionLayers, attention_layers
    from engine.networks.threads import use_torch_threads
