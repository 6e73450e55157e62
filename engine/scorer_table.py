"""The attention scorers as data: name, label, formula and traits, without PyTorch.

The one source of what each scorer is called and computes. The engine's scorer classes
(engine.attention) take their label and formula from here, the configuration checks names against
it, and the app builds its menus, grids and legends from it before PyTorch has loaded.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ScorerInfo:
    name: str  # registry name, e.g. "scaled_dot"
    label: str  # shown to people
    formula: str  # e_ij as written in the papers (or C for the fixed-context baseline)
    unscaled: bool = False  # its scores grow with the vector size (dot, bilinear): they can be warmed up
    uses_attention: bool = True  # False only for the fixed context C


SCORER_TABLE: dict[str, ScorerInfo] = {info.name: info for info in (
    ScorerInfo("additive", "Additive (Bahdanau)", "e_ij = vᵀ tanh(W s_{i-1} + U h_j)"),
    ScorerInfo("bilinear", 'Bilinear (Luong "general")', "e_ij = s_{i-1}ᵀ W h_j", unscaled=True),
    ScorerInfo("dot", "Dot product", "e_ij = s_{i-1}ᵀ h_j", unscaled=True),
    ScorerInfo("scaled_dot", "Scaled dot product", "e_ij = s_{i-1}ᵀ h_j / √d"),
    ScorerInfo("none", "None (fixed context C)", "c_i = C for every step i (no attention weights)",
               uses_attention=False),
)}
SCORER_NAMES: tuple[str, ...] = tuple(SCORER_TABLE)
ATTENTION_SCORER_NAMES: tuple[str, ...] = tuple(n for n, info in SCORER_TABLE.items() if info.uses_attention)
