"""Decode speed of model folders for the quality report: sentences per second, greedy and beam 5.

Timed in rounds over all models so that a slow spell of a shared machine does not decide one model's
figure (see :func:`decode_speeds`). A figure taken while other work kept this CPU busy (a model build
beside it: the one-minute load average at the start ≥ ``BUSY_LOAD``) is marked so, and the report says it
is not a benchmark.
"""

from __future__ import annotations

import math
import os
import time
from collections.abc import Callable
from pathlib import Path

from engine.corpus.corpus_read import Pair
from engine.models.bundle import load_model_folder
from engine.settings.config import DecodeConfig

SPEED_SENTENCES = 200  # the first test sources of the model's direction
SPEED_ROUNDS = 5  # timed rounds over every model, after one warm-up round
BUSY_LOAD = 0.5  # the one-minute load average above which the CPU was not this measurement's alone
BESIDE_OTHER_WORK = "beside_other_work"  # the key of a speed record marking a figure taken on a busy CPU
GREEDY, BEAM5 = DecodeConfig(beam_size=1), DecodeConfig(beam_size=5)
SPEED_MODES = {
    "greedy_batched_sentences_per_second": lambda translator, sources: translator.translate_many(sources, GREEDY),
    "greedy_one_by_one_sentences_per_second": lambda translator, sources: [translator.translate(s, GREEDY)
                                                                           for s in sources],
    "beam5_sentences_per_second": lambda translator, sources: [translator.translate(s, BEAM5) for s in sources],
}


def decode_speeds(folders: list[Path], test_pairs_for: Callable[[str, str], list[Pair]]) -> dict[str, dict]:
    """Sentences per second of every model in each decoding mode (SPEED_MODES).

    Each round times every model in turn and each model keeps its fastest pass: a slow spell of the
    machine (another process, a cold start) then slows one pass of every model instead of deciding
    one model's figure, which is what made single passes differ by 20-40 % between report runs."""
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else 0.0
    bundles = {folder.name: load_model_folder(folder) for folder in folders}
    sources = {name: [p.source for p in test_pairs_for(b.source_language, b.target_language)[:SPEED_SENTENCES]]
               for name, b in bundles.items()}
    fastest = {name: dict.fromkeys(SPEED_MODES, math.inf) for name in bundles}
    for timed_round in range(SPEED_ROUNDS + 1):  # round 0 warms up
        for name, bundle in bundles.items():
            for mode, decode in SPEED_MODES.items():
                started = time.perf_counter()
                decode(bundle.translator, sources[name])
                if timed_round:
                    fastest[name][mode] = min(fastest[name][mode], time.perf_counter() - started)
    return {name: {**{mode: round(len(sources[name]) / seconds, 1) for mode, seconds in modes.items()},
                   "load_average": round(load, 2), BESIDE_OTHER_WORK: load >= BUSY_LOAD}
            for name, modes in fastest.items()}
