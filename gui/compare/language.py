"""The Compare tab in the interface's language after a switch (``QEvent.LanguageChange``).

A text made of one message is rewritten by gui/retranslate.py; the texts made of several — a panel's
title (its scorer's label beside the formula), its figures, a disabled panel's reason, the direction
box, the difference boxes and the target choices — are made again here from what they show, so the
maps, the decode and the choices on screen stay as they are.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from PySide6.QtCore import QCoreApplication

from gui.compare.decisions import difference_scorers
from gui.compare.model import PanelSlot, missing_model, panel_title
from gui.compare.tab_widgets import INSPECTOR_HINT

if TYPE_CHECKING:
    from gui.compare.tab import CompareTab


def relabelled(slot: PanelSlot, direction: str) -> PanelSlot:
    """``slot`` with a disabled panel's reason in the interface's language (its label is asked anew)."""
    reason = missing_model(slot.label, direction) if slot.reason and slot.entry is None and not slot.past else slot.reason
    return replace(slot, reason=reason)


def retranslate_compare(tab: CompareTab) -> None:
    """Make the Compare tab's composite texts again in the interface's language."""
    controller = tab.controller
    controller.slots = [relabelled(slot, controller.direction) for slot in controller.slots]
    for slot in controller.slots:
        if (panel := tab.panels.get(slot.scorer)) is not None:
            _relabel_panel(panel, slot)
    tab.show_directions(controller.directions(), controller.direction)
    _relabel_difference(tab)
    tab._fill_targets()
    tab.inspector.hint = QCoreApplication.translate("CompareWidgets", INSPECTOR_HINT)
    if controller.run is not None:  # before any comparison the difference map has nothing to say
        tab._update_difference()


def _relabel_panel(panel, slot: PanelSlot) -> None:
    """A scorer's panel: its slot, title, and its reason (disabled) or its numbers again."""
    panel.slot = slot
    panel.title.setText(panel_title(slot))
    if slot.row.brief_formula:
        panel.title.setToolTip(slot.formula)  # the whole formula, its words in the new language
    if not slot.usable:
        panel.disable(slot.reason)
    elif panel.shown_numbers is not None:
        panel.numbers.setText(panel.shown_numbers.text())
        panel.numbers.setToolTip(panel.shown_numbers.tooltip())


def _relabel_difference(tab: CompareTab) -> None:
    """The difference map's two scorer choices offered again under their new labels, the choices kept."""
    chosen = (tab.difference.first.currentData(), tab.difference.second.currentData())
    tab.difference.set_scorers(difference_scorers(tab.controller.slots))
    for box, key in zip((tab.difference.first, tab.difference.second), chosen, strict=True):
        if box.findData(key) >= 0:
            box.setCurrentIndex(box.findData(key))
