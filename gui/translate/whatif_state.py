"""What the user has changed in a decode (what-if decoding), without Qt or torch.

Three kinds of change, all undone together by *Undo what-if*:

- a **correction typed** as the start of the output (text: the engine cuts it into sub-words);
- an **alternative picked** at step i: the output's first i tokens, then that token (ids, exact);
- **attention set by hand** at step i: all of it on one source token (a click), or shared equally
  by several (shift-click adds a token).

The Translate tab keeps one :class:`WhatIf` per sentence; a new sentence starts from none.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from PySide6.QtCore import QCoreApplication


@dataclass(frozen=True)
class WhatIf:
    prefix_text: str = ""  # a typed correction
    prefix_ids: tuple[int, ...] | None = None  # a picked alternative: exact ids (wins over the text)
    overrides: dict[int, tuple[int, ...]] = field(default_factory=dict)  # step → source positions sharing α

    @property
    def active(self) -> bool:
        return bool(self.prefix_text.strip() or self.prefix_ids or self.overrides)

    def with_prefix_text(self, text: str) -> WhatIf:
        return replace(self, prefix_text=text, prefix_ids=None)

    def with_alternative(self, output_ids: Sequence[int], step: int, token_id: int) -> WhatIf:
        """Keep the output's first ``step`` tokens, then ``token_id``; the model continues after it."""
        return replace(self, prefix_text="", prefix_ids=tuple(int(i) for i in output_ids[:step]) + (int(token_id),))

    def with_attention(self, step: int, position: int, add: bool = False) -> WhatIf:
        """All of step ``step``'s attention on ``position`` (``add``: share it with the ones already set;
        adding a position already set removes it)."""
        overrides = dict(self.overrides)
        current = overrides.get(step, ()) if add else ()
        positions = tuple(p for p in current if p != position) if position in current else current + (position,)
        if positions:
            overrides[step] = tuple(sorted(positions))
        else:
            overrides.pop(step, None)
        return replace(self, overrides=overrides)

    def with_attention_on(self, steps: Sequence[int], positions: Sequence[int], add: bool = False) -> WhatIf:
        """All the attention of each of ``steps`` shared by ``positions`` (an output word's pieces on a source
        word's pieces: the word then shows the weight given, not its pieces' average); ``add``: shared with the
        ones already set, or taken out again when every one of them is set already."""
        overrides = dict(self.overrides)
        for step in steps:
            current = overrides.get(step, ()) if add else ()
            if add and all(p in current for p in positions):
                chosen = tuple(p for p in current if p not in positions)
            else:
                chosen = tuple(sorted(set(current) | set(positions)))
            if chosen:
                overrides[step] = chosen
            else:
                overrides.pop(step, None)
        return replace(self, overrides=overrides)

    def override_weights(self) -> dict[int, dict[int, float]]:
        """{step: {position: weight}} for the engine (equal shares, renormalized there)."""
        return {step: dict.fromkeys(positions, 1.0) for step, positions in self.overrides.items()}

    def describe(self, source_tokens: Sequence[str]) -> str:
        """One line for the what-if bar."""
        parts = []
        if self.prefix_ids:
            parts.append(QCoreApplication.translate(
                "WhatIf", "the first %1 tokens are given (an alternative picked)").replace("%1", str(len(self.prefix_ids))))
        elif self.prefix_text.strip():
            parts.append(QCoreApplication.translate("WhatIf", "the output must start with “%1”").replace(
                "%1", self.prefix_text.strip()))
        for step, positions in sorted(self.overrides.items()):
            names = ", ".join(source_tokens[p].replace("\u2581", " ").strip() or "▁" for p in positions
                              if 0 <= p < len(source_tokens))
            parts.append(QCoreApplication.translate("WhatIf", "step %1 attends to %2").replace("%1", str(step))
                         .replace("%2", names))
        return QCoreApplication.translate("WhatIf", "What-if: %1.").replace("%1", "; ".join(parts)) if parts else ""
