"""Teacher forcing at inference: the decoder fed a known target in one pass.

When the tokens fed back are known in advance — a target to score (engine.forced) or a prefix the
output must start with (what-if decoding, engine.search) — nothing has to be chosen step by step.
The recurrence still runs one step at a time (s_i needs s_{i-1}), but the inputs are embedded at
once and the output layer, the largest product of a step (pre-output × V), runs once over all T
steps afterwards. The attention of every step is exactly that of a step-by-step decode (the same
operations on the same values); the log-probabilities agree to float32 rounding.

Shapes: T forced tokens, S source tokens, V target vocabulary (batch size 1).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import torch
from torch import Tensor

from engine.model import Encoded, Seq2Seq, State
from engine.tokenizer import BOS_ID

OverrideAt = Callable[[int], "Tensor | None"]  # step index → a 1×S override of α_i, or None


@dataclass(frozen=True)
class ForcedRun:
    """What the decoder computed while fed ``tokens``."""

    tokens: tuple[int, ...]  # the forced tokens y_1..y_T
    log_probs: Tensor  # T×V: log p(· | y_<i, x) at each step
    weights: Tensor | None  # T×S: α_i (the override where one was given); None for the fixed context
    scores: Tensor | None  # T×S: raw e_ij
    model_weights: tuple[Tensor | None, ...]  # per step: the model's own α_i (S,) where it was overridden
    states: tuple[State, ...]  # s_1..s_T: the decoder state after each step (the last: where decoding continues)

    def token_log_probs(self) -> Tensor:
        """(T,) log p(y_i | y_<i, x) of each forced token."""
        index = torch.tensor(self.tokens, device=self.log_probs.device).unsqueeze(1)  # T×1
        return self.log_probs.gather(1, index).squeeze(1)


@torch.no_grad()
def teacher_force(model: Seq2Seq, encoded: Encoded, tokens: Sequence[int],
                  override_at: OverrideAt | None = None, state: State | None = None,
                  previous: int = BOS_ID) -> ForcedRun:
    """Feed ``tokens`` (T ≥ 1 ids) to the decoder; ``override_at`` sets α by hand at chosen steps
    (what-if decoding; indices count from this call's first token). ``encoded`` holds one sentence.
    By default the run starts at the beginning (s_0, after BOS); ``state`` and ``previous`` (the
    token fed before ``tokens[0]``) continue a decode that is already under way."""
    decoder = model.decoder
    device = encoded.memory.device
    given = torch.tensor(list(tokens), device=device)  # T
    embedded = decoder.embedding(torch.cat([given.new_tensor([previous]), given[:-1]]))  # T×E
    state = encoded.initial_state if state is None else state
    hiddens, contexts, weight_rows, score_rows, model_rows, states = [], [], [], [], [], []
    for index in range(given.numel()):
        out = decoder.step(embedded[index : index + 1], state, encoded,
                           override_at(index) if override_at is not None else None)
        state = out.state
        states.append(state)
        hiddens.append(state[0])
        contexts.append(out.context)
        if out.weights is not None:
            weight_rows.append(out.weights)
            score_rows.append(out.scores)
        model_rows.append(out.model_weights[0] if out.model_weights is not None else None)
    logits = decoder.logits(torch.cat(hiddens), torch.cat(contexts), embedded)  # T×V
    return ForcedRun(
        tokens=tuple(int(t) for t in tokens), log_probs=torch.log_softmax(logits, dim=-1),
        weights=torch.cat(weight_rows) if weight_rows else None,
        scores=torch.cat(score_rows) if score_rows else None,
        model_weights=tuple(model_rows), states=tuple(states),
    )
