"""Decoding: greedy and beam search, the translator, forced decoding, steering and what they measure.

The room's public names, for the app: each is imported from the module that defines it only when first
asked for (importing the room loads nothing), so a window that never trains never loads the trainer.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine.lazy_facade import lazy_attributes

_PUBLIC = {
    "DecodeStep": "engine.decoding.search",
    "ForcedDecode": "engine.decoding.forced",
    "LOOP_COUNT": "engine.decoding.repetition",
    "LOOP_NGRAM": "engine.decoding.repetition",
    "NO_STEERING": "engine.decoding.search",
    "PreparedSource": "engine.decoding.translator",
    "Translation": "engine.decoding.translator",
    "Translator": "engine.decoding.translator",
    "attention_stats": "engine.decoding.attention_statistics",
    "finite_steps": "engine.decoding.finite_output",
    "force_decode": "engine.decoding.forced",
    "make_steering": "engine.decoding.whatif",
    "most_repeated": "engine.decoding.repetition",
}
__all__ = [
    "DecodeStep",
    "ForcedDecode",
    "LOOP_COUNT",
    "LOOP_NGRAM",
    "NO_STEERING",
    "PreparedSource",
    "Translation",
    "Translator",
    "attention_stats",
    "finite_steps",
    "force_decode",
    "make_steering",
    "most_repeated",
]


__getattr__ = lazy_attributes(globals(), _PUBLIC)


if TYPE_CHECKING:
    from engine.decoding.attention_statistics import attention_stats
    from engine.decoding.finite_output import finite_steps
    from engine.decoding.forced import ForcedDecode, force_decode
    from engine.decoding.repetition import LOOP_COUNT, LOOP_NGRAM, most_repeated
    from engine.decoding.search import NO_STEERING, DecodeStep
    from engine.decoding.translator import PreparedSource, Translation, Translator
    from engine.decoding.whatif import make_steering
