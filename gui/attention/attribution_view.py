"""The attention panel's attribution mode: what the map shows (α or an attribution, gui/attention/map_choice.py),
the attributions of the run on screen, the bars of the source share beside the map
(gui/attention/source_share.py) and the inspector's α-beside-attribution part
(gui/attention/attribution_inspect.py).

The panel (gui/attention/panel.py) owns one :class:`AttributionView`; whoever computes the attributions (the
Translate tab's gui/translate/explain_link.py) hands them in with :meth:`AttributionView.add` as they come
and reports progress. The panel's contract accessors (``attention()``, ``source_tokens()``,
``target_tokens()``, ``stepShown``) keep their meaning: they are α's, whatever the map shows.

Colours: an attribution is signed, so the map uses a diverging scale centred on 0 (blue −, white 0, red +)
from −m to +m, m the largest |value| of the map; its colour bar names the method and m. The Colours box's
*Per row* divides each row by its own largest |value| instead (the shape of every step on a long input; the
values read on hover, exported and in the inspector stay the attribution's own). Word view: a source word's attribution is the sum of its
pieces', an output word's row the mean of its pieces' rows, exactly as α is merged.

A model without attention (``none``): the map has nothing to show for α, so the panel's note says that an
attribution is the only explanation there is and the chooser draws it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QCoreApplication, QObject, Signal

from gui.attention.attribution_inspect import AttributionSection
from gui.attention.attribution_math import (
    ALPHA,
    DIVERGING_MAP,
    SHORT_NAMES,
    AttributionStore,
    DivergingScale,
    StepAttributionLike,
    attribution_json,
    merge_word_rows,
)
from gui.attention.heatmap import COLOR_MAP, HeatmapView
from gui.attention.map_choice import MapChoice, method_label
from gui.attention.no_attention import no_attention_note
from gui.attention.source_share import ShareColumn

if TYPE_CHECKING:
    from gui.attention.map_units import MapUnits
    from gui.attention.panel import AttentionPanel


def diverging_scale(method: str, per_row: bool) -> DivergingScale:
    """The colours of ``method``'s map, its colour bar's words in the interface's language."""
    name = SHORT_NAMES[method]
    return DivergingScale(
        QCoreApplication.translate("AttributionView", "%1 (blue −, red +; ±%2 = map max |a|)").replace(
            "%1", name).replace("%2", "%1"),
        QCoreApplication.translate("AttributionView", "%1 ÷ row max |a| (blue −, red +)").replace("%1", name), per_row)


def diverging_colours(heatmap: HeatmapView, scale: DivergingScale) -> None:
    """Colour ``heatmap`` by ``scale`` on the diverging colour map (set only when it changes)."""
    if heatmap.color_scale != scale:
        if not isinstance(heatmap.color_scale, DivergingScale):
            heatmap.color_bar.setColorMap(pg.colormap.get(DIVERGING_MAP))
        heatmap.set_color_scale(scale)


def alpha_colours(heatmap: HeatmapView, scale: str) -> None:
    """``heatmap`` back to α's colours: its colour map and the colour scale called ``scale`` (after a
    diverging scale, whose colour map :meth:`HeatmapView.set_color_scale` alone would keep)."""
    heatmap.color_bar.setColorMap(pg.colormap.get(COLOR_MAP))
    heatmap.set_color_scale(scale)


