"""Try it, checked live: a chapter's checks matched, in order, against the events the window reports
(pure Python: no Qt; the window's side is gui/window_lesson.py).

An event is a kind and a dict of plain values; the window reports (see ``EVENT_OF``):

- ``step_selected`` {word}: an output step chosen (a map row or an output token clicked);
- ``cell_clicked`` {word, source, is_max}: a map cell clicked — its output word, its source word, and
  whether it holds the row's largest α;
- ``translated`` {direction, scorer, source_tokens, words, steered}: a decode finished in the Translate tab
  (``steered``: under a what-if change);
- ``length_study_opened`` {}, ``layers_opened`` {} (a Transformer's Layers window), ``compared`` {shared_target}, ``aligner_shown`` {}, ``tab_shown`` {tab},
  ``speed`` {position}, ``word_view`` {on}, ``validated`` {} (a training run's validation),
  ``travelled`` {} (a training curve clicked: the app translates with those weights).

Checks are met one after the other: a check counts only once the ones before it are met, so "choose
the step, then click its strongest cell" is done only in that order.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from gui.lesson.chapter import Check

EVENT_OF = {"steered": "translated", "speed_at_least": "speed", "training_validated": "validated"}


def same_word(a: Any, b: Any) -> bool:
    """Words compared as a learner reads them: without SentencePiece's ▁, case and end punctuation."""
    def norm(word: Any) -> str:
        return str(word).replace("▁", "").strip().strip(".,!?;:。，！？").casefold()
    return bool(norm(a)) and norm(a) == norm(b)


def _translated(params: Mapping[str, Any], data: Mapping[str, Any]) -> bool:
    if data.get("steered"):
        return False
    return (params.get("scorer", data.get("scorer")) == data.get("scorer")
            and params.get("direction", data.get("direction")) == data.get("direction")
            and int(data.get("source_tokens", 0)) >= int(params.get("min_tokens", 1)))


MATCHERS: dict[str, Callable[[Mapping[str, Any], Mapping[str, Any]], bool]] = {
    "step_selected": lambda p, d: same_word(p["token"], d.get("word")),
    "cell_clicked": lambda p, d: same_word(p["token"], d.get("word")) and (
        bool(d.get("is_max")) if p["column"] == "max" else same_word(p["column"], d.get("source"))),
    "translated": _translated,
    "steered": lambda p, d: bool(d.get("steered")) and any(same_word(p["contains"], w) for w in d.get("words", ())),
    "length_study_opened": lambda p, d: True,
    "layers_opened": lambda p, d: True,
    "compared": lambda p, d: not p.get("shared_target") or bool(d.get("shared_target")),
    "aligner_shown": lambda p, d: True,
    "tab_shown": lambda p, d: p["tab"] == d.get("tab"),
    "speed_at_least": lambda p, d: int(d.get("position", -1)) >= p["position"],
    "word_view": lambda p, d: bool(d.get("on")) == p["on"],
    "training_validated": lambda p, d: True,
    "travelled": lambda p, d: True,
}


def matches(check: Check, kind: str, data: Mapping[str, Any]) -> bool:
    """Whether the event (``kind``, ``data``) meets ``check``."""
    return EVENT_OF.get(check.name, check.name) == kind and MATCHERS[check.name](check.params, data)


class TryProgress:
    """How far a chapter's Try it has come: the first ``met`` checks are met."""

    def __init__(self, checks: Sequence[Check], met: int = 0) -> None:
        self.checks = tuple(checks)
        self.met = max(0, min(met, len(self.checks)))

    @property
    def done(self) -> bool:
        return bool(self.checks) and self.met == len(self.checks)

    @property
    def current(self) -> Check | None:
        """The check waiting to be met (None when all are)."""
        return self.checks[self.met] if self.met < len(self.checks) else None

    def observe(self, kind: str, data: Mapping[str, Any]) -> bool:
        """Take one event; True when it met the current check."""
        check = self.current
        if check is None or not matches(check, kind, data):
            return False
        self.met += 1
        return True

    def reset(self) -> None:
        self.met = 0
