"""Which models back the direction and scorer choices (no widgets, no torch; labels in the interface's language).

Every direction that has at least one model is offered. For the current direction every scorer of
the registry is listed (its rows as they are when asked: a row added to engine.settings.SCORER_TABLE is
offered with no other change); each is backed by the newest model with that scorer, and a scorer without a
model is offered disabled with the reason. A folder given on the command line wins its slot.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from PySide6.QtCore import QCoreApplication

from engine.settings import SCORER_TABLE, ScorerInfo  # torch-free
from gui.common.directions import LANGUAGE_NAMES, direction_label, label_of_direction, language_name  # noqa: F401
from gui.i18n import fill
from gui.scorer_labels import scorer_label

if TYPE_CHECKING:
    from engine.records import ModelEntry

DIRECTION_ORDER = ("zh-en", "en-zh", "dates-src-iso")  # known directions first, others after
PREFERRED_SCORER = "additive"


@dataclass(frozen=True)
class ScorerOption:
    """One row of the scorer list for a direction."""

    row: ScorerInfo  # the scorer's registry row: its name (the choice's key), its label and formula
    entry: ModelEntry | None  # the model that backs it; None when there is none
    reason: str  # why it is disabled ("" when enabled)

    @property
    def name(self) -> str:
        """The registry name, e.g. "additive"."""
        return self.row.name

    @property
    def label(self) -> str:
        """The registry's label (English), e.g. "Additive (Bahdanau)"; shown through gui.scorer_labels."""
        return self.row.label

    @property
    def enabled(self) -> bool:
        return self.entry is not None


class ModelChoices:
    """The catalog seen as direction × scorer choices."""

    def __init__(self, entries: Iterable[ModelEntry], pinned: ModelEntry | None = None) -> None:
        self.entries = list(entries)
        self.pinned = pinned
        self._best: dict[tuple[str, str], ModelEntry] = {}
        self._languages: dict[str, tuple[str, str]] = {}
        for entry in sorted(self.entries, key=lambda e: e.modified):
            self._best[(entry.direction, entry.scorer)] = entry  # later (newer) wins
            self._languages[entry.direction] = (entry.source_language, entry.target_language)
        if pinned is not None:
            self._best[(pinned.direction, pinned.scorer)] = pinned
            self._languages[pinned.direction] = (pinned.source_language, pinned.target_language)

    @property
    def empty(self) -> bool:
        return not self._best

    def directions(self) -> list[tuple[str, str]]:
        """(direction key, label) of every direction with a model, known directions first."""
        keys = sorted(self._languages, key=lambda d: (DIRECTION_ORDER.index(d) if d in DIRECTION_ORDER
                                                      else len(DIRECTION_ORDER), d))
        return [(key, direction_label(*self._languages[key])) for key in keys]

    def direction_label(self, direction: str) -> str:
        languages = self._languages.get(direction)
        return direction_label(*languages) if languages else direction

    def source_language(self, direction: str) -> str:
        return self._languages.get(direction, ("", ""))[0]

    def direction_from(self, source_language: str, preferred_target: str = "") -> str | None:
        """A direction whose models read ``source_language``: the one into ``preferred_target``
        when there is one, else the first listed; None when no model reads it."""
        keys = [key for key, _ in self.directions() if self._languages[key][0] == source_language]
        preferred = [key for key in keys if self._languages[key][1] == preferred_target]
        return (preferred or keys or [None])[0]

    def best(self, direction: str, scorer: str) -> ModelEntry | None:
        return self._best.get((direction, scorer))

    def options(self, direction: str) -> list[ScorerOption]:
        """Every scorer of the registry for ``direction``, in the registry's order."""
        options = []
        for row in SCORER_TABLE.values():
            entry = self.best(direction, row.name)
            reason = "" if entry else fill(QCoreApplication.translate(
                "ModelChoices", "No %1 model with the %2 scorer yet: train one in the Train tab."),
                self.direction_label(direction), scorer_label(row))
            options.append(ScorerOption(row, entry, reason))
        return options

    def scorer_for(self, direction: str, wanted: str) -> str | None:
        """``wanted`` if it has a model in ``direction``, else additive, else any scorer that has one."""
        for name in (wanted, PREFERRED_SCORER, *SCORER_TABLE):
            if self.best(direction, name) is not None:
                return name
        return None

    def initial(self, direction: str | None, scorer: str | None,
                fallback: ModelEntry | None) -> ModelEntry | None:
        """The model to open at start: the pinned folder, else the remembered choice, else ``fallback``."""
        if self.pinned is not None:
            return self.pinned
        if direction and scorer and self.best(direction, scorer) is not None:
            return self.best(direction, scorer)
        if direction and (name := self.scorer_for(direction, scorer or PREFERRED_SCORER)):
            return self.best(direction, name)
        return fallback