class AttributionView(QObject):
    """What the panel's map shows, and the attributions behind it."""

    methodChanged = Signal(str)  # alpha, ig, grad or occlusion
    cancelRequested = Signal()
    contrastRequested = Signal(int, str)  # output position i, the alternative piece y'

    def __init__(self, panel: AttentionPanel) -> None:
        super().__init__(panel)
        self.panel = panel
        self.store = AttributionStore()
        self.tokens: tuple[str, ...] | None = None  # the output the attributions explain
        self.pending = ""  # why the attribution is not there (not decoded yet, cancelled, failed)
        self.choice = MapChoice("attention")
        self.choice.hide()  # offered by whoever computes the attributions (offer()): a replayed session has none
        panel.view_bar.layout().insertWidget(0, self.choice)
        self.section = AttributionSection()
        self.section.hide()
        panel.inspector.layout().insertWidget(4, self.section, 1)  # after the candidates, in the table's place
        self.share = ShareColumn(panel.heatmap)
        self.choice.methodChanged.connect(self._on_method)
        self.choice.cancelRequested.connect(self.cancelRequested)
        self.section.contrastRequested.connect(self.contrastRequested)
        panel.view_bar.colorScaleChanged.connect(lambda _name: self._redraw())

    # -- state ------------------------------------------------------------------------------
    @property
    def method(self) -> str:
        return self.choice.method()

    @property
    def active(self) -> bool:
        """True while the map shows an attribution (not α)."""
        return self.method != ALPHA

    def set_method(self, method: str) -> None:
        self.choice.set_method(method)

    def offer(self) -> None:
        """Show the chooser: attributions of this panel's runs will be computed (gui/translate/explain_link.py)."""
        self.choice.show()

    def begin(self, source_count: int) -> None:
        """A new run: no attribution yet."""
        self.store = AttributionStore(source_count)
        self.tokens = None
        self.pending = self.tr("The attribution is computed once the decode has ended.")
        self.choice.show_progress("")
        self._apply_mode(render=False)  # the panel draws the new run itself

    def set_subject(self, tokens: tuple[str, ...]) -> None:
        """The output pieces that the attributions to come explain (the finished decode's)."""
        self.tokens = tuple(tokens)
        self.pending = ""

    def add(self, item: StepAttributionLike) -> None:
        """One step's attribution (or a contrastive one), drawn at the next frame."""
        self.store.add(item)
        self.panel.request_redraw()

    def show_progress(self, text: str, running: bool, why: str = "", tooltip: str = "") -> None:
        """The progress line beside the chooser (short: ``tooltip`` says it whole); ``why``: what the inspector
        says while a step has none."""
        self.choice.show_progress(text, tooltip, running=running)
        if why:
            self.pending = why

    def matches_run(self) -> bool:
        """The attributions belong to the output on screen (a beam hypothesis shown instead has none)."""
        return self.tokens is not None and tuple(self.panel.record.target_tokens) == self.tokens

    # -- drawing (called by the panel) ------------------------------------------------------
    def _on_method(self, method: str) -> None:
        self._apply_mode()
        self.methodChanged.emit(method)

    def _apply_mode(self, render: bool = True) -> None:
        """The map page or the no-attention note; the colour scale, the share bars and the inspector part."""
        panel, active = self.panel, self.active
        note = no_attention_note()
        if not active:
            note += self.tr("<p>An attribution is the only explanation there is for this model: choose "
                            "integrated gradients, input × gradient or occlusion under <i>Map</i> to see which "
                            "source words each output word depended on.</p>")
        panel.note.setText(note)
        panel.stack.setCurrentIndex(0 if active or panel.record.uses_attention else 1)
        if active:
            self.share.attach()
        else:
            self.share.detach()
            alpha_colours(panel.heatmap, panel.color_scale())
        self.section.setVisible(active)
        if render:
            panel.render_now()

    def _redraw(self) -> None:
        if self.active:
            self.panel.render_now()

    def drawn(self, units: MapUnits, rows: int) -> np.ndarray:
        """The map's matrix for ``rows`` output pieces in ``units`` (NaN rows: not computed yet), its
        diverging scale set on the map and the share bars beside it."""
        method = self.method
        ok = self.matches_run()
        matrix = units.matrix(self.store.matrix(method, rows) if ok else np.full(
            (rows, len(self.panel.record.source_tokens)), np.nan, np.float32))
        diverging_colours(self.panel.heatmap, diverging_scale(method, self.panel.color_scale() == "row"))
        shares = self.store.shares(method, rows) if ok else np.full(rows, np.nan, np.float32)
        self.share.set_shares(merge_word_rows(shares, units.target.starts) if units.words else shares)
        return matrix

    def relabel(self, hover_text: str) -> str:
        """The hover line of a cell: the method's name in place of α while an attribution is shown."""
        if self.active and hover_text.startswith("α("):
            return SHORT_NAMES[self.method] + hover_text[1:]
        return hover_text

    def inspect(self, index: int, units: MapUnits) -> None:
        """The inspector's attribution part for step ``index`` (the inspector's own table hidden meanwhile)."""
        inspector = self.panel.inspector
        if not self.active:
            self.section.hide()
            return
        inspector.table.hide()
        self.section.show()
        record, method = self.panel.record, self.method
        item = self.store.step(method, index) if self.matches_run() else None
        alpha = record.row(index)
        step = record.step(index)
        candidates = _candidates(step)
        contrast = self._first_contrast(method, index, candidates)
        labels = units.column_labels

        def columns(values) -> np.ndarray | None:
            return None if values is None else units.columns(np.asarray(values, np.float32)[None, :])[0]

        pending = self.pending or self.tr("%1: this step's attribution is not in yet.").replace(
            "%1", method_label(method))
        self.section.show_step(index, record.target_tokens[index], method, labels, columns(alpha),
                               item, columns(item.source) if item is not None else None,
                               contrast=contrast, contrast_source=columns(contrast.source) if contrast else None,
                               candidates=candidates if self.matches_run() else [], pending=pending)

    def _first_contrast(self, method: str, index: int, candidates: list[str]):
        """The first contrastive attribution computed for step ``index`` against one of ``candidates`` (None: none)."""
        return next((self.store.contrast(method, index, c) for c in candidates
                     if self.store.contrast(method, index, c) is not None), None)

    # -- exports ----------------------------------------------------------------------------
    def export_record(self) -> dict | None:
        """The JSON export's ``attribution`` (None while the map shows α or none is computed)."""
        if not self.active or not self.matches_run():
            return None
        return attribution_json(self.store, self.method, len(self.tokens))

    def shown_matrix(self, units: MapUnits) -> np.ndarray:
        """The attribution as the map shows it (rows × columns in ``units``; NaN where not computed)."""
        rows = self.panel.record.row_count
        if not self.matches_run():
            return np.full((rows, len(units.column_labels)), np.nan, np.float32)
        return units.matrix(self.store.matrix(self.method, rows))


def _candidates(step) -> list[str]:
    """The step's top-k alternatives to its output, offered for "why not" (none for an unknown step)."""
    return [a.token for a in step.alternatives if a.token != step.token] if step is not None else []
