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
from gui.compare import decisions
from gui.compare.aligner_map import map_columns
from gui.compare.controller import CompareController, CompareRun
from gui.compare.decisions import NOT_INSPECTED, InspectorMove, Status
from gui.compare.enlarged import EnlargedMap
from gui.compare.explain_link import CompareExplain
from gui.compare.grid_maps import GridMaps
from gui.compare.inspection import show_panel_step
from gui.compare.language import retranslate_compare
from gui.compare.layout import plan_grid
from gui.compare.model import (
    OWN_OUTPUTS,
    PanelNumbers,
    PanelRows,
    panel_numbers,
    target_choices,
    training_note,
)
from gui.compare.panel import PanelScheduler, ScorerPanel
from gui.compare.status_lines import status_text
from gui.compare.tab_exports import CompareExports
from gui.compare.tab_parts import CompareParts
from gui.compare.tab_widgets import CompareWidgets


class CompareTab(CompareWidgets):
    """The Compare tab (objectName ``compareTab``). Its exports and attributions see it as the parts of
    gui/compare/tab_parts.py; what it shows after each event is decided by gui/compare/decisions.py."""

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
        self._inspected: tuple[str, int] = NOT_INSPECTED  # (scorer, step) the inspector shows
        self._input_notice = ""  # what was cut from a long input (engine.decoding.translator.PreparedSource.notice)
        self.maps = GridMaps(self, lambda: self.panels, self.view_bar, self.difference, self.inspector)
        parts = CompareParts(self.controller, lambda: self.panels, self.input, self.reference, self.target_choice,
                             self.scheduler, self.view_bar, self.set_status, self.font)  # what the helpers see
        self.explain = CompareExplain(parts, parent=self)  # every map: α or one attribution (explain_link.py)
        self.exports = CompareExports(parts, self.difference, self.view_bar, self.explain, parent=self)
        self._wire()

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 (Qt's name)
        super().changeEvent(event)
        if event.type() == QEvent.Type.LanguageChange:  # the texts made of several messages, made again
            retranslate_compare(self)

    # -- wiring -----------------------------------------------------------------------------
    def _wire(self) -> None:
        self.view_bar.wordViewChanged.connect(self._apply_view)
        self.view_bar.colorScaleChanged.connect(self._apply_view)
        self.view_bar.resetZoomRequested.connect(self.maps.reset_zoom)
        self.export_menu.addAction(self.tr("Grid as PNG…"), lambda: self.exports.ask_and_export("png"))
        self.export_menu.addAction(self.tr("Grid as SVG…"), lambda: self.exports.ask_and_export("svg"))
        self.export_menu.addAction(self.tr("Matrices as JSON…"), lambda: self.exports.ask_and_export("json"))
        c = self.controller
        c.slotsChanged.connect(self._on_slots)
        c.modelsLoaded.connect(lambda: self.set_status(status_text(Status.READY)))
        c.modelFailed.connect(lambda scorer, message: self._panel_problem(scorer, message, disable=True))
        c.runStarted.connect(self._on_run_started)
        c.stepArrived.connect(lambda scorer, step: self.panels[scorer].show_step(step))
        c.decodeFinished.connect(self._on_decoded)
        c.forcedStarted.connect(lambda t: self.set_status(status_text(Status.SCORING, t)))
        c.forcedReady.connect(self._on_forced)
        c.forcedFailed.connect(lambda scorer, message: self._panel_problem(scorer, message))
        c.runFinished.connect(self._on_run_finished)
        c.runStarted.connect(lambda _run: self.aligner.show_waiting())
        c.alignerStarted.connect(self.aligner.show_waiting)
        c.alignerReady.connect(self.show_aligner_map)
        self.aligner.columns_of = lambda: map_columns(self.panels)  # its columns are the maps
        c.pastChanged.connect(self.show_past)
        c.pastFailed.connect(self.set_status)
        self.input.returnPressed.connect(self.compare)
        self.compare_button.clicked.connect(self.compare)
        self.reference.editingFinished.connect(self._on_reference_changed)
        self.target_combo.activated.connect(lambda _index: self.controller.set_target(self.target_choice()))
        self.direction_combo.activated.connect(
            lambda _index: self.controller.set_direction(self.direction_combo.currentData()))
        self.difference.first.activated.connect(lambda _index: self._update_difference())
        self.difference.second.activated.connect(lambda _index: self._update_difference())
        self.difference.heatmap.cellHovered.connect(lambda _row, column: self.maps.highlight_column(column))
        self.difference.shareRequested.connect(self._share_target)
        explain = self.explain  # after the tab's own: new panels first, then their attributions
        self.view_bar.layout().insertWidget(0, explain.choice)
        c.slotsChanged.connect(lambda _slots: explain.on_slots())
        c.runStarted.connect(lambda _run: explain.reset())
        c.runFinished.connect(explain.on_run_finished)
        self.view_bar.colorScaleChanged.connect(lambda _name: explain.redraw_all())

    # -- the tab protocol (gui/common/tab_protocol.py) ---------------------------------------
    def start(self) -> None:
        """The map view remembered last time; the models load the first time the tab is shown."""
        self.view_bar.restore(QSettings())

    def shown(self) -> None:
        self.load_models()

    def load_models(self, direction: str | None = None) -> None:
        """Load the models of ``direction`` (else the one the tab was given), once."""
        load = decisions.first_load(self.started, self._closed, direction, self._first_direction(), self._past_request)
        if load is None:
            return
        self.started = True
        direction, travel = load
        self.controller.start(direction)
        if travel.send is not None:
            self.controller.use_past(*travel.send)
        self._past_request = travel.waiting

    def use_past(self, folder: Path, step: float) -> None:
        """Back the run's scorer's panel with its weights nearest ``step`` (a click on a training curve);
        before the tab is first shown, only remembered (no model loads for a tab not looked at)."""
        travel = decisions.travel_to(self.started, folder, step)
        if travel.send is not None:
            self.controller.use_past(*travel.send)
        self._past_request = travel.waiting

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
        self.maps.close_enlarged()
        return self.controller.shutdown(timeout_ms)

    @property
    def enlarged(self) -> dict[str, EnlargedMap]:
        """The maps open in windows of their own, by scorer (gui/compare/grid_maps.py)."""
        return self.maps.enlarged

    # -- models -----------------------------------------------------------------------------
    def _on_slots(self, slots) -> None:
        """The direction's panels (one per scorer), replacing the previous ones."""
        self._drop_panels()
        self.panels = {slot.scorer: self._new_panel(slot) for slot in slots}
        self.place_panels(self.panels, plan_grid([slot.scorer for slot in slots]))  # sized by the count
        self.difference.set_scorers(decisions.difference_scorers(slots))
        self.show_directions(self.controller.directions(), self.controller.direction)
        self._fill_targets()
        self._fill_examples(slots)
        self.show_training_note(*training_note(slots))
        self.set_status(status_text(decisions.slots_status(self.controller.loading)))

    def _drop_panels(self) -> None:
        """Take the panels out (at once) and close the maps open large with them; clear the inspector."""
        self.maps.close_enlarged()  # they follow panels that are about to go
        for panel in self.panels.values():
            self.scheduler.cancel(panel)  # a draw still waiting must not reach a panel about to be deleted
            panel.setParent(None)  # out of the grid (or of the inspector's cell) at once
            panel.deleteLater()
        self.panels = {}
        self._inspected = NOT_INSPECTED
        self.inspector.clear()

    def _new_panel(self, slot) -> ScorerPanel:
        panel = ScorerPanel(slot, scheduler=self.scheduler)
        panel.columnHovered.connect(self.maps.highlight_column)
        panel.stepHovered.connect(self._inspect)
        panel.enlargeRequested.connect(self.enlarge)
        if panel.head_chooser is not None:  # the inspector shows the head the map shows
            panel.head_chooser.headChanged.connect(lambda _head, scorer=slot.scorer: self._refresh_inspector(scorer))
        self.maps.view_map(panel.heatmap)
        return panel

    def _fill_examples(self, slots) -> None:
        examples = self.examples.get(decisions.examples_language(slots), [])
        references = {e.text: e.reference for e in examples}
        fill_examples_menu(self.examples_menu, examples,
                           lambda text: self.set_sentence(text, references.get(text, "")))

    def _fill_targets(self) -> None:
        self.show_targets(target_choices(self.controller.slots, bool(self.reference.text().strip())))
        if self.target_choice() != self.controller.target_choice:
            self.controller.set_target(self.target_choice())

    def target_choice(self) -> str:
        return self.target_combo.currentData() or OWN_OUTPUTS

    # -- runs -------------------------------------------------------------------------------
    def compare(self) -> None:
        text = self.input.text()
        bundle = next(iter(self.controller.bundles.values()), None)
        prepared = bundle.translator.prepare(text) if bundle is not None and text.strip() else None
        empty_notice = prepared.notice if prepared is not None and prepared.empty else None  # e.g. control characters
        refusal = decisions.compare_refusal(text, empty_notice)
        if refusal is not None:
            self.set_status(status_text(refusal, empty_notice or ""))
            return
        self.controller.compare(text, self.reference.text())

    def set_sentence(self, text: str, reference: str = "") -> None:
        """Put a sentence (and its reference, when known) in the fields and compare at once."""
        self.input.setText(text)
        self.reference.setText(reference)
        for field in (self.input, self.reference):
            field.setCursorPosition(0)  # a text put in (not typed) shows its start when the field is narrow
        self._fill_targets()
        self.compare()

    def _on_reference_changed(self) -> None:
        self._fill_targets()
        self.controller.set_reference(self.reference.text())

    def _on_run_started(self, run: CompareRun) -> None:
        notices = []
        for scorer, panel in self.panels.items():
            bundle = self.controller.bundles.get(scorer)
            if bundle is not None:
                prepared = bundle.translator.prepare(run.text)
                panel.begin(prepared.tokens)
                notices += [prepared.notice] if prepared.truncated else []
        cut = decisions.long_input_notices(notices)
        self._input_notice = status_text(Status.LONG_INPUT, cut) if cut else ""
        self.difference.show_difference(None, None)
        self._inspected = NOT_INSPECTED
        self.inspector.clear()
        self._set_run_status(Status.DECODING)

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
        if problem := decisions.forced_problem(numbers.text(), forced.notice):
            self.panels[scorer].show_problem(problem)
        self._refresh_inspector(scorer)

    def _on_run_finished(self) -> None:
        self._update_difference()
        self._set_run_status(decisions.finished_status(self.target_choice()))

    def _update_difference(self) -> None:
        first = self.panels.get(self.difference.first.currentData())
        second = self.panels.get(self.difference.second.currentData())
        self.difference.show_difference(first, second, self.shared_target_offer(first, self.controller.busy))

    def enlarge(self, scorer: str) -> EnlargedMap | None:
        """Open ``scorer``'s map in a window of its own (or raise the one already open)."""
        return self.maps.enlarge(scorer)

    def _apply_view(self, *_choice) -> None:
        """Words or pieces, and the colour scale, in every map (those open large too), the inspector's step again."""
        self.maps.apply_view()
        self.aligner.redraw()
        self._inspected, shown = NOT_INSPECTED, self._inspected
        if shown[0]:
            self._inspect(*shown)

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
        index = self._inspected[1]
        move = decisions.inspector_after_rows(self._inspected, scorer, self.panels[scorer].step_detail(index) is not None)
        if move is InspectorMove.SHOW:
            self._inspect(scorer, index)
        elif move is InspectorMove.CLEAR:
            self._inspected = NOT_INSPECTED
            self.inspector.clear()

    def set_status(self, text: str) -> None:
        """Show ``text`` on the status line (and say it to the window's status bar)."""
        self.status.setText(text)
        self.statusChanged.emit(text)

    def _set_run_status(self, status: Status) -> None:
        """A status of the run in progress, with what was cut from a long input."""
        self.set_status(decisions.run_status_text(status_text(status), self._input_notice))

    # -- export (gui/compare/tab_exports.py) -------------------------------------------------
    def document(self) -> dict[str, Any]:
        return self.exports.document()

    def export_to(self, kind: str, path: Path) -> Path:
        return self.exports.export_to(kind, path)
