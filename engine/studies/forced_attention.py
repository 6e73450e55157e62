"""The attention of many known targets at once: batched teacher forcing, attention only.

``engine.decoding.forced`` scores one target step by step, output layer and all, bit-exact with a free
decode. A corpus study only needs α: this module feeds B (source, target) pairs through the encoder
and the decoder's recurrence together and keeps each step's α, skipping the output layer (the
largest product of a step). Padding gets no weight (the decoder's mask), so each sentence's rows
equal its own forced decode's up to float rounding (a test checks 1e-5). About 30× faster than one
pair at a time on a CPU.

The row of step i is α_i, computed from s_{i-1}: the attention the model used to emit y_i.

Shapes: B pairs, S the longest source, T the longest target (pieces, no end-of-sentence row).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import torch

from engine.decoding.translator import Translator
from engine.text.tokenizer import BOS_ID, PAD_ID

BATCH_SIZE = 64


@torch.inference_mode()
def _batch_attention(translator: Translator, sources: Sequence[Sequence[int]], targets: Sequence[Sequence[int]]
                     ) -> list[np.ndarray]:
    model, device = translator.model, translator.device
    source = torch.full((len(sources), max(map(len, sources))), PAD_ID, dtype=torch.long)  # B×S
    target_in = torch.full((len(targets), max(map(len, targets))), PAD_ID, dtype=torch.long)  # B×T: BOS y_1 … y_{T-1}
    for b, (ids, given) in enumerate(zip(sources, targets, strict=True)):
        source[b, :len(ids)] = torch.tensor(ids)
        target_in[b, 0] = BOS_ID
        target_in[b, 1:len(given)] = torch.tensor(given[:-1])
    lengths = torch.tensor([len(ids) for ids in sources])  # B
    encoded = model.encode(source.to(device), lengths)
    embedded = model.decoder.embedding(target_in.to(device))  # B×T×E
    state, rows = encoded.initial_state, []
    for i in range(target_in.size(1)):
        out = model.decoder.step(embedded[:, i], state, encoded)
        state = out.state
        assert out.weights is not None  # an attending model: forced_attention answers None for the others
        rows.append(out.weights)  # B×S
    weights = torch.stack(rows, dim=1).float().cpu().numpy()  # B×T×S
    return [weights[b, :len(given), :len(ids)] for b, (ids, given) in enumerate(zip(sources, targets, strict=True))]


def _check_pairs(sources: Sequence[Sequence[int]], targets: Sequence[Sequence[int]]) -> None:
    """One non-empty target per non-empty source (ValueError says which rule is broken)."""
    if len(sources) != len(targets):
        raise ValueError(f"{len(sources)} sources and {len(targets)} targets: one target per source")
    if any(not ids for ids in sources) or any(not ids for ids in targets):
        raise ValueError("every source and target needs at least one sub-word")


def forced_attention(translator: Translator, sources: Sequence[Sequence[int]], targets: Sequence[Sequence[int]],
                     batch_size: int = BATCH_SIZE) -> list[np.ndarray | None]:
    """For each pair of sub-word id lists (no BOS/EOS; both non-empty), the len(target)×len(source)
    attention of the model fed that target; None for every pair when the model has no attention.
    Pairs are batched by length (sorted), and returned in the order given."""
    _check_pairs(sources, targets)
    if not translator.uses_attention:
        return [None] * len(sources)
    order = sorted(range(len(sources)), key=lambda k: (len(sources[k]), len(targets[k])))
    found: list[np.ndarray | None] = [None] * len(sources)
    for start in range(0, len(order), batch_size):
        chunk = order[start:start + batch_size]
        matrices = _batch_attention(translator, [sources[k] for k in chunk], [targets[k] for k in chunk])
        for k, matrix in zip(chunk, matrices, strict=True):
            found[k] = matrix
    return found
