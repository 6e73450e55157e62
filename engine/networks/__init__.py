"""The networks: scorers (the table and the classes), the RNN encoder-decoder, the Transformer.

The room's public names, for the app: each is imported from the module that defines it only when first
asked for (importing the room loads nothing), so a window that never trains never loads the trainer.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine.lazy_facade import lazy_attributes

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


__getattr__ = lazy_attributes(globals(), _PUBLIC)


if TYPE_CHECKING:
    from engine.networks.layer_maps import KINDS, AttentionLayers, attention_layers
    from engine.networks.threads import use_torch_threads
