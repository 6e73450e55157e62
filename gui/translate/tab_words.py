"""The Translate tab's lines made of several messages, and their renewal when the language changes.

The status bar's line on the model in use (scorer, direction, parameters, BLEU, data), an output token's
tooltip (its probability and the top candidates) and the note on a paste the input field cut are put
together from messages and values here. When the interface's language changes, :class:`LanguageRefresh`
(an event filter on the tab) makes the lines that are not one message again: the direction and scorer
boxes, the status line, the input's hint and the step shown in the inspector (gui/retranslate.py rewrites
the rest in place).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from PySide6.QtCore import QCoreApplication, QEvent, QObject
from PySide6.QtGui import QCursor
from PySide6.QtWidgets import QToolTip

from engine.settings import scorer_row  # torch-free
from gui.attention.labels import quoted
from gui.i18n import fill
from gui.scorer_labels import scorer_label
from gui.translate.status import describe_model

if TYPE_CHECKING:
    from engine.decoding import DecodeStep
    from engine.models import ModelBundle
    from engine.records import ModelEntry
    from gui.attention.record import DecodeRecord
    from gui.common.past import PastModel
    from gui.translate.choices import ModelChoices
    from gui.translate.view import TranslateView


class ModelsInUse(Protocol):
    """What the composed lines read of the controller (gui/translate/model_source.py)."""

    @property
    def entry(self) -> ModelEntry | None: ...
    @property
    def loading_entry(self) -> ModelEntry | None: ...
    @property
    def choices(self) -> ModelChoices | None: ...
    @property
    def bundle(self) -> ModelBundle | None: ...
    @property
    def past(self) -> PastModel | None: ...
    @property
    def loading(self) -> bool: ...


class ModelLine(Protocol):
    """The status bar's line on the model in use (gui/translate/status.py)."""

    described: str
    def show_model(self, description: str, folder: str, attribution: str = "") -> None: ...


class InspectedMap(Protocol):
    """What the refresh redraws of the attention panel: the inspector's note on a word's pieces."""

    @property
    def record(self) -> DecodeRecord: ...
    def render_now(self) -> None: ...


def paste_cut_note(text: str, limit: int, pasted: str) -> str:
    """When the input field itself cut a paste (it holds at most ``limit`` characters), the pasted length —
    the clipboard still holds it — instead of the field's limit; "" otherwise."""
    if len(text) < limit or len(pasted) <= len(text) or not pasted.startswith(text[:100]):
        return ""
    return fill(QCoreApplication.translate(
        "TranslateTab", " The pasted text had %1 characters; the input field keeps the first %2."),
        f"{len(pasted):,}", f"{limit:,}")


def output_hovered(view: TranslateView, index: int) -> None:
    """An output token hovered (-1: none): its step previewed on the map, and its tooltip."""
    panel = view.attention_panel
    panel.preview_step(index)
    view.target_output.highlight(index)
    step = panel.record.step(index) if index >= 0 else None
    if step is None:
        QToolTip.hideText()
    else:
        QToolTip.showText(QCursor.pos(), output_tooltip(index, step), view.target_output)


def output_tooltip(index: int, step: DecodeStep) -> str:
    """Output token ``index``: its probability and the step's top candidates."""
    lines = [fill(QCoreApplication.translate("TranslateTab", "Step %1: %2  p = %3"), index, quoted(step.token),
                  f"{step.probability:.3f}"),
             QCoreApplication.translate("TranslateTab", "Top candidates:")]
    lines += [f"  {quoted(a.token)}  {a.probability:.3f}" for a in step.alternatives]
    return "\n".join(lines)


def show_model_line(controller: ModelsInUse, status: ModelLine, bundle: ModelBundle) -> None:
    """The status bar's line on the model in use."""
    entry, choices = controller.entry, controller.choices
    direction = choices.direction_label(entry.direction) if choices and entry else ""
    status.show_model(describe_model(bundle, scorer_label(scorer_row(bundle.scorer)), direction), str(bundle.folder), bundle.attribution)


@dataclass(frozen=True)
class RefreshParts:
    """What the language refresh makes again: the choice boxes, the status line, the input's hint, the map."""

    controller: ModelsInUse
    status: ModelLine
    panel: InspectedMap
    show_choices: Callable[[str | None, str | None], None]  # the direction and scorer boxes
    update_input: Callable[[], None]  # the Translate button and the input's hint


class LanguageRefresh(QObject):
    """Makes the tab's composed lines again in the new language (installed on ``watched``, the tab, as an
    event filter)."""

    def __init__(self, watched: QObject, parts: RefreshParts) -> None:
        super().__init__(watched)
        self.watched, self.parts = watched, parts
        watched.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt's name)
        if watched is self.watched and event.type() == QEvent.Type.LanguageChange:
            self.refresh()
        return False

    def refresh(self) -> None:
        parts, controller = self.parts, self.parts.controller
        entry = controller.loading_entry or controller.entry
        if entry is not None:
            parts.show_choices(entry.direction, entry.scorer)
        if controller.bundle is not None and controller.past is None and not controller.loading:
            parts.status.described = ""
            show_model_line(controller, parts.status, controller.bundle)
        parts.update_input()
        if parts.panel.record.row_count:  # the inspector's note on a word's pieces, made again
            parts.panel.render_now()
