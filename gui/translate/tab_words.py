"""The Translate tab's lines made of several messages, and their renewal when the language changes.

The status bar's line on the model in use (scorer, direction, parameters, BLEU, data), an output token's
tooltip (its probability and the top candidates) and the note on a paste the input field cut are put
together from messages and values here. When the interface's language changes, :class:`LanguageRefresh`
(an event filter on the tab) makes the lines that are not one message again: the direction and scorer
boxes, the status line, the input's hint and the step shown in the inspector (gui/retranslate.py rewrites
the rest in place).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QCoreApplication, QEvent, QObject
from PySide6.QtGui import QCursor
from PySide6.QtWidgets import QToolTip

from gui.attention.labels import quoted
from gui.i18n import fill
from gui.scorer_labels import scorer_label
from gui.translate.status import describe_model

if TYPE_CHECKING:
    from engine.decoding import DecodeStep
    from engine.models import ModelBundle
    from gui.translate.tab import TranslateTab
    from gui.translate.view import TranslateView


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


def show_model_line(tab: TranslateTab, bundle: ModelBundle) -> None:
    """The status bar's line on the model in use."""
    entry, choices = tab.controller.entry, tab.controller.choices
    label = tab.controller.scorers.get(bundle.scorer, (bundle.scorer, ""))[0]
    direction = choices.direction_label(entry.direction) if choices and entry else ""
    tab.status.show_model(describe_model(bundle, scorer_label(label), direction), str(bundle.folder),
                          bundle.attribution)


class LanguageRefresh(QObject):
    """Makes the tab's composed lines again in the new language (installed on the tab as an event filter)."""

    def __init__(self, tab: TranslateTab) -> None:
        super().__init__(tab)
        self.tab = tab
        tab.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt's name)
        if watched is self.tab and event.type() == QEvent.Type.LanguageChange:
            self.refresh()
        return False

    def refresh(self) -> None:
        tab, controller = self.tab, self.tab.controller
        entry = controller.loading_entry or controller.entry
        if entry is not None:
            tab._show_choices(entry.direction, entry.scorer)
        if controller.bundle is not None and controller.past is None and not controller.loading:
            tab.status.described = ""
            show_model_line(tab, controller.bundle)
        tab.update_input_state()
        if tab.view.attention_panel.record.row_count:  # the inspector's note on a word's pieces, made again
            tab.view.attention_panel.render_now()
