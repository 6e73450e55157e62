"""The Compare view's controller: the only code of the view that starts workers and calls the engine.

It finds one model per scorer of the chosen direction (engine.records.catalog), loads them in the
background, and on :meth:`compare` decodes the sentence with every model at once — one worker
that steps the models in turn — streaming each model's steps as the Translate view does. When a shared target is chosen it
then forces that target on every model (engine.decoding.forced), so that the maps share rows, and asks the
word aligner for its links between the sentence and that target (the aligner map). Every run has
an id: items of an older run are dropped, so no panel ever shows rows of a sentence it no longer
shows.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Signal

from gui.common.catalog_jobs import LoadFailure, catalog_items, load_items
from gui.common.past import PastModel, past_items
from gui.compare.model import OWN_OUTPUTS, PanelSlot, forced_target, plan_slots
from gui.workers import JobSet, JobStarter

if TYPE_CHECKING:
    from engine.models import ModelBundle


@dataclass(frozen=True)
class CompareRun:
    """One sentence decoded by every loaded model."""

    run_id: int
    text: str
    reference: str
    target_choice: str


@dataclass(frozen=True)
class ForcedFailure:
    scorer: str
    message: str


@dataclass(frozen=True)
class DecodeFailure:
    message: str


def interleaved_items(translators: dict[str, object], text: str) -> Iterator[tuple[str, object]]:
    """Every model's greedy decoding of ``text``, one step of each in turn: (scorer, DecodeStep),
    then (scorer, Translation) when that model is done, or (scorer, DecodeFailure).

    One worker runs all the models: five Python threads decoding at once would compete with the GUI
    thread for the interpreter lock and the two cores, and hold the event loop for the whole run;
    taking turns streams every panel just as live and leaves the GUI thread its share."""
    from engine.settings import DecodeConfig

    generators = {scorer: translator.steps(text, DecodeConfig()) for scorer, translator in translators.items()}
    while generators:
        for scorer in list(generators):
            try:
                yield scorer, next(generators[scorer])
            except StopIteration as stop:
                del generators[scorer]
                yield scorer, stop.value
            except Exception as error:  # one model failing must not stop the others
                del generators[scorer]
                yield scorer, DecodeFailure(f"{type(error).__name__}: {error}")


ALIGNER = "aligner"  # the key of the word aligner's item after the models' forced decodes


def forced_and_aligned(bundles: dict[str, ModelBundle], text: str, target: str) -> Iterator[tuple[str, object]]:
    """:func:`forced_items`, then (ALIGNER, engine.studies.aligner.AlignerMap): the word aligner's links
    between ``text`` and ``target``, in the same worker once the models are done (it never raises:
    a missing aligner or alignment file is said in the map's note)."""
    from engine.studies import aligner_map

    yield from forced_items(bundles, text, target)
    if bundles:
        first = next(iter(bundles.values()))
        yield ALIGNER, aligner_map(text, target, first.source_language, first.target_language)


def forced_items(bundles: dict[str, ModelBundle], text: str, target: str) -> Iterator[tuple[str, object]]:
    """``target`` forced on every model, one after another: (scorer, ForcedDecode or ForcedFailure).
    One worker for all, for the reason given in :func:`interleaved_items` (five forcing threads at
    once made each of the window's paints wait for the interpreter lock)."""
    from engine.decoding import force_decode
    from engine.settings import EngineError

    for scorer, bundle in bundles.items():
        try:
            # The output layer once over all steps: ~2–3× faster; the numbers shown are unchanged at
            # their printed precision (log-probabilities agree to float32 rounding, the attention exactly).
            yield scorer, force_decode(bundle.translator, text, target, bundle.target_language, batched_output=True)
        except EngineError as error:
            yield scorer, ForcedFailure(scorer, str(error))


class CompareController(QObject):
    slotsChanged = Signal(object)  # list[PanelSlot]
    modelsLoaded = Signal()  # every usable slot has a model (or a load failure)
    modelFailed = Signal(str, str)  # scorer, why its model cannot be used
    runStarted = Signal(object)  # CompareRun
    stepArrived = Signal(str, object)  # scorer, DecodeStep of free decoding
    decodeFinished = Signal(str, object)  # scorer, Translation
    forcedStarted = Signal(str)  # the target forced on every model
    forcedReady = Signal(str, object)  # scorer, ForcedDecode
    forcedFailed = Signal(str, str)  # scorer, message
    runFinished = Signal()  # every panel has its final content for the current run and target
    alignerStarted = Signal()  # the word aligner is about to link the source and the shared target
    alignerReady = Signal(object)  # its engine.studies.aligner.AlignerMap; None: the maps share no target
    pastChanged = Signal(str)  # a run's earlier weights back their scorer's panel: their label; "" when back
    pastFailed = Signal(str)  # why a run's earlier weights cannot be used (the panels keep their models)

    def __init__(self, parent: QObject | None = None, jobs: JobStarter | None = None) -> None:
        """``jobs`` starts the background jobs (tests pass a fake that runs them inline)."""
        super().__init__(parent)
        self.jobs: JobStarter = jobs if jobs is not None else JobSet(self)
        self.direction = "zh-en"
        self.slots: list[PanelSlot] = []
        self.bundles: dict[str, ModelBundle] = {}
        self.outputs: dict[str, str] = {}  # scorer → its free output of the current run
        self.target_choice = OWN_OUTPUTS
        self.run: CompareRun | None = None
        self._run_id = 0
        self._entries: list = []
        self._loading: set[str] = set()
        self._decoding: set[str] = set()
        self._forcing: set[str] = set()
        self._pending: tuple[str, str] | None = None
        self._run_jobs: list = []  # the decoding and forcing jobs of the current run
        self._planned = False  # the catalog has been scanned and the slots planned
        self._closed = False
        self.past: PastModel | None = None  # a run's earlier weights backing their scorer's panel (read-only)
        self._past_job = None
        self._before_past = ""  # the direction shown before the earlier weights came (Back returns to it)
        self._set_aside: tuple[str, str, str] | None = None  # (language, text, reference) of a sentence left
        # undecoded when the direction changed to models of another language: decoded again on return to it

    # -- models -----------------------------------------------------------------------------
    def start(self, direction: str) -> None:
        """Scan the catalog in the background, then load one model per scorer of ``direction`` (the
        run's direction instead when a run's earlier weights are in use)."""
        self.direction = self.past.direction if self.past is not None else direction
        job = self.jobs.start(lambda: catalog_items(None), "compare catalog scan")
        job.yielded.connect(lambda _id, snapshot: self._apply_catalog(snapshot.entries))

    def set_direction(self, direction: str) -> None:
        if direction != self.direction:
            self.direction = direction
            self.cancel()
            self._plan()

    def directions(self) -> list[str]:
        return sorted({e.direction for e in self._entries})

    def _apply_catalog(self, entries: list) -> None:
        self._entries = entries
        self._plan()

    def _plan(self) -> None:
        self._planned = True
        past_scorer = self._past_scorer()
        self.slots = [replace(slot, past=self.past.label, reason="") if slot.scorer == past_scorer else slot
                      for slot in plan_slots(self._entries, self.direction)]
        self.bundles = {past_scorer: self.past.bundle} if past_scorer and self.past else {}
        self._loading = {s.scorer for s in self.slots if s.usable and s.scorer != past_scorer}
        self.slotsChanged.emit(self.slots)
        self._load_slots()
        if not self._loading:
            self._pending = None  # no model for this direction: nothing to compare with
            self.modelsLoaded.emit()

    def _load_slots(self) -> None:
        """One background load per slot still to load (the past's slot has its model already)."""
        for slot in self.slots:
            if slot.scorer in self._loading and slot.entry is not None:
                folder, scorer = slot.entry.folder, slot.scorer
                job = self.jobs.start(lambda folder=folder: load_items(folder), f"compare load {scorer}")
                job.yielded.connect(lambda _id, result, scorer=scorer, direction=self.direction:
                                    self._on_loaded(scorer, direction, result))
                job.failed.connect(lambda _id, message, _details, scorer=scorer, folder=folder,
                                   direction=self.direction:
                                   self._on_loaded(scorer, direction, LoadFailure(folder, message)))

    # -- back through training ----------------------------------------------------------------
    def use_past(self, folder: Path, step: float) -> None:
        """Decode with the run ``folder``'s weights nearest ``step`` (read-only, gui.common.past) in its
        scorer's panel, in the run's direction; the other panels keep their models."""
        if self._closed:
            return
        if self._past_job is not None:
            self._past_job.cancel()
        job = self.jobs.start(lambda: past_items(folder, step), f"compare load {folder.name} at step {step:,.0f}")
        self._past_job = job
        job.yielded.connect(self._on_past)
        job.failed.connect(lambda job_id, message, _details: self._on_past(job_id, LoadFailure(folder, message)))

    def back_to_final(self) -> None:
        """Leave the earlier weights: the direction shown before them, every panel backed by its model again
        (a curve click still waiting for the tab to be shown, or for its weights, is forgotten)."""
        if self._past_job is not None:
            self._past_job.cancel()
            self._past_job = None
        if self.past is not None:
            self.past = None
            self._replan(self._before_past or self.direction)
            self.pastChanged.emit("")

    def _past_scorer(self) -> str | None:
        return self.past.bundle.scorer if self.past is not None and self.past.direction == self.direction else None

    def _on_past(self, job_id: int, result: object) -> None:
        if self._past_job is None or self._past_job.id != job_id:
            return
        self._past_job = None
        if isinstance(result, LoadFailure):
            self.pastFailed.emit(self.tr("Cannot go back to that step of %1: %2").replace("%1", result.folder.name).replace(
                "%2", result.reason))
            return
        if self.past is None:
            self._before_past = self.direction
        self.past = result  # type: ignore[assignment]
        self._replan(self.past.direction)  # type: ignore[union-attr]
        self.pastChanged.emit(self.past.label)  # type: ignore[union-attr]

    def source_language(self, direction: str) -> str:
        """The language ``direction``'s models read ("" when no model of it is known)."""
        if self.past is not None and self.past.direction == direction:
            return self.past.bundle.source_language
        return next((e.source_language for e in self._entries if e.direction == direction), "")

    def _replan(self, direction: str) -> None:
        """Plan the panels again for ``direction`` and decode the sentence on screen again once the
        models are in, when they read its language (a Chinese sentence is never given to the dates
        task's model); before the catalog is scanned, only the direction is kept: the scan plans."""
        before, after = self.source_language(self.direction), self.source_language(direction)
        self.direction = direction
        if not self._planned:
            return
        again = (self.run.text, self.run.reference) if self.run is not None else self._pending
        if before != after:
            again = self._change_language(before, after, again)
        self.cancel()
        self._plan()
        if again is not None and self._loading:
            self._pending = again
        elif again is not None and self.bundles:
            self.compare(*again)

    def _change_language(self, before: str, after: str, again: tuple[str, str] | None) -> tuple[str, str] | None:
        """The source language changes from ``before`` to ``after``: the sentence on screen (``again``) is set
        aside, and one set aside in ``after`` comes back; what to decode again (None: nothing)."""
        if again is not None:
            self._set_aside = (before, *again)
        again = None
        if self._set_aside is not None and self._set_aside[0] == after:  # back to the sentence's language
            again, self._set_aside = self._set_aside[1:], None
        self.run = None
        return again

    def _on_loaded(self, scorer: str, direction: str, result: object) -> None:
        if direction != self.direction or scorer not in self._loading:
            return
        self._loading.discard(scorer)
        if isinstance(result, LoadFailure):
            self.modelFailed.emit(scorer, self.tr("cannot load %1: %2").replace("%1", result.folder.name).replace(
                "%2", result.reason))
        else:
            self.bundles[scorer] = result  # type: ignore[assignment]
        if not self._loading:
            self.modelsLoaded.emit()
            if self._pending is not None:
                text, reference = self._pending
                self._pending = None
                self.compare(text, reference)

    @property
    def loading(self) -> bool:
        return bool(self._loading) or not self._planned

    # -- runs -------------------------------------------------------------------------------
    def compare(self, text: str, reference: str = "") -> bool:
        """Decode ``text`` with every loaded model (cancelling the run in progress)."""
        if self._closed or not text.strip():
            return False
        if self._loading or not self._planned:
            self._pending = (text, reference)  # compared as soon as the models are ready
            return True
        if not self.bundles:
            return False
        self.cancel()
        self._run_id += 1
        run_id = self._run_id
        self.run = CompareRun(run_id, text, reference, self.target_choice)
        self.outputs = {}
        self._decoding = set(self.bundles)
        self.runStarted.emit(self.run)
        translators = {scorer: bundle.translator for scorer, bundle in self.bundles.items()}
        job = self.jobs.start(lambda: interleaved_items(translators, text), "compare decode")
        self._run_jobs.append(job)
        job.yielded.connect(lambda _id, item, run_id=run_id: self._on_decoded(run_id, *item))
        job.failed.connect(lambda _id, message, _details, run_id=run_id: [
            self._on_decode_failed(run_id, scorer, message) for scorer in list(self._decoding)])
        return True

    def set_reference(self, reference: str) -> None:
        if self.run is not None and reference != self.run.reference:
            self.run = CompareRun(self.run.run_id, self.run.text, reference, self.run.target_choice)
            if not self._decoding:
                self._force()

    def set_target(self, choice: str) -> None:
        """Share ``choice``'s target between the maps (or let every model decode freely)."""
        self.target_choice = choice
        if self.run is not None:
            self.run = CompareRun(self.run.run_id, self.run.text, self.run.reference, choice)
            if not self._decoding:
                self._force()

    def _on_decoded(self, run_id: int, scorer: str, item: object) -> None:
        if run_id != self._run_id:
            return
        from engine.decoding import Translation

        if isinstance(item, DecodeFailure):
            self._on_decode_failed(run_id, scorer, item.message)
        elif isinstance(item, Translation):
            self.outputs[scorer] = item.text
            self._decoding.discard(scorer)
            self.decodeFinished.emit(scorer, item)
            if not self._decoding:
                self._force()
        else:
            self.stepArrived.emit(scorer, item)

    def _on_decode_failed(self, run_id: int, scorer: str, message: str) -> None:
        if run_id != self._run_id:
            return
        self._decoding.discard(scorer)
        self.forcedFailed.emit(scorer, self.tr("decoding failed: %1").replace("%1", message))
        if not self._decoding:
            self._force()

    def _force(self) -> None:
        """After free decoding: force the chosen target on every model, or end the run."""
        for job in self._run_jobs:  # an earlier target's forcing, if one is still going
            job.cancel()
        self._run_jobs = []
        run = self.run
        target = forced_target(run.target_choice, run.reference, self.outputs) if run is not None else None
        if run is None or target is None:
            self.alignerReady.emit(None)
            self.runFinished.emit()
            return
        self._forcing = set(self.bundles)
        self.forcedStarted.emit(target)
        self.alignerStarted.emit()
        run_id, bundles = run.run_id, dict(self.bundles)
        job = self.jobs.start(lambda: forced_and_aligned(bundles, run.text, target), "compare forced")
        self._run_jobs.append(job)
        job.yielded.connect(lambda _id, item, run_id=run_id, choice=run.target_choice:
                            self._on_forced(run_id, choice, *item))

    def _on_forced(self, run_id: int, choice: str, scorer: str, item: object) -> None:
        if run_id != self._run_id or self.run is None or choice != self.run.target_choice:
            return
        if scorer == ALIGNER:
            self.alignerReady.emit(item)
            return
        self._forcing.discard(scorer)
        if isinstance(item, ForcedFailure):
            self.forcedFailed.emit(scorer, item.message)
        else:
            self.forcedReady.emit(scorer, item)
        if not self._forcing:
            self.runFinished.emit()

    def cancel(self) -> None:
        """Forget the current run; its workers end on their own and nothing they send is shown."""
        self._run_id += 1
        self._decoding, self._forcing = set(), set()
        for job in self._run_jobs:
            job.cancel()
        self._run_jobs = []

    @property
    def busy(self) -> bool:
        return bool(self._decoding or self._forcing or self._loading)

    def shutdown(self, timeout_ms: int = 3000) -> bool:
        self._closed = True
        self.cancel()
        return self.jobs.stop_all(timeout_ms)
