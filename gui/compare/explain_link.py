"""The Compare tab's attributions: one chooser (gui/attention/map_choice.py, beside the Words / Colours boxes)
makes every map of the grid show attention α or the same attribution, so that a learner sees whether the
scorers that attend most sharply are the ones whose outputs depend on those words.

Once a run has its final rows (each scorer's own output, or the target forced on every model), one job
attributes every map's rows with engine.explain.explain_steps, model after model in one worker (as the
decodes and forced decodes run: one thread, not five), and each map redraws as its steps come — at most
~30 times a second, one frame for all the maps that changed. A new run, another direction or Cancel ends the
job. The maps use the diverging scale of gui/attention/attribution_view.py (blue −, white 0, red +; each map
from −m to +m, m its own largest |value|, named in its tooltip; *Per row*: each row ÷ its largest |value|); a word's value is the sum of its pieces', an
output word's row the mean of its pieces' rows, as α is merged. Every panel's figures end with the mean
share of its attribution on the source (the rest came from the words it had already written) — for the
fixed-context panel, which has no map here, the one figure of it (the Translate tab draws its map). The
coverage bars, the difference map, the maps opened large and the inspector stay α's.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np
from PySide6.QtCore import QObject, QSettings, QTimer

from gui.attention.attribution_math import (
    ALPHA,
    SHORT_NAMES,
    AttributionStore,
    attribution_json,
)
from gui.attention.attribution_view import alpha_colours, diverging_colours, diverging_scale
from gui.attention.map_choice import MapChoice, method_label
from gui.attention.throttle import FrameThrottle

if TYPE_CHECKING:
    from gui.compare.panel import ScorerPanel


@dataclass(frozen=True)
class ShownRows:
    """What a map shows, as engine.explain.explain_steps reads a translation: the sentence, its pieces and
    the output pieces of the map's rows (with the decode's steps when they are the model's own output)."""

    source: str
    source_tokens: tuple[str, ...]
    tokens: tuple[str, ...]
    steps: tuple = ()
    empty: bool = False


@dataclass(frozen=True)
class ExplainFailure:
    """One model's attribution could not be computed (the others go on)."""

    message: str


def grid_items(subjects: dict[str, tuple[object, ShownRows]], method: str):
    """(scorer, StepAttribution) for every map, model after model; (scorer, ExplainFailure) for a model that
    fails. engine.explain is imported here, in the job's thread."""
    from engine.explain import explain_steps

    for scorer, (translator, shown) in subjects.items():
        items = None
        try:
            items = explain_steps(translator, shown, method)
            for item in items:
                yield scorer, item
        except Exception as error:  # one model failing must not stop the others
            yield scorer, ExplainFailure(f"{type(error).__name__}: {error}")
        finally:
            if items is not None and hasattr(items, "close"):
                items.close()


class ExplainParts(Protocol):
    """What the attributions read and drive of the Compare tab (CompareTab is one)."""

    def scorer_panels(self) -> Mapping[str, ScorerPanel]:
        """The grid's panels by scorer."""
        ...

    def run_sentence(self) -> str | None:
        """The sentence of the run on screen; None before the first."""
        ...

    def translator_of(self, scorer: str) -> object | None:
        """The translator of the model behind ``scorer``'s panel (None: no model loaded)."""
        ...

    def start_job(self, work: Callable[[], Iterator], name: str) -> Any:
        """Run ``work``'s items in the tab's worker (gui/workers.py); the job."""
        ...

    def map_scale(self) -> str:
        """The maps' colour scale (unit, row, auto)."""
        ...


