"""Which rows a map of a multi-head mechanism draws (pure numpy: no Qt).

A mechanism of several heads (engine.networks.multihead) has, at every step, one row of α per head; the row
a step shows is their mean, a distribution over the source tokens like each head's. A map draws the
mean or one head (gui.attention.heads.HeadChooser); the data behind a panel's contract
(``attention()``) stays the mean.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

MEAN = -1  # the heads' mean, rather than one head


def shown_rows(mean: np.ndarray, heads: np.ndarray | None, head: int) -> np.ndarray:
    """The T×S rows a map draws: ``mean`` (T×S), or head ``head`` of ``heads`` (T×H×S) when there
    is that head for every row (otherwise the mean)."""
    if head == MEAN or heads is None or heads.ndim != 3 or not 0 <= head < heads.shape[1] \
            or heads.shape[0] != mean.shape[0]:
        return mean
    return heads[:, head, :]


def stacked_heads(rows: Sequence[np.ndarray | None]) -> np.ndarray | None:
    """T×H×S from the steps' H×S rows; None unless every step has them (one-head mechanisms have none)."""
    if not rows or any(row is None for row in rows):
        return None
    return np.stack(rows)  # type: ignore[arg-type]


def head_row(heads: np.ndarray | None, head: int, index: int | None = None) -> np.ndarray | None:
    """Head ``head``'s α row (S,) from one step's H×S ``heads`` or, with ``index``, from step ``index`` of a
    run's T×H×S; None for the mean (``MEAN``) or where there is no such row (a one-head mechanism)."""
    if heads is not None and index is not None:
        heads = heads[index] if 0 <= index < len(heads) else None
    if heads is None or head == MEAN or not 0 <= head < len(heads):
        return None
    return heads[head]


def layer_rows(steps: Sequence[np.ndarray | None], layer: int | None, head: int) -> np.ndarray | None:
    """The T×S rows of layer ``layer`` — its heads' mean, or head ``head`` — from each step's L×H×S rows (a
    Transformer's every layer, engine.decoding.search.DecodeStep.layer_attention); None for the step's own rows
    (``layer`` None) or where a step has no such layer. Only the chosen layer is stacked."""
    if layer is None or not steps or any(rows is None or not 0 <= layer < len(rows) for rows in steps):
        return None
    heads = np.stack([rows[layer] for rows in steps])  # type: ignore[index]  # T×H×S
    if head == MEAN or not 0 <= head < heads.shape[1]:
        return heads.mean(axis=1)
    return heads[:, head]
