"""Gradient attributions of a chunk of decode steps, through Captum: Integrated Gradients and input × gradient.

Both run Captum's own ``IntegratedGradients`` / ``InputXGradient`` on the *embeddings* (the
``inputs`` Captum varies are the source embeddings R×S×E and the prefix embeddings R×P×E of
engine.explain.forced_rows; an embedding lookup has no gradient with respect to an id). Each row of the
batch is one decode step i with its own target (``additional_forward_args``: the steps and the contrast
ids, which Captum repeats for every interpolation point), so one call attributes a whole chunk of steps:
Captum expands the R rows to ``ig_steps`` × R and runs them as one forward and one backward.

Baseline (IG): the zero embedding at every source and prefix position. It equals the padding piece's
embedding in these models (``padding_idx``: the row is zero and never trained), so the baseline is "every
piece replaced by padding" without the mask treating it as absent; a Transformer keeps its positions (they
are added after the embedding). The BOS fed at step 0 is never varied.

Completeness (Sundararajan et al. 2017): a step's source and prefix attributions sum to
``score(x) - score(baseline)``, up to the quadrature error of ``ig_steps`` Gauss–Legendre points; Captum's
convergence delta measures it.

Per piece, an attribution is the sum over the embedding dimension of the E values Captum returns.

Shapes: R rows (steps), S source pieces, P prefix positions, E embedding size.
"""

from __future__ import annotations

import numpy as np
import torch
from captum.attr import InputXGradient, IntegratedGradients

from engine.explain.forced_rows import ForcedRows


def gradient_chunk(rows: ForcedRows, method: str, steps: list[int], contrasts: list[int],
                   ig_steps: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Attribute ``steps`` (k steps, each scoring ``rows``' piece at that position, contrasted with the
    id in ``contrasts`` or not) → (source k×S, prefix k×P, IG's convergence delta k — zeros for input ×
    gradient), P = max(steps) + 1 capped at T (positions past a row's step get exactly 0)."""
    count = len(steps)
    prefix = min(max(steps) + 1, rows.target_length)
    device = rows.source.device
    step_tensor = torch.tensor(steps, device=device)
    contrast_tensor = torch.tensor(contrasts, device=device)
    inputs = (rows.source_embedded.expand(count, -1, -1).clone().requires_grad_(),  # k×S×E
              rows.prefix_embedded[:prefix].expand(count, -1, -1).clone().requires_grad_())  # k×P×E
    with torch.enable_grad():
        if method == "ig":
            attributions, delta = IntegratedGradients(rows.score).attribute(
                inputs, baselines=tuple(torch.zeros_like(part) for part in inputs),
                additional_forward_args=(step_tensor, contrast_tensor), n_steps=ig_steps,
                method="gausslegendre", return_convergence_delta=True)
            delta_values = delta.detach().cpu().numpy()
        else:
            attributions = InputXGradient(rows.score).attribute(
                inputs, additional_forward_args=(step_tensor, contrast_tensor))
            delta_values = np.zeros(count)
    source, prefix_part = (part.detach().sum(dim=-1).cpu().numpy().astype(np.float64) for part in attributions)
    return source, prefix_part, delta_values
