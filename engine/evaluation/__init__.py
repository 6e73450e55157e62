"""Evaluation: BLEU and chrF with sacrebleu, significance, run reports, content kept.

The room's public names, for the app: each is imported from the module that defines it only when first
asked for (importing the room loads nothing), so a window that never trains never loads the trainer.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine.lazy_facade import lazy_attributes

_PUBLIC = {
    "sentence_scores": "engine.evaluation.evaluate",
}
__all__ = [
    "sentence_scores",
]


__getattr__ = lazy_attributes(globals(), _PUBLIC)


if TYPE_CHECKING:
    from engine.evaluation.evaluate import sentence_scores
