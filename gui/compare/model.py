"""What the Compare view decides, without Qt or torch: which model backs each scorer's panel,
which target the maps share, what a panel's numbers are, and the difference of two maps.

Two ways to compare (the target choice):

- **Each scorer's own output** — every model decodes freely; the maps have different rows (each
  its own output), so they can be looked at side by side but not subtracted.
- **One shared target** — the reference, or one scorer's output, is *forced* on every model
  (engine.forced): every map then has the same rows and columns, and the difference
  α_A − α_B of any two attention scorers is defined cell by cell.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from engine.scorer_table import ATTENTION_SCORER_NAMES, SCORER_NAMES  # torch-free

if TYPE_CHECKING:
    from engine.catalog import ModelEntry

SCORER_ORDER = SCORER_NAMES  # the grid's panels, in the engine's order
ATTENTION_SCORERS = ATTENTION_SCORER_NAMES
OWN_OUTPUTS = "own"  # target choice: each scorer decodes freely
REFERENCE = "reference"  # target choice: the reference forced on every model
OUTPUT_PREFIX = "output:"  # target choice "output:<scorer>": that scorer's output forced on every model


@dataclass(frozen=True)
class PanelSlot:
    """One scorer's place in the grid: the model that backs it, or why there is none."""

    scorer: str
    label: str
    formula: str
    entry: ModelEntry | None
    reason: str = ""  # why the panel is disabled ("" when a model backs it)

    @property
    def usable(self) -> bool:
        return self.entry is not None


def plan_slots(entries: Sequence[ModelEntry], direction: str, scorers: dict[str, tuple[str, str]]) -> list[PanelSlot]:
    """One slot per scorer of ``SCORER_ORDER`` for ``direction``: the newest model the user trained
    for it, else the shipped one; a scorer without a model gets a disabled slot saying so."""
    slots = []
    for scorer in SCORER_ORDER:
        label, formula = scorers.get(scorer, (scorer, ""))
        matching = [e for e in entries if e.direction == direction and e.scorer == scorer]
        entry = max(matching, key=lambda e: (not e.shipped, e.modified)) if matching else None
        reason = "" if entry else f"no {label} model for {direction.replace('-', '→')}: train one in the Train tab"
        slots.append(PanelSlot(scorer, label, formula, entry, reason))
    return slots


def target_choices(slots: Sequence[PanelSlot], has_reference: bool) -> list[tuple[str, str]]:
    """(key, menu text) of the targets the maps can share, in menu order."""
    choices = [(OWN_OUTPUTS, "Each scorer's own output")]
    if has_reference:
        choices.append((REFERENCE, "The reference, forced on every model"))
    choices += [(OUTPUT_PREFIX + s.scorer, f"The {s.label} output, forced on every model") for s in slots if s.usable]
    return choices


def forced_target(choice: str, reference: str, outputs: dict[str, str]) -> str | None:
    """The text every model is given for ``choice``; None for free decoding or a missing output."""
    if choice == REFERENCE:
        return reference.strip() or None
    if choice.startswith(OUTPUT_PREFIX):
        return outputs.get(choice[len(OUTPUT_PREFIX):])
    return None


def attention_difference(first: np.ndarray | None, second: np.ndarray | None) -> np.ndarray:
    """α_A − α_B, cell by cell; both maps must have the same rows and columns (a shared target)."""
    if first is None or second is None:
        raise ValueError("the fixed-context scorer has no attention map to subtract")
    if first.shape != second.shape:
        raise ValueError(f"the maps differ in shape ({first.shape[0]}×{first.shape[1]} against "
                         f"{second.shape[0]}×{second.shape[1]}): force one target on every model first")
    return np.asarray(first, dtype=np.float64) - np.asarray(second, dtype=np.float64)


@dataclass(frozen=True)
class PanelNumbers:
    """What a panel writes under its map."""

    log_probability: float
    length: int  # output tokens, the end-of-sentence token included
    mean_entropy: float | None  # None for the fixed-context scorer
    mean_max_weight: float | None
    bleu: float | None = None  # sentence BLEU / chrF against the reference, when there is one
    chrf: float | None = None

    def text(self) -> str:
        parts = [f"log p {self.log_probability:.2f}", f"{self.length} tokens"]
        if self.mean_entropy is not None:
            parts += [f"entropy {self.mean_entropy:.2f} nats", f"max α {self.mean_max_weight:.2f}"]
        if self.bleu is not None:
            parts += [f"BLEU {self.bleu:.1f}", f"chrF {self.chrf:.1f}"]
        return " · ".join(parts)
