"""What a chapter may declare: its Show me actions and its Try it checks, each a name with typed
parameters (pure Python: no Qt; the fast tier checks every shipped chapter against it).

A chapter file's front matter (gui/lesson/chapter.py) holds ``[[show]]`` tables, each ``do = "<action>"``
with the action's parameters, and ``[[try]]`` tables, each ``check = "<check>"``, ``say = "<the task in
words>"`` and the check's parameters. A name that is not in the tables below, a parameter the action does
not take, a missing one or a value of the wrong type or outside its range is refused with a message that
names the valid choices; the panel shows it on the chapter's line and the other chapters load.

The actions are carried out by the window (gui/window_lesson.py, through the same calls the user's clicks
make); the checks are matched against the events the window reports (gui/lesson/checks.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

TABS = ("translate", "compare", "train")
SCALES = ("unit", "row", "auto")  # gui.attention.color_scale.COLOR_SCALES (a test keeps them equal)
CORPORA = ("dates", "tatoeba")
SPEED_POSITIONS = 10  # gui.translate.controls.SPEED_STEPS (a test keeps them equal)


@dataclass(frozen=True)
class Param:
    """One parameter: its type, whether it must be given, its allowed values or range."""

    kind: type
    required: bool = True
    choices: tuple[str, ...] = ()
    low: int | None = None
    high: int | None = None

    def problem(self, value: Any) -> str:
        """Why ``value`` does not fit ("" when it does)."""
        wrong_type = self._type_problem(value)
        if wrong_type:
            return wrong_type
        if self.choices and value not in self.choices:
            return "one of " + ", ".join(self.choices)
        if self.low is not None and self.high is not None and not self.low <= value <= self.high:
            return f"between {self.low} and {self.high}"
        return ""

    def _type_problem(self, value: Any) -> str:
        if self.kind is int:
            return "" if isinstance(value, int) and not isinstance(value, bool) else "a whole number"
        if isinstance(value, self.kind):
            return ""
        return {str: "text", bool: "true or false"}.get(self.kind, self.kind.__name__)


TEXT, FLAG = Param(str), Param(bool)

# Show me: what the window does, in order; each waits for its effect (a model loaded, a decode finished).
ACTIONS: dict[str, dict[str, Param]] = {
    "open_tab": {"tab": Param(str, choices=TABS)},
    "select_model": {"direction": TEXT, "scorer": TEXT},  # the Translate tab's direction and scorer boxes
    "set_beam": {"size": Param(int, low=1, high=10)},
    "set_speed": {"position": Param(int, low=0, high=SPEED_POSITIONS)},  # 0 fastest … 10: half a second a step
    "word_view": {"on": FLAG},
    "color_scale": {"scale": Param(str, choices=SCALES)},
    "translate": {"text": TEXT, "wait": Param(str, required=False, choices=("finished", "started"))},
    "select_step": {"token": TEXT},  # the first output step whose word is this one
    "open_length_study": {},
    "open_layers": {"kind": Param(str, required=False, choices=("encoder", "decoder", "cross"))},  # a Transformer's
    "compare": {"text": TEXT, "reference": Param(str, required=False)},
    "compare_shared_target": {},  # the Compare tab's maps all forced on one target (the reference)
    "set_attention_mode": {"on": FLAG},  # the what-if bar's "Set attention"
    "open_training": {"corpus": Param(str, choices=CORPORA)},
    "highlight": {"widget": TEXT},  # an objectName; outlined for a moment
}

# Try it: each check is met by one event of the window (gui/lesson/checks.py says which).
CHECKS: dict[str, dict[str, Param]] = {
    "step_selected": {"token": TEXT},
    "cell_clicked": {"token": TEXT, "column": TEXT},  # column: a source word, or "max" (the row's largest α)
    "translated": {"scorer": Param(str, required=False), "direction": Param(str, required=False),
                   "min_tokens": Param(int, required=False, low=1, high=1000)},
    "steered": {"contains": TEXT},  # a decode under a what-if change whose output has this word
    "length_study_opened": {},
    "layers_opened": {},  # the Translate tab's Layers window (a Transformer's layers and heads)
    "compared": {"shared_target": Param(bool, required=False)},
    "aligner_shown": {},
    "tab_shown": {"tab": Param(str, choices=TABS)},
    "speed_at_least": {"position": Param(int, low=0, high=SPEED_POSITIONS)},
    "word_view": {"on": FLAG},
    "training_validated": {},
    "travelled": {},  # a point of a training curve clicked: the app translates with those weights
}


class SchemaError(ValueError):
    """A chapter's declared actions or checks do not fit the tables above."""


def check_entry(kind: str, table: dict[str, dict[str, Param]], entry: Any, key: str,
                extra: tuple[str, ...] = ()) -> tuple[str, dict[str, Any]]:
    """``entry`` (one ``[[show]]`` or ``[[try]]`` table) as (name, parameters); SchemaError says why not.
    ``key`` names the entry's name field ("do", "check"); ``extra`` are other fields it may hold."""
    if not isinstance(entry, dict):
        raise SchemaError(f"each {kind} must be a table with {key} = \"…\"")
    name = entry.get(key)
    if name not in table:
        raise SchemaError(f"unknown {kind} {name!r}: choose one of {', '.join(sorted(table))}")
    params = table[name]
    values = {k: v for k, v in entry.items() if k != key and k not in extra}
    _check_values(kind, name, params, values)
    return name, values


def _check_values(kind: str, name: str, params: dict[str, Param], values: dict[str, Any]) -> None:
    """SchemaError for a parameter ``name`` does not take, a missing one, or a value that does not fit."""
    unknown = sorted(set(values) - set(params))
    if unknown:
        allowed = ", ".join(params) or "none"
        raise SchemaError(f"{kind} {name!r} takes no {unknown[0]!r} (its parameters: {allowed})")
    for field, param in params.items():
        if field not in values:
            if param.required:
                raise SchemaError(f"{kind} {name!r} needs {field!r}")
            continue
        problem = param.problem(values[field])
        if problem:
            raise SchemaError(f"{kind} {name!r}: {field} must be {problem}, not {values[field]!r}")