class CompareExplain(QObject):
    """The grid's chooser and the attributions behind its maps. CompareTab puts :attr:`choice` in its view bar
    and calls :meth:`on_slots`, :meth:`reset`, :meth:`on_run_finished` and :meth:`redraw_all` when its
    controller's direction, run or colour scale change."""

    def __init__(self, parts: ExplainParts, parent: QObject | None = None, choice: MapChoice | None = None) -> None:
        super().__init__(parent)
        self.parts = parts
        self.choice = choice if choice is not None else MapChoice("compare")  # α or which attribution
        self.choice.restore(QSettings())
        self.stores: dict[str, AttributionStore] = {}
        self.subjects: dict[str, tuple[str, ...]] = {}  # scorer → the output pieces its attributions explain
        self.failures: dict[str, str] = {}
        self.job = None
        self.job_method = ""
        self._done = self._total = 0  # steps attributed, of every map's
        self._dirty: set[str] = set()
        self._suffixes: dict[str, str] = {}  # scorer → the share said after its figures
        self._throttle = FrameThrottle(self._draw_dirty, self)
        self.choice.methodChanged.connect(self._on_method)
        self.choice.cancelRequested.connect(self.cancel)

    @property
    def method(self) -> str:
        return self.choice.method()

    @property
    def running(self) -> bool:
        return self.job is not None

    # -- the grid ---------------------------------------------------------------------------
    def on_slots(self) -> None:
        """New panels (another direction): their redraws of α are followed by the attribution's."""
        self.reset()
        for scorer, panel in self.parts.scorer_panels().items():
            panel.mapDrawn.connect(lambda _final, scorer=scorer: self._after_panel_draw(scorer))

    def reset(self) -> None:
        """A new run: the job under way ends and the attributions computed go."""
        self._drop_job()
        self.stores, self.subjects, self.failures = {}, {}, {}
        self._dirty.clear()
        self.choice.show_progress("", running=False)

    def _panels(self) -> dict[str, ScorerPanel]:
        """The panels backed by a model (the fixed-context one too: its share on the source is said)."""
        return {s: p for s, p in self.parts.scorer_panels().items() if p.isEnabled()}

    def _mapped(self) -> dict[str, ScorerPanel]:
        return {s: p for s, p in self._panels().items() if p.heatmap is not None}

    def on_run_finished(self) -> None:
        """Every panel has its final rows: attribute them (the chosen method, unless α)."""
        self.stores, self.subjects, self.failures = {}, {}, {}
        self._start(self.method)

    def _on_method(self, method: str) -> None:
        QTimer.singleShot(0, lambda: self.choice.save(QSettings()))  # its own turn of the event loop: after the redraw
        if method == ALPHA:
            self.redraw_all()
            return
        self.redraw_all()
        if self.job is None or self.job_method != method:
            self._start(method)

    def _start(self, method: str) -> None:
        sentence = self.parts.run_sentence()
        if method == ALPHA or sentence is None:
            return
        subjects = {}
        for scorer, panel in self._panels().items():
            translator = self.parts.translator_of(scorer)
            if translator is None or not panel.target_tokens:  # the run has ended: every panel has its final rows
                continue
            store = self.stores.setdefault(scorer, AttributionStore(len(panel.source_tokens)))
            self.subjects[scorer] = tuple(panel.target_tokens)
            if store.complete(method, len(panel.target_tokens)):
                continue
            steps = panel.rows.steps if len(panel.rows.steps) == len(panel.target_tokens) else ()
            subjects[scorer] = (translator, ShownRows(sentence, tuple(panel.source_tokens),
                                                      tuple(panel.target_tokens), tuple(steps)))
        self._drop_job()
        if not subjects:
            self.choice.show_progress("", running=False)
            return
        job = self.parts.start_job(lambda: grid_items(subjects, method), "compare explain")
        self.job, self.job_method = job, method
        self._total = sum(len(shown.tokens) for _t, shown in subjects.values())
        self._done = 0
        job.yielded.connect(self._on_item)
        job.done.connect(self._on_done)
        job.failed.connect(lambda job_id, message, _d: self._on_failed(job_id, message))
        self._say_progress()

    def cancel(self) -> None:
        if self.job is None:
            return
        method, done, total = self.job_method, self._done, self._total
        self._drop_job()
        self.choice.show_progress(self.tr("stopped %1/%2").replace("%1", str(done)).replace("%2", str(total)),
                                  self.tr("%1: stopped at %2/%3").replace("%1", method_label(method)).replace(
                                      "%2", str(done)).replace("%3", str(total)), running=False)

    # -- the job's items --------------------------------------------------------------------
    def _on_item(self, job_id: int, item) -> None:
        if self.job is None or job_id != self.job.id:
            return
        scorer, result = item
        if isinstance(result, ExplainFailure):
            self.failures[scorer] = result.message
            return
        self.stores[scorer].add(result)
        self._done += 1
        self._dirty.add(scorer)
        self._throttle.request()
        self._say_progress()

    def _on_failed(self, job_id: int, message: str) -> None:
        if self.job is not None and job_id == self.job.id:
            self.choice.show_progress(self.tr("failed"), self.tr("Attribution failed: %1").replace(
                "%1", message.splitlines()[0]), running=False)

    def _on_done(self, job_id: int) -> None:
        if self.job is not None and job_id == self.job.id:
            self.job, self.job_method = None, ""
            self._throttle.flush()
            failed = "; ".join(f"{s}: {m}" for s, m in self.failures.items())
            self.choice.show_progress(self.tr("failed") if failed else "", failed, running=False)

    def _say_progress(self) -> None:
        if self.job is None:
            return
        self.choice.show_progress(f"{self._done}/{self._total}", self.tr("%1: %2 of %3 steps of every map").replace(
            "%1", method_label(self.job_method)).replace("%2", str(self._done)).replace("%3", str(self._total)),
            running=True)

    def _drop_job(self) -> None:
        if self.job is not None:
            self.job.cancel()
            self.job, self.job_method = None, ""

    # -- drawing ----------------------------------------------------------------------------
    def _after_panel_draw(self, scorer: str) -> None:
        """A panel drew α (new rows, a head, the word view): the attribution goes back on top."""
        if self.method != ALPHA:
            self.draw(scorer)

    def _draw_dirty(self) -> None:
        dirty, self._dirty = self._dirty, set()
        for scorer in dirty:
            self.draw(scorer)

    def redraw_all(self) -> None:
        for scorer, panel in self._panels().items():
            if panel.heatmap is None:
                self._show_share(scorer)
            elif self.method == ALPHA:
                self._show_share(scorer)
                alpha_colours(panel.heatmap, self.parts.map_scale())
                shown = panel.shown_matrix()
                if shown is not None and panel.target_tokens:
                    panel.heatmap.set_rows(shown, panel.target_tokens, finished=panel.map_final)
            else:
                self.draw(scorer)

    def shown_matrix(self, scorer: str) -> np.ndarray | None:
        """The attribution a map shows, piece by piece (rows × source pieces; NaN: not computed yet); None
        while the map shows α or has no rows."""
        panel = self.parts.scorer_panels().get(scorer)
        if self.method == ALPHA or panel is None or not panel.target_tokens:
            return None
        rows = len(panel.target_tokens)
        store = self.stores.get(scorer)
        if store is None or self.subjects.get(scorer) != tuple(panel.target_tokens):
            return np.full((rows, len(panel.source_tokens)), np.nan, np.float32)
        return store.matrix(self.method, rows)

    def draw(self, scorer: str) -> None:
        """Draw the chosen attribution in ``scorer``'s map, on its own diverging scale."""
        panel = self.parts.scorer_panels().get(scorer)
        matrix = self.shown_matrix(scorer)
        self._show_share(scorer)
        if panel is None or panel.heatmap is None or matrix is None:
            return
        diverging_colours(panel.heatmap, diverging_scale(self.method, self.parts.map_scale() == "row"))
        panel.heatmap.set_rows(matrix, panel.target_tokens, finished=panel.map_final)

    def share_on_source(self, scorer: str) -> float | None:
        """The mean share of ``scorer``'s attribution on the source over the steps computed (None: none yet,
        or the maps show α)."""
        panel, store = self.parts.scorer_panels().get(scorer), self.stores.get(scorer)
        if self.method == ALPHA or panel is None or store is None or not store.count(self.method) \
                or self.subjects.get(scorer) != tuple(panel.target_tokens):
            return None
        return float(np.nanmean(store.shares(self.method, len(panel.target_tokens))))

    def _show_share(self, scorer: str) -> None:
        """After the panel's figures: how much of its attribution was on the source (the rest on the words it
        had written) — for the fixed-context panel, whose output has no map here, the one figure of it."""
        panel = self.parts.scorer_panels().get(scorer)
        if panel is None:
            return
        text, suffix = panel.numbers.text(), self._suffixes.pop(scorer, "")
        if suffix and text.endswith(suffix):
            text = text[: -len(suffix)]
        share = self.share_on_source(scorer)
        if share is not None:
            suffix = self.tr(" · %1 on the source: %2 %").replace("%1", SHORT_NAMES[self.method]).replace(
                "%2", f"{100 * share:.0f}")
            self._suffixes[scorer] = suffix
            text += suffix
        panel.numbers.setText(text)

    def panel_record(self, scorer: str) -> dict | None:
        """The grid export's ``attribution`` of ``scorer``'s panel (gui/attention/attribution_math.py's record,
        pieces); None while the maps show α or nothing of it is computed."""
        panel, store = self.parts.scorer_panels().get(scorer), self.stores.get(scorer)
        if self.method == ALPHA or panel is None or store is None \
                or self.subjects.get(scorer) != tuple(panel.target_tokens):
            return None
        return attribution_json(store, self.method, len(panel.target_tokens))
