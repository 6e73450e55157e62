"""Occlusion of a chunk of decode steps: each piece replaced by ``<unk>``, the drop in the step's score.

The neutral token is ``<unk>`` (id 1): a piece every model has an embedding for, which stands for no
particular word, and which — unlike padding — the attention mask and the RNN's packing still treat as a
position of the sentence, so the length and the positions of the other pieces are unchanged. Occluding
x_j at step i gives ``score(x) - score(x with x_j = <unk>)`` (positive: the piece raised log p(y_i));
occluding the prefix piece y_j replaces it in the decoder's input only (y_j as the token written is
unchanged).

Why not Captum's ``Occlusion`` / ``FeatureAblation``: they ablate one feature per forward and attribute
one target per call, so a sentence would need T calls of S + T forwards each. Here every variant (the
input itself, S source occlusions, P prefix occlusions) scores every step of a chunk in one batched
forward of (1 + S + P) × k rows — the same arithmetic, a hundred times fewer calls.

Shapes: k steps in the chunk, S source pieces, P prefix positions.
"""

from __future__ import annotations

import numpy as np
import torch

from engine.explain.forced_rows import ForcedRows
from engine.text.tokenizer import UNK_ID

NEUTRAL_ID = UNK_ID  # what an occluded piece becomes


@torch.no_grad()
def occlusion_chunk(rows: ForcedRows, steps: list[int], contrasts: list[int]) -> tuple[np.ndarray, np.ndarray]:
    """(source k×S, prefix k×P) drops of each step's score when one piece is replaced by ``<unk>``,
    P = max(steps) + 1 capped at T (prefix positions at or past a row's step get exactly 0)."""
    count, sources = len(steps), rows.source_length
    prefix = min(max(steps) + 1, rows.target_length)
    fed = rows.target_in(prefix)  # P+1: BOS y_0 .. y_{P-1}
    variants = 1 + sources + prefix
    source_ids = rows.source.expand(variants, -1).clone()  # variants×S
    target_in = fed.expand(variants, -1).clone()  # variants×(P+1)
    position = torch.arange(sources, device=source_ids.device)
    source_ids[1 + position, position] = NEUTRAL_ID  # variant 1+j: x_j occluded
    prefix_position = torch.arange(prefix, device=source_ids.device)
    target_in[1 + sources + prefix_position, 1 + prefix_position] = NEUTRAL_ID  # variant 1+S+j: y_j occluded
    device = source_ids.device
    step_rows = torch.tensor(steps, device=device).repeat(variants)  # (variants·k): variant-major
    contrast_rows = torch.tensor(contrasts, device=device).repeat(variants)
    scores = rows.ids_score(source_ids.repeat_interleave(count, dim=0), target_in.repeat_interleave(count, dim=0),
                            step_rows, contrast_rows).view(variants, count)  # variants×k
    drops = (scores[:1] - scores[1:]).T.cpu().numpy().astype(np.float64)  # k×(S+P)
    source, prefix_part = drops[:, :sources], drops[:, sources:]
    later = np.arange(prefix)[None, :] >= np.array(steps)[:, None]  # y_j with j ≥ i is not in step i's prefix
    prefix_part[later] = 0.0
    return source, prefix_part
