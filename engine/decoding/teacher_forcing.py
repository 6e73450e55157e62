"""Teacher forcing at inference: the decoder fed a known target, no search.

When the tokens fed back are known in advance — a target to score (engine.decoding.forced) or a prefix the
output must start with (what-if decoding, engine.decoding.search) — nothing has to be chosen step by step.
The recurrence runs one step at a time (s_i needs s_{i-1}) and the inputs are embedded at once.
By default each step runs exactly the operations of a free decoding step on the same values, the
output layer included, so attention and log-probabilities equal those of the decode that chose the
same tokens, to the last bit. With ``batched_output`` the output layer — the largest product of a
step, which reads the whole V×E matrix from memory each time — runs once over all T steps instead:
about 2–3× faster for long targets, the attention still exact, the log-probabilities equal to
float32 rounding (a product over T rows sums in another order than T products over one row).

Shapes: T forced tokens, S source tokens, V target vocabulary (batch size 1).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import torch
from torch import Tensor

from engine.networks.model import Encoded, EncoderDecoder, State, StepOutput
from engine.text.tokenizer import BOS_ID

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
    head_weights: Tensor | None = None  # T×H×S: each head's α^h_i, for a mechanism of several heads only
    layer_weights: Tensor | None = None  # T×L×H×S: a Transformer's cross-attention, every layer and head
    self_weights: tuple[Tensor, ...] = ()  # per step i: 1×L×H×(i+1), a Transformer decoder's self-attention

    def token_log_probs(self) -> Tensor:
        """(T,) log p(y_i | y_<i, x) of each forced token."""
        index = torch.tensor(self.tokens, device=self.log_probs.device).unsqueeze(1)  # T×1
        return self.log_probs.gather(1, index).squeeze(1)


@torch.no_grad()
def teacher_force(model: EncoderDecoder, encoded: Encoded, tokens: Sequence[int],
                  override_at: OverrideAt | None = None, state: State | None = None,
                  previous: int = BOS_ID, batched_output: bool = False) -> ForcedRun:
    """Feed ``tokens`` (T ≥ 1 ids) to the decoder; ``override_at`` sets α by hand at chosen steps
    (what-if decoding; indices count from this call's first token). ``encoded`` holds one sentence.
    By default the run starts at the beginning (s_0, after BOS); ``state`` and ``previous`` (the
    token fed before ``tokens[0]``) continue a decode that is already under way."""
    decoder = model.decoder
    device = encoded.memory.device
    given = torch.tensor(list(tokens), device=device)  # T
    embedded = decoder.embedding(torch.cat([given.new_tensor([previous]), given[:-1]]))  # T×E
    state = encoded.initial_state if state is None else state
    log_prob_rows, hiddens, contexts, states = [], [], [], []
    rows = _StepRows()
    for index in range(given.numel()):
        step_input = embedded[index : index + 1]  # 1×E
        out = decoder.step(step_input, state, encoded, override_at(index) if override_at is not None else None)
        state = out.state
        states.append(state)
        if batched_output:
            hiddens.append(state[0])
            contexts.append(out.context)
        else:
            log_prob_rows.append(torch.log_softmax(decoder.logits(state[0], out.context, step_input), dim=-1))  # 1×V
        rows.add(out)
    if batched_output:
        log_prob_rows = [torch.log_softmax(decoder.logits(torch.cat(hiddens), torch.cat(contexts), embedded), dim=-1)]
    return ForcedRun(
        tokens=tuple(int(t) for t in tokens), log_probs=torch.cat(log_prob_rows),  # T×V
        weights=_joined(rows.weights), scores=_joined(rows.scores),
        model_weights=tuple(rows.model), states=tuple(states), head_weights=_joined(rows.heads),
        layer_weights=_joined(rows.layers), self_weights=tuple(rows.own),
    )


@dataclass
class _StepRows:
    """What each forced step's decoder output held, one list per kind (a kind the model lacks stays empty)."""

    weights: list[Tensor] = field(default_factory=list)  # 1×S each
    scores: list[Tensor] = field(default_factory=list)  # 1×S each
    model: list[Tensor | None] = field(default_factory=list)  # the model's own row (S), one per step
    heads: list[Tensor] = field(default_factory=list)  # 1×H×S each
    layers: list[Tensor] = field(default_factory=list)  # 1×L×H×S each
    own: list[Tensor] = field(default_factory=list)  # 1×L×H×(i+1) each: the decoder's self-attention

    def add(self, out: StepOutput) -> None:
        if out.weights is not None:
            assert out.scores is not None  # a step with α has its scores e_ij
            self.weights.append(out.weights)
            self.scores.append(out.scores)
        self.model.append(out.model_weights[0] if out.model_weights is not None else None)
        if out.head_weights is not None:
            self.heads.append(out.head_weights)
        if out.layer_weights is not None:
            assert out.self_weights is not None  # a Transformer's step has both kinds
            self.layers.append(out.layer_weights)
            self.own.append(out.self_weights)


def _joined(rows: list[Tensor]) -> Tensor | None:
    """T rows of 1×… → T×…; None when no step had one (the fixed-context scorer, a single head)."""
    return torch.cat(rows) if rows else None
