"""The Translate view's controller: the only code here that starts workers and calls the engine.

It scans the catalog and loads models in the background, keeps the model in use until a new one
has loaded (a failed load leaves it in place), and runs one decoding at a time. Every job has an
id; signals of a job that is no longer current (a cancelled run, a superseded load) are dropped,
so rows of one model never land under another run's tokens.

With ``ask_language`` on, an input that is not in the model's source language
(engine.language_check) is not decoded: ``languageRefused`` says why, and the sentence waits — a
model of another direction, once loaded, decodes it; ``translate(..., check_language=False)``
decodes it as it is.
"""

from __future__ import annotations

import dataclasses
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Signal, Slot

from engine.errors import EngineError  # torch-free
from gui.common.catalog_jobs import CatalogSnapshot, LoadFailure, catalog_items, load_items, scan_catalog
from gui.translate.choices import ModelChoices
from gui.translate.past import PastModel, past_items
from gui.translate.whatif_state import WhatIf
from gui.workers import Job, JobSet, JobStarter

if TYPE_CHECKING:
    from engine.bundle import ModelBundle
    from engine.catalog import ModelEntry
    from engine.translator import PreparedSource
    from gui.workers import GeneratorWorker

IDLE, RUNNING, PAUSED = "idle", "running", "paused"
FINISHED, STOPPED, FAILED = "finished", "stopped", "failed"


@dataclass(frozen=True)
class RunInfo:
    """One decoding run: what is decoded, with which model."""

    run_id: int
    prepared: PreparedSource
    bundle: ModelBundle
    beam_size: int
    scorer_label: str
    formula: str

    @property
    def uses_attention(self) -> bool:
        return self.bundle.translator.uses_attention


