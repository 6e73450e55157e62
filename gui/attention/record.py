"""What one decoding run has shown so far: tokens, the attention rows and each step's details.

Pure Python and numpy (no Qt), so it is cheap to update on every step and easy to test. In beam
search the best hypothesis can change between steps: each step carries the whole hypothesis so
far, and the record takes its tokens and attention matrix from there, never by appending.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from engine.decoding import DecodeStep, Translation
    from engine.settings import ScorerInfo


@dataclass
class DecodeRecord:
    """Source tokens, output tokens and the attention matrix of the run on screen."""

    source_tokens: tuple[str, ...] = ()
    uses_attention: bool = True
    scorer: ScorerInfo | None = None  # the mechanism's registry row (engine.settings.scorer_row); None: not named
    target_tokens: list[str] = field(default_factory=list)
    steps: list[DecodeStep] = field(default_factory=list)  # per output position, of the shown hypothesis
    events: list[DecodeStep] = field(default_factory=list)  # every step taken in, in order (what a session keeps)
    matrix: np.ndarray = field(default_factory=lambda: np.zeros((0, 0), np.float32))
    finished: bool = False

    def __post_init__(self) -> None:
        self.matrix = np.zeros((0, len(self.source_tokens)), np.float32)

    @property
    def row_count(self) -> int:
        return len(self.target_tokens)

    def add(self, step: DecodeStep) -> None:
        """Take in one decoding step (its hypothesis replaces whatever was shown before)."""
        self.target_tokens = list(step.hypothesis_tokens)
        self.steps = [*step.previous_steps, step]
        self.events.append(step)
        if step.hypothesis_attention is not None:
            self.matrix = np.asarray(step.hypothesis_attention, dtype=np.float32)

    def finish(self, translation: Translation) -> None:
        """The search's final choice (in beam search it may differ from the last step shown)."""
        self.finished = True
        if translation.empty:
            return
        self.target_tokens = list(translation.tokens)
        if translation.steps:
            self.steps = list(translation.steps)
        if translation.attention is not None:
            self.matrix = np.asarray(translation.attention, dtype=np.float32)

    def attention(self) -> np.ndarray:
        """Rows = output tokens shown so far, columns = source tokens (0 rows without attention)."""
        if not self.uses_attention:
            return np.zeros((0, len(self.source_tokens)), np.float32)
        return self.matrix.copy()

    def step(self, index: int) -> DecodeStep | None:
        """The step that produced output token ``index``, when it belongs to the shown hypothesis."""
        if not 0 <= index < len(self.steps):
            return None
        step = self.steps[index]
        if index >= len(self.target_tokens) or step.token != self.target_tokens[index]:
            return None
        return step

    def row(self, index: int) -> np.ndarray | None:
        """α_i, the attention row of output token ``index``."""
        if not self.uses_attention or not 0 <= index < self.matrix.shape[0]:
            return None
        return self.matrix[index]
