"""The Translate view's controller: the only code here that starts workers and calls the engine.

It scans the catalog and loads models in the background (gui/translate/model_source.py: the model in
use stays until a new one has loaded, and a failed load leaves it in place), and runs one decoding
at a time. Every job has an
id; signals of a job that is no longer current (a cancelled run, a superseded load) are dropped,
so rows of one model never land under another run's tokens.

With ``ask_language`` on, an input that is not in the model's source language
(engine.text.language_check) is not decoded: ``languageRefused`` says why, and the sentence waits — a
model of another direction, once loaded, decodes it; ``translate(..., check_language=False)``
decodes it as it is.

Each step is checked in the decode's worker (engine.decoding.finite_output): a model whose weights overflow
on the input (NaN attention or probabilities) ends the run with ``runRefused`` — one line, a model
error — instead of a failure's dialog or an empty map.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Signal, Slot

from engine.decoding import finite_steps  # torch-free
from engine.settings import EngineError, NonFiniteError, ScorerInfo, scorer_row  # torch-free
from gui.translate.model_source import ModelSource
from gui.translate.whatif_state import WhatIf
from gui.workers import Job, JobStarter

if TYPE_CHECKING:
    from engine.decoding import PreparedSource
    from engine.models import ModelBundle
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
    scorer: ScorerInfo  # the model's mechanism: its registry row (engine.settings.scorer_row)

    @property
    def uses_attention(self) -> bool:
        return self.bundle.translator.uses_attention


class TranslateController(ModelSource):
    """The models (catalog, loads, earlier weights: gui/translate/model_source.py) and the decoding runs."""

    runStarted = Signal(object)  # RunInfo
    stepArrived = Signal(object)  # DecodeStep of the current run
    runFinished = Signal(object)  # Translation of the current run
    runFailed = Signal(str, str)  # message, traceback
    runRefused = Signal(str)  # why the model's output cannot be shown (non-finite: a model error), one line
    runEnded = Signal(str)  # finished | stopped | failed
    stateChanged = Signal(str)  # idle | running | paused
    runHeld = Signal()  # the paused run's worker waits: every step it decoded has arrived
    whatIfRefused = Signal(str)  # why a what-if change cannot apply (the previous decode stays)
    languageRefused = Signal(str, object)  # text, engine.text.language_check.LanguageCheck: not decoded

    def __init__(self, parent: QObject | None = None, jobs: JobStarter | None = None) -> None:
        """``jobs`` starts the background jobs (tests pass a fake that runs them inline)."""
        super().__init__(parent, jobs)
        self.text = ""  # the sentence last asked for (re-decoded when the model changes)
        self.beam_size = 1
        self.delay = 0.0
        self.state = IDLE
        self.last_run: RunInfo | None = None
        self._run_job: Job | None = None
        self._pending_text: str | None = None
        self.ask_language = False  # refuse input in another language than the model's (the tab sets it)
        self._language_accepted: tuple[str, str] | None = None  # (text, source language) decoded as it is

    def _no_model_coming(self) -> None:
        """The first scan ended without a model to load: no sentence waits for one."""
        self._pending_text = None

    def _model_ready(self) -> None:
        """A model is now in use: decode the sentence that waited for it, or the one on screen again."""
        text = self._pending_text if self._pending_text is not None else self.text
        self._pending_text = None
        if text.strip():
            self.translate(text)

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

        job = self.jobs.start(lambda: finite_steps(translator.steps(prepared, config, steering)), "decode", configure)
        self._run_job = job
        self.last_run = RunInfo(job.id, prepared, self.bundle, self.beam_size, scorer_row(self.bundle.scorer))
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
        from engine.decoding import NO_STEERING, make_steering

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
            refused = f"{NonFiniteError.__name__}: "
            if message.startswith(refused):
                self.runRefused.emit(message.removeprefix(refused))
            else:
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
