"""Evaluation: BLEU and chrF with sacrebleu, significance, run reports, content kept.

The room's public names, for the app: each is imported from the module that defines it only when first
asked for (importing the room loads nothing), so a window that never trains never loads the trainer.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

_PUBLIC = {
    "sentence_scores": "engine.evaluation.evaluate",
}
__all__ = [
    "sentence_scores",
]


def __getattr__(name: str) -> Any:
    """A public name of the room, imported from its module when first asked for."""
    if name not in _PUBLIC:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(_PUBLIC[name]), name)
    globals()[name] = value
    return value


if TYPE_CHECKING:
    from engine.evaluation.evaluate import sentence_scores
