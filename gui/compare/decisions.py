"""What the Compare tab decides, as functions of plain values: which status it shows, which choices its
boxes offer and keep, which panels a run starts, what the step inspector shows after an event, and what a
click on a training curve (travel) or Back changes. gui/compare/tab.py asks, then applies the answer to
its widgets; the status texts themselves stay there (translated in the tab's own context).

No widgets: tests/gui/compare/test_decisions.py calls every function on plain values.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import Protocol

from engine.settings import ScorerInfo  # torch-free
from gui.compare.model import OUTPUT_PREFIX, OWN_OUTPUTS, REFERENCE

NOT_INSPECTED: tuple[str, int] = ("", -1)  # (scorer, step) when the step inspector shows nothing
DEFAULT_DIRECTION = "zh-en"  # when neither the caller nor the Translate tab names one


class Slot(Protocol):
    """What the decisions read of a panel's slot (gui/compare/model.py's PanelSlot)."""

    @property
    def scorer(self) -> str: ...

    @property
    def label(self) -> str: ...

    @property
    def usable(self) -> bool: ...

    @property
    def row(self) -> ScorerInfo: ...  # the scorer's registry row (whether it attends)

    @property
    def entry(self): ...  # the model's catalog entry (its ``source_language``), None without one


class Status(Enum):
    """The Compare tab's status lines (their texts: CompareTab.status_text)."""

    TYPE_FIRST = "type first"  # Compare with an empty sentence
    NOTHING_TO_COMPARE = "nothing"  # a sentence with nothing a model can read (control characters only)
    LOADING = "loading"
    NO_MODEL = "no model"
    READY = "ready"
    DECODING = "decoding"
    DONE_OWN = "done own"  # each map shows its scorer's own output
    DONE_SHARED = "done shared"  # every map shows the same target
    SCORING = "scoring"  # a shared target forced on every model
    LONG_INPUT = "long input"  # said after a run's status: what was cut from a long input


class InspectorMove(Enum):
    """What the step inspector does when a panel's rows are replaced."""

    KEEP = "keep"  # it shows another panel's step (or nothing): unchanged
    SHOW = "show"  # the same step of the new rows, shown again
    CLEAR = "clear"  # the new rows have no such step: emptied


def compare_refusal(text: str, empty_notice: str | None) -> Status | None:
    """Why Compare does nothing with ``text`` (None: it runs). ``empty_notice`` is what the models' reading
    of the sentence says when nothing of it is left (engine PreparedSource.notice), None when something is."""
    if not text.strip():
        return Status.TYPE_FIRST
    return Status.NOTHING_TO_COMPARE if empty_notice is not None else None


def slots_status(loading: bool) -> Status:
    """The status once a direction's panels are placed: its models load, or it has none."""
    return Status.LOADING if loading else Status.NO_MODEL


def finished_status(target_choice: str) -> Status:
    """The status when a run is over: each map its own output, or one target shared by every map."""
    return Status.DONE_OWN if target_choice == OWN_OUTPUTS else Status.DONE_SHARED


def run_status_text(text: str, input_notice: str) -> str:
    """A run's status ``text`` followed by what was cut from a long input ("" when nothing was)."""
    return f"{text} {input_notice}" if input_notice else text


def long_input_notices(notices: Iterable[str]) -> str:
    """The models' notices of a cut input, each once, in order ("" when no model cut it)."""
    return "; ".join(sorted(set(notices)))


def difference_scorers(slots: Sequence[Slot]) -> list[tuple[str, str]]:
    """(scorer, label) the difference map can subtract: the attention scorers backed by a model."""
    return [(s.scorer, s.label) for s in slots if s.usable and s.row.uses_attention]  # as its registry row says


def direction_choices(known: Sequence[str], current: str) -> list[str]:
    """The direction box's choices: the catalog's directions (else just ``current``), with ``current``
    listed even when no model of the catalog has it (a run's earlier weights back the panels)."""
    directions = list(known) or [current]
    return directions if current in directions else [*directions, current]


def examples_language(slots: Sequence[Slot]) -> str:
    """The source language of the direction's models (its example sentences); "" when none is loaded."""
    return next((s.entry.source_language for s in slots if s.entry is not None), "")


def kept_target(keys: Sequence[str], current: str | None) -> str:
    """The target choice kept when the offered ``keys`` change: ``current`` while offered, else the first."""
    if current in keys:
        return current
    return keys[0] if keys else OWN_OUTPUTS


def shared_target_offer(offered: Collection[str], first_scorer: str | None, first_has_rows: bool,
                        busy: bool) -> str | None:
    """The shared target the difference panel offers once a run is over: the reference when there is one,
    else the output of its first scorer (when that has one); None while a run is under way."""
    if busy or first_scorer is None:
        return None
    if REFERENCE in offered:
        return REFERENCE
    key = OUTPUT_PREFIX + first_scorer
    return key if key in offered and first_has_rows else None


def forced_problem(numbers_text: str, notice: str) -> str:
    """What a panel says under a forced target the model could not read whole ("" when it could)."""
    return f"{numbers_text} — {notice}" if notice else ""


def inspector_after_rows(inspected: tuple[str, int], scorer: str, has_step: bool) -> InspectorMove:
    """``scorer``'s panel has new rows; the inspector showed ``inspected``, and the new rows have that step
    (``has_step``) or not."""
    if inspected[0] != scorer or not scorer:
        return InspectorMove.KEEP
    return InspectorMove.SHOW if has_step else InspectorMove.CLEAR


@dataclass(frozen=True)
class Travel:
    """What the tab does with a click on a training curve or with its first showing: the earlier weights
    to load now (``send``), and the click it keeps until the tab is first shown (``waiting``)."""

    send: tuple[Path, float] | None
    waiting: tuple[Path, float] | None


def travel_to(started: bool, folder: Path, step: float) -> Travel:
    """A click on a training curve: loaded at once once the models were started, else kept for then (no
    model loads for a tab not looked at)."""
    return Travel((folder, step), None) if started else Travel(None, (folder, step))


def first_load(started: bool, closed: bool, asked: str | None, given: str | None,
               waiting: tuple[Path, float] | None) -> tuple[str, Travel] | None:
    """The direction the models load in when the tab is first shown (``asked``, else the one the tab was
    ``given``, else zh-en) and the waiting click to send then; None when they were started or the tab closed."""
    if started or closed:
        return None
    return asked or given or DEFAULT_DIRECTION, Travel(waiting, None)