class TranslateController(QObject):
    engineReady = Signal()  # the first catalog scan ended: the engine (PyTorch) is imported
    catalogChanged = Signal(object)  # ModelChoices
    modelLoading = Signal(object)  # ModelEntry being loaded
    modelLoaded = Signal(object)  # ModelBundle now in use
    modelFailed = Signal(str)  # why a model could not be loaded (the previous one stays)
    pastLoaded = Signal(str)  # the model in use is a run's earlier weights: 'model at step 2,000 of …'
    runStarted = Signal(object)  # RunInfo
    stepArrived = Signal(object)  # DecodeStep of the current run
    runFinished = Signal(object)  # Translation of the current run
    runFailed = Signal(str, str)  # message, traceback
    runEnded = Signal(str)  # finished | stopped | failed
    stateChanged = Signal(str)  # idle | running | paused
    runHeld = Signal()  # the paused run's worker waits: every step it decoded has arrived
    whatIfRefused = Signal(str)  # why a what-if change cannot apply (the previous decode stays)
    languageRefused = Signal(str, object)  # text, engine.language_check.LanguageCheck: not decoded

    def __init__(self, parent: QObject | None = None, jobs: JobStarter | None = None) -> None:
        """``jobs`` starts the background jobs (tests pass a fake that runs them inline)."""
        super().__init__(parent)
        self.jobs: JobStarter = jobs if jobs is not None else JobSet(self)
        self.choices: ModelChoices | None = None
        self.scorers: dict[str, tuple[str, str]] = {}
        self.unusable: list = []  # the model folders the last scan could not use (engine.catalog.UnusableFolder)
        self.bundle: ModelBundle | None = None
        self.entry: ModelEntry | None = None
        self.text = ""  # the sentence last asked for (re-decoded when the model changes)
        self.beam_size = 1
        self.delay = 0.0
        self.state = IDLE
        self.last_run: RunInfo | None = None
        self._pinned_folder: Path | None = None
        self._load_job: Job | None = None
        self._loading_entry: ModelEntry | None = None
        self._run_job: Job | None = None
        self._pending_text: str | None = None
        self._failed: set[Path] = set()  # folders that failed to load this session
        self.past: PastModel | None = None  # a run's earlier weights in use (gui.translate.past), if any
        self._before_past: ModelEntry | None = None  # the model in use before going back through training
        self._closed = False  # after shutdown no new job starts
        self._scanning = False  # the first catalog scan is running
        self.ask_language = False  # refuse input in another language than the model's (the tab sets it)
        self._language_accepted: tuple[str, str] | None = None  # (text, source language) decoded as it is

    # -- catalog ----------------------------------------------------------------------------
    def start(self, pinned_folder: Path | None, direction: str | None, scorer: str | None) -> None:
        """Scan the catalog in the background, then load the first model."""
        self._pinned_folder = pinned_folder
        self._scanning = True
        job = self.jobs.start(lambda: catalog_items(pinned_folder), "catalog scan")
        job.yielded.connect(lambda _id, snapshot: self._apply_catalog(snapshot, (direction, scorer)))
        job.failed.connect(lambda _id, message, details: self.modelFailed.emit(f"Cannot list models: {message}"))
        job.done.connect(self._on_first_scan_done)

    def _on_first_scan_done(self, _job_id: int) -> None:
        self._scanning = False
        if self.bundle is None and not self.loading:
            self._pending_text = None  # no model to translate with after all
        self.engineReady.emit()

    def rescan(self) -> None:
        """List the model folders again (a model was just trained): choices update at once."""
        if "engine.catalog" in sys.modules:
            self._apply_catalog(scan_catalog(self._pinned_folder), None)
        else:
            job = self.jobs.start(lambda: catalog_items(self._pinned_folder), "catalog scan")
            job.yielded.connect(lambda _id, snapshot: self._apply_catalog(snapshot, None))

    def _apply_catalog(self, snapshot: CatalogSnapshot, initial: tuple[str | None, str | None] | None) -> None:
        self.scorers = snapshot.scorers
        self.unusable = list(snapshot.unusable)
        labels = {name: label for name, (label, _) in snapshot.scorers.items()}
        self.choices = ModelChoices(snapshot.entries, labels, snapshot.pinned)
        if initial is not None and snapshot.pinned_error:
            self.modelFailed.emit(f"Cannot open the model folder given on the command line: {snapshot.pinned_error}")
        entry = None
        if self.bundle is None and not self.loading:  # at start, or the first model just appeared
            wanted = initial if initial is not None else (None, None)
            entry = self.choices.initial(wanted[0], wanted[1], snapshot.default)
            if entry is not None and entry.folder in self._failed:
                entry = self._fallback()
        if entry is not None:
            self.load(entry)  # before catalogChanged, so that the view shows the model coming
        self.catalogChanged.emit(self.choices)

    # -- models -----------------------------------------------------------------------------
    @property
    def loading(self) -> bool:
        return self._load_job is not None

    @property
    def starting(self) -> bool:
        """True until the first model is in use or known not to come (scan or load running)."""
        return self.bundle is None and (self._scanning or self.loading)

    @property
    def loading_entry(self) -> ModelEntry | None:
        return self._loading_entry

    def select(self, direction: str, scorer: str) -> bool:
        """Use the model behind (direction, scorer); False when there is none."""
        entry = self.choices.best(direction, scorer) if self.choices else None
        if entry is None:
            return False
        if self.past is None and self.entry is not None and entry.folder == self.entry.folder and (
                entry.modified == self.entry.modified):
            if self.loading:  # back to the model in use: forget the load in flight
                self._drop_load()
                self.modelLoaded.emit(self.bundle)
            return True
        if self._loading_entry is not None and entry.folder == self._loading_entry.folder:
            return True
        self.load(entry)
        return True

    def load(self, entry: ModelEntry) -> None:
        """Load ``entry`` in the background; the current model stays in use until it is ready."""
        if self._closed:
            return
        self._drop_load()
        folder = entry.folder
        job = self.jobs.start(lambda: load_items(folder), f"load {entry.name}")
        self._load_job, self._loading_entry = job, entry
        job.yielded.connect(self._on_loaded)
        job.failed.connect(self._on_load_failed)
        self.modelLoading.emit(entry)

    def load_past(self, folder: Path, step: float) -> None:
        """Load the run ``folder``'s weights nearest ``step`` (read-only: gui.translate.past) and decode
        the current text with them; the model in use stays until they are ready."""
        if self._closed:
            return
        self._drop_load()
        job = self.jobs.start(lambda: past_items(folder, step), f"load {folder.name} at step {step:,.0f}")
        self._load_job = job
        job.yielded.connect(self._on_past_loaded)
        job.failed.connect(lambda job_id, message, _details: self._on_past_loaded(job_id, LoadFailure(folder, message)))

    def back_to_final(self) -> None:
        """Leave the earlier weights for the model in use before (or, without one, the run's saved model)."""
        if self.past is None:
            return
        if self._before_past is not None:
            self.load(self._before_past)
            return
        folder = self.past.bundle.folder
        self._drop_load()
        job = self.jobs.start(lambda: load_items(folder), f"load {folder.name}")
        self._load_job = job
        job.yielded.connect(self._on_loaded)
        job.failed.connect(self._on_load_failed)

    @Slot(int, object)
    def _on_past_loaded(self, job_id: int, result: object) -> None:
        if not self._is_current_load(job_id):
            return
        self._load_job = None
        if isinstance(result, LoadFailure):
            kept = " The model in use stays." if self.bundle is not None else ""
            self.modelFailed.emit(f"Cannot go back to that step of {result.folder.name}: {result.reason}.{kept}")
            return
        if self.past is None:
            self._before_past = self.entry
        folder = result.bundle.folder
        self.bundle, self.past = result.bundle, result  # type: ignore[assignment]
        self.entry = next((e for e in (self.choices.entries if self.choices else []) if e.folder == folder), None)
        self.modelLoaded.emit(result.bundle)  # type: ignore[union-attr]
        self.pastLoaded.emit(result.label)  # type: ignore[union-attr]
        text = self._pending_text if self._pending_text is not None else self.text
        self._pending_text = None
        if text.strip():
            self.translate(text)

    def _drop_load(self) -> None:
        if self._load_job is not None:
            self._load_job.cancel()
        self._load_job, self._loading_entry = None, None

    def _is_current_load(self, job_id: int) -> bool:
        return self._load_job is not None and self._load_job.id == job_id

    @Slot(int, object)
    def _on_loaded(self, job_id: int, result: object) -> None:
        if not self._is_current_load(job_id):
            return
        entry = self._loading_entry
        self._load_job, self._loading_entry = None, None
        if isinstance(result, LoadFailure):
            self._load_failed(result.folder, f"Cannot load the model {result.folder.name}: {result.reason}")
            return
        self.bundle, self.entry = result, entry  # type: ignore[assignment]
        self.past = None
        self.modelLoaded.emit(result)
        text = self._pending_text if self._pending_text is not None else self.text
        self._pending_text = None
        if text.strip():
            self.translate(text)

    @Slot(int, str, str)
    def _on_load_failed(self, job_id: int, message: str, details: str) -> None:
        if self._is_current_load(job_id) and self._loading_entry is not None:
            folder = self._loading_entry.folder
            self._load_job, self._loading_entry = None, None
            self._load_failed(folder, f"Cannot load the model {folder.name}: {message}")

    def _load_failed(self, folder: Path, message: str) -> None:
        """Report the failure; with no model in use yet, open another one instead."""
        self._failed.add(folder)
        fallback = self._fallback() if self.bundle is None else None
        if self.bundle is not None:
            message += " The previous model is still in use."
        elif fallback is not None:
            message += f" Opening {fallback.name} instead."
        self.modelFailed.emit(message)
        if fallback is not None:
            self.load(fallback)

    def _fallback(self) -> ModelEntry | None:
        """Another model to open when the first one fails: newest first, never one that failed."""
        candidates = self.choices.entries if self.choices else []
        usable = [e for e in candidates if e.folder not in self._failed]
        return max(usable, key=lambda e: (not e.shipped, e.modified), default=None) if usable else None

    # -- decoding ---------------------------------------------------------------------------
    def prepare(self, text: str) -> PreparedSource | None:
        """The current model's view of ``text`` (tokens, truncation notice); None without a model."""
        return self.bundle.translator.prepare(text) if self.bundle is not None else None

    @property
    def running(self) -> bool:
        return self._run_job is not None

    def translate(self, text: str, whatif: WhatIf | None = None, check_language: bool = True) -> bool:
        """Decode ``text`` (cancelling a run in progress), steered by ``whatif`` when given. Before a
        model has loaded the request waits for it. False when there is nothing to translate, the
        what-if cannot apply (``whatIfRefused`` says why), or ``ask_language`` is on and the text is
        not in the model's source language (``languageRefused``; ``check_language=False`` decodes
        it all the same, and so do later runs of the same text with the same source language)."""
        if not text.strip() or self._closed:
            return False
        if self.bundle is None:
            if not self.starting:
                return False
            self._pending_text = text  # translated as soon as the model is ready
            return True
        prepared = self.bundle.translator.prepare(text)
        if prepared.empty:
            return False
        if self.ask_language and self._language_refused(text, prepared, check_language):
            return False
        try:
            steering = self._steering(prepared, whatif)
        except EngineError as error:
            self.whatIfRefused.emit(str(error))
            return False
        self.text = text
        self._pending_text = None  # a sentence waiting for a model is superseded by this one
        self.cancel()

        translator, config, delay = self.bundle.translator, self.bundle.decode_config(self.beam_size), self.delay

        def configure(worker: GeneratorWorker) -> None:
            worker.set_delay(delay)

        job = self.jobs.start(lambda: translator.steps(prepared, config, steering), "decode", configure)
        label, formula = self.scorers.get(self.bundle.scorer, (self.bundle.scorer, ""))
        self._run_job = job
        self.last_run = RunInfo(job.id, prepared, self.bundle, self.beam_size, label, formula)
        job.yielded.connect(self._on_step)
        job.returned.connect(self._on_returned)
        job.failed.connect(self._on_run_failed)
        job.done.connect(self._on_run_done)
        job.held.connect(lambda job_id: self.runHeld.emit() if self._is_current_run(job_id) else None)
        self.runStarted.emit(self.last_run)
        self._set_state(RUNNING)
        return True

    def _language_refused(self, text: str, prepared: PreparedSource, check: bool) -> bool:
        """Whether ``text`` is refused for not being in the model's source language: then
        ``languageRefused`` says why, and the text waits for a model that reads it (a direction
        switched to decodes it once loaded)."""
        key = (text, self.bundle.source_language)
        if not check:
            self._language_accepted = key
            return False
        if key == self._language_accepted:
            return False
        verdict = self.bundle.translator.check_language(prepared)
        if verdict.ok:
            return False
        self._pending_text = text
        self.languageRefused.emit(text, verdict)
        return True

    def _steering(self, prepared: PreparedSource, whatif: WhatIf | None):
        """The engine's Steering for ``whatif`` (raises EngineError when it cannot apply)."""
        from engine.search import NO_STEERING
        from engine.whatif import make_steering

        if whatif is None or not whatif.active:
            return NO_STEERING
        bundle = self.bundle
        steering = make_steering(bundle.translator, prepared, bundle.target_language,
                                 "" if whatif.prefix_ids else whatif.prefix_text, whatif.override_weights())
        if whatif.prefix_ids:
            steering = dataclasses.replace(steering, prefix=tuple(whatif.prefix_ids))
        return steering

    def cancel(self) -> None:
        """Forget the current run (its thread ends on its own; nothing it sends is shown)."""
        if self._run_job is not None:
            self._run_job.cancel()
            self._run_job = None
            self._set_state(IDLE)

    def stop(self) -> None:
        """End the current run where it is (the rows shown stay)."""
        if self._run_job is not None:
            self.cancel()
            self.runEnded.emit(STOPPED)

    def pause(self) -> None:
        if self._run_job is not None:
            self._run_job.worker.pause()
            self._set_state(PAUSED)

    def resume(self) -> None:
        if self._run_job is not None:
            self._run_job.worker.resume()
            self._set_state(RUNNING)

    def step(self) -> None:
        """While paused: decode exactly one more token."""
        if self._run_job is not None:
            if self.state != PAUSED:
                self.pause()
            self._run_job.worker.step()

    def set_delay(self, seconds: float) -> None:
        self.delay = max(0.0, seconds)
        if self._run_job is not None:
            self._run_job.worker.set_delay(self.delay)

    def set_beam_size(self, size: int) -> None:
        self.beam_size = size

    def _is_current_run(self, job_id: int) -> bool:
        return self._run_job is not None and self._run_job.id == job_id

    @Slot(int, object)
    def _on_step(self, job_id: int, step: object) -> None:
        if self._is_current_run(job_id):
            self.stepArrived.emit(step)

    @Slot(int, object)
    def _on_returned(self, job_id: int, translation: object) -> None:
        if self._is_current_run(job_id):
            self.runFinished.emit(translation)

    @Slot(int, str, str)
    def _on_run_failed(self, job_id: int, message: str, details: str) -> None:
        if self._is_current_run(job_id):
            self._run_job = None
            self._set_state(IDLE)
            self.runFailed.emit(message, details)
            self.runEnded.emit(FAILED)

    @Slot(int)
    def _on_run_done(self, job_id: int) -> None:
        if self._is_current_run(job_id):
            self._run_job = None
            self._set_state(IDLE)
            self.runEnded.emit(FINISHED)

    def _set_state(self, state: str) -> None:
        if state != self.state:
            self.state = state
            self.stateChanged.emit(state)

    # -- shutdown ---------------------------------------------------------------------------
    def shutdown(self, timeout_ms: int = 3000) -> bool:
        """Stop every job and wait (bounded); True when all threads have ended."""
        self._closed = True
        self._pending_text = None
        self._drop_load()
        self._run_job = None
        return self.jobs.stop_all(timeout_ms)
