"""The n-gram repetition constraint: a hypothesis may not produce an n-gram of tokens it already produced.

fairseq's and Hugging Face's ``no_repeat_ngram_size``: before choosing token t+1 of a hypothesis
y_1…y_t, every token w for which (y_{t-n+2}, …, y_t, w) already occurs in y_1…y_t is banned (its
log-probability set to −∞, the others left as they are, not renormalized). Tokens are the target
sub-word ids the search produces (BOS not included; it never recurs, so it could close no n-gram);
n = 1 bans every token already produced. A forced prefix (what-if decoding) is given, never banned,
but its tokens count as produced. ``n`` = 0 turns it off.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch
from torch import Tensor


def banned_tokens(ids: Sequence[int], n: int) -> set[int]:
    """The tokens that would repeat an n-gram of ``ids`` (the hypothesis so far) if produced next."""
    if n <= 0 or len(ids) < n:
        return set()
    tail = tuple(ids[len(ids) - n + 1 :])
    return {ids[i + n - 1] for i in range(len(ids) - n + 1) if tuple(ids[i : i + n - 1]) == tail}


def block_repeats(logp: Tensor, hypotheses: Sequence[Sequence[int]], n: int) -> Tensor:
    """logp: K×V, one row per hypothesis in ``hypotheses`` (their ids so far) → K×V with the banned
    tokens of each row at −∞ (``logp`` itself when nothing is banned, a copy otherwise)."""
    rows, columns = [], []
    for row, ids in enumerate(hypotheses):
        banned = banned_tokens(ids, n)
        rows += [row] * len(banned)
        columns += sorted(banned)
    if not rows:
        return logp
    blocked = logp.clone()
    blocked[torch.tensor(rows, device=logp.device), torch.tensor(columns, device=logp.device)] = -torch.inf
    return blocked
