"""What a run's weight snapshots will cost on disk, known before it starts (the Train form shows it).

A snapshot stores every tensor of the model's state once per name (a tied matrix twice), 2 bytes a
weight as float16 (engine.training.snapshots.snapshot_dtype). The weights are counted on the model
itself, built from the form's model shape and the vocabulary sizes asked for (7 ms for the dates task's,
50 ms for a corpus model of 5 M weights; each shape counted once). torch's ``meta`` device would skip the
initialization, but its first use imports 2–3 s of modules. A small corpus may still shrink the
vocabularies, so this is an upper bound, as the count of snapshots is: a run writes one per validation
and keeps at most N.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from engine.networks.model import build_model
from engine.settings.config import ModelShape

FLOAT16_BYTES = 2


@dataclass(frozen=True)
class SnapshotCost:
    """The disk a run's kept snapshots take at most."""

    weights: int  # stored weights of one snapshot (a tied matrix counted under each of its names)
    count: int  # snapshots kept at most

    @property
    def snapshot_bytes(self) -> int:
        return self.weights * FLOAT16_BYTES

    @property
    def total_bytes(self) -> int:
        return self.snapshot_bytes * self.count


@lru_cache(maxsize=64)
def stored_weights(shape: ModelShape, source_vocabulary: int, target_vocabulary: int) -> int:
    """The weights one snapshot of a model of ``shape`` with these vocabulary sizes stores."""
    model = build_model(shape.with_vocabularies(source_vocabulary, target_vocabulary))
    return sum(tensor.numel() for tensor in model.state_dict().values())


def snapshot_cost(shape: ModelShape, source_vocabulary: int, target_vocabulary: int, keep: int) -> SnapshotCost:
    """At most ``keep`` float16 snapshots of that model."""
    return SnapshotCost(stored_weights(shape, source_vocabulary, target_vocabulary), max(0, keep))


def megabytes(count: int) -> str:
    """'1.2 MB', '380 MB', '2.1 GB' (decimal units, as file managers show them)."""
    if count >= 10**9:
        return f"{count / 10**9:.1f} GB"
    mb = count / 10**6
    return f"{mb:.1f} MB" if mb < 10 else f"{mb:,.0f} MB"
