"""No empty translation: every search bans ``</s>`` as a hypothesis' first token.

Beam search ranks finished hypotheses by log p / lp(length). With a weak length normalisation
(GNMT's α near 0) that is close to the raw log-probability, and for a long input the one-token
hypothesis ``</s>`` — a single, if unlikely, step — can outscore every whole translation, which
pays a little log-probability at each of its many tokens: the output comes back empty. This is
the empty-translation problem of beam search (Stahlberg & Byrne 2019, "On NMT Search Errors and
Model Errors: Cat Got Your Tongue?"). Greedy search meets it more rarely, when ``</s>`` is the
most likely first token.

So no search path (greedy, batched greedy, the live beam, the batched beam, what-if decoding) lets
a hypothesis end before its first token, as fairseq's ``--min-len 1`` does: at a hypothesis' first
token the log-probability of ``</s>`` is set to −∞ and the other tokens are left as they are (not
renormalized, as the n-gram constraint does; the step inspector's alternatives are then those of
the constrained distribution, without ``</s>``). A forced prefix (what-if decoding) is given, never
banned — a user may force ``</s>`` first — and once a prefix is given the hypothesis is no longer empty.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch
from torch import Tensor

from engine.text.tokenizer import EOS_ID


def forbid_empty_end(logp: Tensor, produced: Sequence[int]) -> Tensor:
    """logp: K×V, one row per hypothesis; produced: K, the tokens each hypothesis has so far → K×V
    with ``</s>`` at −∞ in every row whose hypothesis is still empty (``logp`` itself when none is,
    a copy otherwise)."""
    empty = [row for row, count in enumerate(produced) if count == 0]
    if not empty:
        return logp
    constrained = logp.clone()
    constrained[torch.tensor(empty, device=logp.device), EOS_ID] = -torch.inf
    return constrained


def forbid_first_end(logp: Tensor) -> Tensor:
    """logp: K×V, the first token of K hypotheses that all start empty → K×V with ``</s>`` at −∞ (a copy)."""
    return forbid_empty_end(logp, [0] * logp.size(0))
