"""The Compare tab: one sentence, every scorer of a direction side by side, live.

Top: direction, the sentence, an optional reference, and the target the maps share. Middle: a grid of one
panel per mechanism of the registry — the attention mechanisms and the fixed context C, the grid sized by
their number (gui.compare.layout) — plus a difference map α_A − α_B of two attention scorers (a diverging
scale centred on 0) once one target is forced on every model. Hovering a source token in any map outlines
its column in every map and tints every output's tokens by the attention each gave it; hovering a map row
or an output token shows that step of that scorer in the step inspector (under the fixed-context panel,
which has no map). The grid exports as one PNG / SVG, the matrices as one JSON (gui/compare/export.py).
The widgets and their places are gui/compare/tab_widgets.py; this module wires them to the controller.

Widget names (tests and scripted checks use them): ``compareDirectionCombo``, ``compareInput``, ``compareButton``,
``compareReferenceInput``, ``compareTargetCombo``, ``compareGrid``, ``comparePanel_<scorer>``, ``compareDiffA``,
``compareDiffB``, ``compareDiffMap``, ``compareDiffMessage``, ``compareDiffShareButton``, ``compareExportButton``,
``compareStatus``, ``compareInspector``, ``compareTrainingNote`` (when the models were not trained alike),
``compareEnlarge_<scorer>`` (a panel's button that opens its map large: gui/compare/enlarged.py),
``comparePastBadge``, ``comparePastLabel`` and ``compareBackButton`` (over the grid while a run's earlier weights
back a panel: a click on a training curve, gui.common.past; Back leaves them in every tab).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import QEvent, QSettings, Signal
from PySide6.QtWidgets import QWidget

from gui.common.examples import fill_examples_menu, load_examples
from gui.common.tab_protocol import DECODE_STOP_MS, CloseQuestion
from gui.compare.aligner_map import map_columns
from gui.compare.controller import CompareController, CompareRun
from gui.compare.enlarged import EnlargedMap
from gui.compare.explain_link import CompareExplain
from gui.compare.inspection import show_panel_step
from gui.compare.language import retranslate_compare
from gui.compare.layout import plan_grid
from gui.compare.model import (
    ATTENTION_SCORERS,
    OWN_OUTPUTS,
    PanelNumbers,
    PanelRows,
    panel_numbers,
    target_choices,
    training_note,
)
from gui.compare.panel import PanelScheduler, ScorerPanel
from gui.compare.tab_exports import CompareExports
from gui.compare.tab_widgets import CompareWidgets


class CompareTab(CompareWidgets):
    """The Compare tab (objectName ``compareTab``)."""

    shutdown_ms = DECODE_STOP_MS
    statusChanged = Signal(str)

    @property
    def title(self) -> str:  # in the interface's language
        return self.tr("Compare")

    def __init__(self, parent: QWidget | None = None,
                 direction: Callable[[], str | None] = lambda: None) -> None:
        """``direction`` gives the direction to start with when the tab is first shown (the
        Translate tab's; "zh-en" when it gives None)."""
        super().__init__(parent)  # the widgets (gui/compare/tab_widgets.py)
        self._first_direction = direction
        self._past_request: tuple[Path, float] | None = None  # a curve click before the tab was first shown
        self.started = False  # the models load the first time the tab is shown
        self._closed = False
        self.controller = CompareController(self)
        self.panels: dict[str, ScorerPanel] = {}
        self.scheduler = PanelScheduler(self)  # the maps redraw one panel at a time
        self.examples = load_examples()
        self._inspected: tuple[str, int] = ("", -1)  # (scorer, step) the inspector shows
        self._input_notice = ""  # what was cut from a long input (engine.decoding.translator.PreparedSource.notice)
        self.enlarged: dict[str, EnlargedMap] = {}  # the maps open in windows of their own, by scorer
        self.exports = CompareExports(self)
        self._wire()
        self.explain = CompareExplain(self)  # every map: α or one attribution (gui/compare/explain_link.py)

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 (Qt's name)
        super().changeEvent(event)
        if event.type() == QEvent.Type.LanguageChange:  # the texts made of several messages, made again
            retranslate_compare(self)

    # -- wiring -----------------------------------------------------------------------------
    def _wire(self) -> None:
        self.view_bar.wordViewChanged.connect(self._apply_view)
        self.view_bar.colorScaleChanged.connect(self._apply_view)
        self.view_bar.resetZoomRequested.connect(self._reset_zoom)
        self.export_menu.addAction(self.tr("Grid as PNG…"), lambda: self.exports.ask_and_export("png"))
        self.export_menu.addAction(self.tr("Grid as SVG…"), lambda: self.exports.ask_and_export("svg"))
        self.export_menu.addAction(self.tr("Matrices as JSON…"), lambda: self.exports.ask_and_export("json"))
        c = self.controller
        c.slotsChanged.connect(self._on_slots)
        c.modelsLoaded.connect(lambda: self._set_status(self.tr("Ready: type a sentence and press Enter.")))
        c.modelFailed.connect(lambda scorer, message: self._panel_problem(scorer, message, disable=True))
        c.runStarted.connect(self._on_run_started)
        c.stepArrived.connect(lambda scorer, step: self.panels[scorer].show_step(step))
        c.decodeFinished.connect(self._on_decoded)
        c.forcedStarted.connect(lambda t: self._set_status(self.tr("Scoring “%1” under every model…").replace("%1", t)))
        c.forcedReady.connect(self._on_forced)
        c.forcedFailed.connect(lambda scorer, message: self._panel_problem(scorer, message))
        c.runFinished.connect(self._on_run_finished)
        c.runStarted.connect(lambda _run: self.aligner.show_waiting())
        c.alignerStarted.connect(self.aligner.show_waiting)
        c.alignerReady.connect(self.show_aligner_map)
        self.aligner.columns_of = lambda: map_columns(self.panels)  # its columns are the maps
        c.pastChanged.connect(self.show_past)
        c.pastFailed.connect(self._set_status)
        self.input.returnPressed.connect(self.compare)
        self.compare_button.clicked.connect(self.compare)
        self.reference.editingFinished.connect(self._on_reference_changed)
        self.target_combo.activated.connect(lambda _index: self.controller.set_target(self.target_choice()))
        self.direction_combo.activated.connect(
            lambda _index: self.controller.set_direction(self.direction_combo.currentData()))
        self.difference.first.activated.connect(lambda _index: self._update_difference())
        self.difference.second.activated.connect(lambda _index: self._update_difference())
        self.difference.heatmap.cellHovered.connect(lambda _row, column: self._highlight_column(column))
        self.difference.shareRequested.connect(self._share_target)

    # -- the tab protocol (gui/common/tab_protocol.py) ---------------------------------------
    def start(self) -> None:
        """The map view remembered last time; the models load the first time the tab is shown."""
        self.view_bar.restore(QSettings())

    def shown(self) -> None:
        self.load_models()

    def load_models(self, direction: str | None = None) -> None:
        """Load the models of ``direction`` (else the one the tab was given), once."""
        if self.started or self._closed:
            return
        self.started = True
        self.controller.start(direction or self._first_direction() or "zh-en")
        if self._past_request is not None:
            self.controller.use_past(*self._past_request)
            self._past_request = None

    def use_past(self, folder: Path, step: float) -> None:
        """Back the run's scorer's panel with its weights nearest ``step`` (a click on a training curve);
        before the tab is first shown, only remembered (no model loads for a tab not looked at)."""
        if self.started:
            self.controller.use_past(folder, step)
        else:
            self._past_request = (folder, step)

    def back_to_final(self) -> None:
        """Leave a run's earlier weights (those waiting for the tab to be shown too)."""
        self._past_request = None
        self.controller.back_to_final()

    def save_settings(self) -> None:
        """The map view (words or pieces, the colour scale); the rest starts afresh."""
        self.view_bar.save(QSettings())

    def close_question(self) -> CloseQuestion | None:
        return None

    def shutdown(self, timeout_ms: int = DECODE_STOP_MS) -> bool:
        self._closed = True
        self._close_enlarged()
        return self.controller.shutdown(timeout_ms)

    def _close_enlarged(self) -> None:
        for window in self.enlarged.values():
            window.close()
            window.deleteLater()
        self.enlarged = {}

    # -- models -----------------------------------------------------------------------------
    def _on_slots(self, slots) -> None:
        """The direction's panels (one per scorer), replacing the previous ones."""
        self._drop_panels()
        self.panels = {slot.scorer: self._new_panel(slot) for slot in slots}
        self.place_panels(self.panels, plan_grid([slot.scorer for slot in slots]))  # sized by the count
        self.difference.set_scorers([(s.scorer, s.label) for s in slots if s.usable and s.scorer in ATTENTION_SCORERS])
        self.show_directions(self.controller.directions() or [self.controller.direction], self.controller.direction)
        self._fill_targets()
        self._fill_examples(slots)
        self.show_training_note(*training_note(slots))
        self._set_status(self.tr("Loading the models…") if self.controller.loading else self.tr("No model for this direction."))

    def _drop_panels(self) -> None:
        """Take the panels out (at once) and close the maps open large with them; clear the inspector."""
        self._close_enlarged()  # they follow panels that are about to go
        for panel in self.panels.values():
            self.scheduler.cancel(panel)  # a draw still waiting must not reach a panel about to be deleted
            panel.setParent(None)  # out of the grid (or of the inspector's cell) at once
            panel.deleteLater()
        self.panels = {}
        self._inspected = ("", -1)
        self.inspector.clear()

    def _new_panel(self, slot) -> ScorerPanel:
        panel = ScorerPanel(slot, scheduler=self.scheduler)
        panel.columnHovered.connect(self._highlight_column)
        panel.stepHovered.connect(self._inspect)
        panel.enlargeRequested.connect(self.enlarge)
        if panel.head_chooser is not None:  # the inspector shows the head the map shows
            panel.head_chooser.headChanged.connect(lambda _head, scorer=slot.scorer: self._refresh_inspector(scorer))
        self._view_map(panel.heatmap)
        return panel

    def _fill_examples(self, slots) -> None:
        language = next((s.entry.source_language for s in slots if s.entry is not None), "")
        examples = self.examples.get(language, [])
        references = {e.text: e.reference for e in examples}
        fill_examples_menu(self.examples_menu, examples,
                           lambda text: self.set_sentence(text, references.get(text, "")))

    def _fill_targets(self) -> None:
        current = self.target_choice()
        self.target_combo.blockSignals(True)
        self.target_combo.clear()
        for key, text in target_choices(self.controller.slots, bool(self.reference.text().strip())):
            self.target_combo.addItem(text, key)
        index = self.target_combo.findData(current)
        self.target_combo.setCurrentIndex(index if index >= 0 else 0)
        self.target_combo.blockSignals(False)
        if self.target_choice() != self.controller.target_choice:
            self.controller.set_target(self.target_choice())

    def target_choice(self) -> str:
        return self.target_combo.currentData() or OWN_OUTPUTS

    # -- runs -------------------------------------------------------------------------------
    def compare(self) -> None:
        text = self.input.text()
        if not text.strip():
            self._set_status(self.tr("Type a sentence first."))
            return
        bundle = next(iter(self.controller.bundles.values()), None)
        prepared = bundle.translator.prepare(text) if bundle is not None else None
        if prepared is not None and prepared.empty:  # e.g. control characters only
            self._set_status(self.tr("Nothing to compare: %1.").replace("%1", prepared.notice))
            return
        self.controller.compare(text, self.reference.text())

    def set_sentence(self, text: str, reference: str = "") -> None:
        """Put a sentence (and its reference, when known) in the fields and compare at once."""
        self.input.setText(text)
        self.reference.setText(reference)
        self._fill_targets()
        self.compare()

    def _on_reference_changed(self) -> None:
        self._fill_targets()
        self.controller.set_reference(self.reference.text())

    def _on_run_started(self, run: CompareRun) -> None:
        notices = set()
        for scorer, panel in self.panels.items():
            bundle = self.controller.bundles.get(scorer)
            if bundle is not None:
                prepared = bundle.translator.prepare(run.text)
                panel.begin(prepared.tokens)
                if prepared.truncated:
                    notices.add(prepared.notice)
        self._input_notice = (self.tr("Long input: %1. Only that part is compared.").replace(
            "%1", "; ".join(sorted(notices))) if notices else "")
        self.difference.show_difference(None, None)
        self._inspected = ("", -1)
        self.inspector.clear()
        self._set_run_status(self.tr("Decoding with every scorer…"))

    def _numbers(self, scorer: str, tokens, attention, log_probability: float, text: str,
                 forced: bool = False) -> PanelNumbers:
        """A panel's numbers, BLEU and chrF scoring the scorer's own output ``text`` (gui/compare/model.py)."""
        return panel_numbers(tokens, attention, log_probability, text, self.reference.text().strip(),
                             self.controller.bundles[scorer].target_language, forced)

    def _on_decoded(self, scorer: str, translation) -> None:
        numbers = self._numbers(scorer, translation.tokens, translation.attention, translation.score,
                                translation.text)
        self.panels[scorer].show_result(PanelRows.from_translation(translation), translation.text, numbers,
                                        forced=False)
        self._refresh_inspector(scorer)

    def _on_forced(self, scorer: str, forced) -> None:
        own_output = self.controller.outputs.get(scorer, forced.target)
        numbers = self._numbers(scorer, forced.tokens, forced.attention, forced.log_probability, own_output,
                                forced=True)
        self.panels[scorer].show_result(PanelRows.from_forced(forced), forced.target, numbers, forced=True)
        if forced.notice:
            self.panels[scorer].show_problem(numbers.text() + " — " + forced.notice)
        self._refresh_inspector(scorer)

    def _on_run_finished(self) -> None:
        self._update_difference()
        forced = self.target_choice() != OWN_OUTPUTS
        self._set_run_status(self.tr("Done: every map shows the same target.") if forced else
                             self.tr("Done: each map shows its own output. Choose a shared target to subtract "
                                     "two maps."))

    def _update_difference(self) -> None:
        first = self.panels.get(self.difference.first.currentData())
        second = self.panels.get(self.difference.second.currentData())
        self.difference.show_difference(first, second, self.shared_target_offer(first, self.controller.busy))

    def enlarge(self, scorer: str) -> EnlargedMap | None:
        """Open ``scorer``'s map in a window of its own (or raise the one already open)."""
        panel = self.panels.get(scorer)
        if panel is None or panel.heatmap is None:
            return None
        window = self.enlarged.get(scorer)
        if window is None:
            window = self.enlarged[scorer] = EnlargedMap(panel, self)
            window.place_beside(self.inspector)
        window.show()
        window.raise_()
        window.activateWindow()
        return window

    def _apply_view(self, *_choice) -> None:
        """Words or pieces, and the colour scale, in every map (those open large too)."""
        words = self.view_bar.word_view()
        for window in self.enlarged.values():
            self._view_map(window.heatmap)
        for panel in self.panels.values():
            panel.set_word_view(words)  # its map, labels and coverage bars in the new unit
            self._view_map(panel.heatmap)
        self.difference.heatmap.set_word_view(words)
        self.aligner.redraw()
        self._inspected, shown = ("", -1), self._inspected
        if shown[0]:
            self._inspect(*shown)

    def _reset_zoom(self) -> None:
        """Every map (those open large too, and the difference map) back to the view it opened with."""
        maps = [p.heatmap for p in self.panels.values()] + [w.heatmap for w in self.enlarged.values()]
        for heatmap in [*maps, self.difference.heatmap]:
            if heatmap is not None:
                heatmap.reset_zoom()

    def _view_map(self, heatmap) -> None:
        if heatmap is not None:
            heatmap.set_word_view(self.view_bar.word_view())
            heatmap.set_color_scale(self.view_bar.scale_name())

    def _share_target(self, key: str) -> None:
        """The difference panel's button: the same as choosing ``key`` under *Maps show*."""
        if self.select_target(key):
            self.controller.set_target(key)

    def _panel_problem(self, scorer: str, message: str, disable: bool = False) -> None:
        panel = self.panels.get(scorer)
        if panel is None:
            return
        if disable:
            panel.disable(message)
        else:
            panel.show_problem(message)

    # -- hover ------------------------------------------------------------------------------
    def _inspect(self, scorer: str, index: int) -> None:
        """Show step ``index`` of ``scorer``'s panel in the step inspector (it stays until another)."""
        panel = self.panels.get(scorer)
        if panel is None or panel.step_detail(index) is None:
            return
        self.inspector_tabs.setCurrentWidget(self.inspector)
        self._inspected = (scorer, index)
        show_panel_step(self.inspector, panel, index)

    def _refresh_inspector(self, scorer: str) -> None:
        """A panel's rows were replaced: the inspector, when it showed one of them, shows the new one."""
        shown_scorer, index = self._inspected
        if shown_scorer == scorer:
            if self.panels[scorer].step_detail(index) is not None:
                self._inspect(scorer, index)
            else:
                self._inspected = ("", -1)
                self.inspector.clear()

    def _highlight_column(self, column: int) -> None:
        for panel in self.panels.values():
            panel.highlight_column(column)
        for window in self.enlarged.values():
            window.highlight_column(column)
        self.difference.heatmap.highlight_column(column)

    def _set_status(self, text: str) -> None:
        self.status.setText(text)
        self.statusChanged.emit(text)

    def _set_run_status(self, text: str) -> None:
        """A status of the run in progress, with what was cut from a long input."""
        self._set_status(f"{text} {self._input_notice}" if self._input_notice else text)

    # -- export (gui/compare/tab_exports.py) -------------------------------------------------
    def document(self) -> dict[str, Any]:
        return self.exports.document()

    def export_to(self, kind: str, path: Path) -> Path:
        return self.exports.export_to(kind, path)
