"""The Training view's controller: the only code that starts training and corpus workers.

One run at a time (a CPU has no cores to spare for two); "all scorers" queues runs. The worker
relays each trainer event as a queued signal; step events are only *buffered* here and drawn by a
33 ms timer, so the window redraws about 30 times a second however fast the steps come. Stop,
pause and resume go through the engine's :class:`TrainControl`, honoured before the next batch;
stopping lets the trainer end normally, so its best model and a resumable checkpoint are saved.

Responsiveness (a 10 ms timer must not stall over 100 ms, median 20 ms, on a 2-core CPU while a
run trains), measured by ``bench/bench_training_responsiveness.py``:

- training uses all cores but one (:func:`gui.training.runner.training_threads`), leaving a core
  to the window and the Translate view;
- redraws are throttled to ≈30 a second (the buffer and timer above), with one-pixel pens, no
  grid and plot ranges that change rarely (:mod:`gui.training.ranges`), so a frame of four plots
  costs a few milliseconds;
- the objects alive at startup are frozen out of the garbage collector by the model catalog's
  worker (:func:`gui.heap.freeze_startup_heap`): a full collection otherwise holds the GIL for ~150 ms;
- torch._dynamo, which the first optimizer imports, is imported in the background when the tab is
  first shown (:func:`gui.training.runner.warm_up_training`), not at the start of a run.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QObject, QTimer, Signal, Slot

from engine.files import user_models_folder
from engine.records import ResumableRun, RunFolder, RunPhase, resumable_runs
from engine.text import format_duration
from engine.training import (
    FinishedEvent,
    FinishReason,
    StepEvent,
    TrainControl,
    ValidationEvent,
)
from gui.common.plotstyle import run_colour
from gui.training.corpus import CorpusEntry, CorpusInspection, inspect_corpus
from gui.training.records import RunRecord, status_word
from gui.training.runner import (
    RunFailed,
    RunPrepared,
    RunReplayed,
    RunRequest,
    StatusMessage,
    TestScored,
    run_training,
    warm_up_training,
)
from gui.training.settings import RunSettings
from gui.training.watch import RunWatcher
from gui.workers import Job, JobSet, JobStarter

FLUSH_INTERVAL_MS = 33  # ≈30 redraws a second at most


class TrainingController(QObject):
    """Starts, steers and stops runs; keeps a :class:`RunRecord` per run."""

    runAdded = Signal(object)  # RunRecord
    runChanged = Signal(object)  # RunRecord: new steps, status or scores (at most ≈30 times a second)
    validated = Signal(object)  # RunRecord that has a new validation point (and maybe a snapshot)
    diverged = Signal(object)  # RunRecord
    runEnded = Signal(object)  # RunRecord, after its thread has ended
    stateChanged = Signal()  # training / paused changed
    runHeld = Signal()  # a pause took hold between two batches: every step before it has arrived
    message = Signal(str, str)  # kind ("info", "error"), text
    inspected = Signal(object)  # CorpusInspection of the corpus last asked for
    modelSaved = Signal(str)  # model folder written (each new best model, and at the end of a run)

    def __init__(self, parent: QObject | None = None, jobs: JobStarter | None = None) -> None:
        """``jobs`` starts the background jobs (tests pass a fake that runs them inline)."""
        super().__init__(parent)
        self.records: list[RunRecord] = []
        self.current: RunRecord | None = None
        self.jobs: JobStarter = jobs if jobs is not None else JobSet(self)  # the run, the corpus readers and the watchers: gui.workers' one lifecycle
        self.watchers: list[RunWatcher] = []  # runs started elsewhere, followed through their metrics logs
        # True while the window still has drawing queued (the panel sets it to its plots'): a
        # watched run's reader waits for it to be done before it parses on.
        self.window_busy: Callable[[], bool] = lambda: False
        self._job: Job | None = None
        self._control: TrainControl | None = None
        self._buffer: list[StepEvent] = []
        self._queue: list[RunSettings] = []
        self._flush = QTimer(self)
        self._flush.setInterval(FLUSH_INTERVAL_MS)
        self._flush.timeout.connect(self.flush)
        self._inspect_entry: CorpusEntry | None = None
        self._warm_up_job: Job | None = None
        self._inspected: dict[CorpusEntry, CorpusInspection] = {}

    # -- state -------------------------------------------------------------------------------
    def is_training(self) -> bool:
        return self._job is not None and self._job.is_running()

    def is_paused(self) -> bool:
        return self._control is not None and self._control.paused

    def models_folder(self) -> Path:
        return user_models_folder()

    def resumable(self) -> list[ResumableRun]:
        """The runs of the models folder that can continue, newest first (engine.records.runs)."""
        return resumable_runs(self.models_folder())

    # -- runs --------------------------------------------------------------------------------
    def start(self, settings: list[RunSettings]) -> None:
        """Start the first run and queue the others (one per scorer)."""
        if self.is_training() or not settings:
            return
        self._queue = list(settings[1:])
        self._launch(settings[0].with_unique_name(self.models_folder()), None)

    def resume_run(self, run: ResumableRun) -> None:
        """Continue an interrupted run from its checkpoint, with the settings it was started with."""
        if self.is_training():
            return
        self._queue = []
        self._launch(RunSettings.of_request(run.request, run.run.name), run)

    def _launch(self, settings: RunSettings, resumed: ResumableRun | None) -> None:
        folder = resumed.folder if resumed is not None else self.models_folder() / settings.name
        record = RunRecord(folder.name, settings, folder, run_colour(len(self.records)))
        record.enter(RunPhase.PREPARING)
        self.records.append(record)
        self.current = record
        self._control = TrainControl()
        request = RunRequest(settings, folder, resume=resumed is not None)
        control = self._control
        self.runAdded.emit(record)
        # The worker holds the run's control: stop = ask the trainer (it checkpoints at the next batch),
        # and an abort asks it first; pause = the trainer's own pause, which stops its clock too.
        job = self.jobs.start(lambda: run_training(request, control), f"training {folder.name}", control=control)
        job.yielded.connect(lambda _id, item: self._on_item(item))
        job.held.connect(lambda _id: self._on_held())
        job.failed.connect(lambda _id, message, details: self._on_failed(message, details))
        job.released.connect(self._on_finished)
        self._job = job
        self._flush.start()
        self.stateChanged.emit()

    def pause(self) -> None:
        if self._job is not None and self.is_training():
            self._job.worker.pause()
            self._set_phase(RunPhase.PAUSED)
            self.stateChanged.emit()

    def resume(self) -> None:
        if self._job is not None and self.is_training():
            self._job.worker.resume()
            self._set_phase(RunPhase.TRAINING)
            self.stateChanged.emit()

    def stop(self) -> None:
        """Stop after the current batch; the best model and a checkpoint are saved."""
        self._queue = []
        if self._control is not None and self.is_training():
            self._control.request_stop()
            self._set_phase(RunPhase.STOPPING)
            self.stateChanged.emit()

    def stop_and_wait(self, timeout_ms: int = 5000) -> bool:
        """Stop the run and the corpus readers and wait for their threads (never terminates one).

        Most of the time is given to a clean stop (the trainer validates when no model exists yet
        and writes its checkpoint); if that is not enough, the worker is aborted at its next event.
        """
        self._queue = []
        for watcher in self.watchers:
            watcher.stop()
        ended = self.jobs.stop_all(timeout_ms)
        if ended:
            self._flush.stop()
        return ended

    @Slot()
    def flush(self) -> None:
        """Hand buffered step events to the record and redraw (the 33 ms timer calls this)."""
        record = self.current
        if record is None or not self._buffer:
            return
        events, self._buffer = self._buffer, []
        record.add_steps(events)
        self.runChanged.emit(record)

    def _on_held(self) -> None:
        self.flush()  # the steps before the pause are recorded before anyone hears of it
        self.runHeld.emit()

    @Slot(object)
    def _on_item(self, item: object) -> None:
        record = self.current
        if record is None:
            return
        if isinstance(item, StepEvent):
            self._buffer.append(item)
            if record.phase is RunPhase.PREPARING:
                record.enter(RunPhase.TRAINING)
            return
        self.flush()
        handler = self._ITEM_HANDLERS.get(type(item))
        if handler is not None:
            handler(self, record, item)
        self.runChanged.emit(record)

    def _on_status(self, record: RunRecord, item: StatusMessage) -> None:
        record.activity = status_word(item.text)

    def _on_prepared(self, record: RunRecord, item: RunPrepared) -> None:
        record.parameters = item.parameters
        record.enter(RunPhase.TRAINING)
        resumed = self.tr("; resumed at step %1").replace("%1", f"{item.resumed_at_step:,}") if item.resumed_at_step else ""
        self.message.emit("info", f"{record.name}: {item.report_summary}; " + self.tr(
            "%1 training pairs, %2 parameters, on %3, %4 torch thread(s)").replace("%1", f"{item.split['train']:,}").replace(
            "%2", f"{item.parameters:,}").replace("%3", item.device).replace("%4", str(item.torch_threads)) + resumed)

    def _on_replayed(self, record: RunRecord, item: RunReplayed) -> None:
        record.add_steps([event for event in item.events if isinstance(event, StepEvent)])
        for event in item.events:
            if isinstance(event, ValidationEvent):
                record.add_validation(event)

    def _on_validation(self, record: RunRecord, item: ValidationEvent) -> None:
        record.add_validation(item)
        self.validated.emit(record)
        if item.is_best:
            self.modelSaved.emit(str(record.folder))

    def _on_run_finished(self, record: RunRecord, item: FinishedEvent) -> None:
        record.finished = item
        record.enter(RunPhase.of_finish(item.reason))
        self.message.emit("info", self._finished_text(record, item))

    def _on_test_scored(self, record: RunRecord, item: TestScored) -> None:
        record.test_bleu = item.bleu
        if record.finished is not None:
            record.enter(RunPhase.of_finish(record.finished.reason))

    def _failed(self, record: RunRecord, failure: RunFailed) -> None:
        record.error = failure.message
        self._queue = []
        if failure.kind == "diverged":
            record.enter(RunPhase.DIVERGED)
            elapsed = record.last_step.elapsed_seconds if record.last_step is not None else math.nan
            record.diverged_at = (failure.step, elapsed)
            self.diverged.emit(record)
            self.message.emit("error", f"{record.name}: {failure.message}")
        elif failure.kind == "data":
            record.enter(RunPhase.NOT_STARTED)
            self.message.emit("error", self.tr("Cannot start training: %1").replace("%1", failure.message))
        else:
            record.enter(RunPhase.FAILED)
            self.message.emit("error", f"{record.name}: {failure.message}")

    # What each item of a run's worker does to its record (a step is buffered: see _on_item).
    _ITEM_HANDLERS = {StatusMessage: _on_status, RunReplayed: _on_replayed, RunPrepared: _on_prepared,
                      ValidationEvent: _on_validation,
                      FinishedEvent: _on_run_finished, TestScored: _on_test_scored, RunFailed: _failed}

    @Slot(str, str)
    def _on_failed(self, message: str, details: str) -> None:
        record = self.current
        if record is not None:
            self._failed(record, RunFailed("error", self.tr("unexpected error: %1").replace("%1", message), 0))
            self.runChanged.emit(record)

    @Slot(object)
    def _on_finished(self, job: Job) -> None:
        """The run's thread has ended."""
        record = self.current
        if job is not self._job or record is None:
            return
        self.flush()
        self._flush.stop()
        self._job, self._control, self.current = None, None, None
        if record.phase.live:  # its thread ended without saying how
            record.enter(RunPhase.ENDED)
        if record.run.has_model():
            self.modelSaved.emit(str(record.folder))
        self.runChanged.emit(record)
        self.runEnded.emit(record)
        self.stateChanged.emit()
        if self._queue and record.phase is RunPhase.FINISHED:
            following = self._queue.pop(0)
            self._launch(following.with_unique_name(self.models_folder()), None)
        else:
            self._queue = []

    def _set_phase(self, phase: RunPhase) -> None:
        if self.current is not None:
            self.current.enter(phase)
            self.runChanged.emit(self.current)

    def _finished_text(self, record: RunRecord, event: FinishedEvent) -> str:
        reason, steps = status_word(str(event.reason)), f"{event.steps:,}"
        if event.best_epoch == 0 and record.best_bleu is None:
            return record.name + ": " + self.tr("%1 after %2 steps; no model was saved.").replace("%1", reason).replace("%2", steps)
        text = (self.tr("%1 after %2 steps in %3; best validation BLEU %4 (epoch %5). The best model and a resumable "
                        "checkpoint are in %6, and the model is listed in the Translate tab.")
                if event.reason == FinishReason.STOPPED else
                self.tr("%1 after %2 steps in %3; best validation BLEU %4 (epoch %5). The best model is in %6, and the "
                        "model is listed in the Translate tab."))
        return record.name + ": " + text.replace("%1", reason).replace("%2", steps).replace(
            "%3", format_duration(event.seconds)).replace("%4", f"{event.best_bleu:.2f}").replace(
            "%5", str(event.best_epoch)).replace("%6", str(record.folder))

    # -- watching a run started elsewhere ------------------------------------------------------
    def watch_run(self, folder: Path) -> RunRecord | None:
        """Follow the run in ``folder`` (any run folder with a metrics log: the command line's, a
        torchrun's, a synced one) read only; None, with a message, when it cannot be watched."""
        folder = Path(folder)
        problem = RunFolder(folder).why_not_followable()
        if problem:
            self.message.emit("error", self.tr("Cannot open the run: %1").replace("%1", problem))
            return None
        for record in self.records:
            if record.folder == folder:
                return record
        record = RunRecord(folder.name, RunSettings(name=folder.name), folder, run_colour(len(self.records)))
        record.enter(RunPhase.WATCHING)
        record.watched = True
        self.records.append(record)
        watcher = RunWatcher(folder, record, self.jobs, self, window_busy=lambda: self.window_busy())
        watcher.changed.connect(self.runChanged)
        watcher.validated.connect(self.validated)
        watcher.ended.connect(self.runEnded)
        watcher.damaged.connect(lambda text: self.message.emit("error", text))
        self.watchers.append(watcher)
        self.runAdded.emit(record)
        watcher.start()
        self.message.emit("info", self.tr("Watching %1: its curves and attention snapshots follow its metrics log.").replace(
            "%1", str(folder)))
        return record

    def warm_up(self) -> None:
        """Import the training stack's heavy part in the background, once (see warm_up_training)."""
        if self._warm_up_job is None:
            self._warm_up_job = self.jobs.start(warm_up_training, "training warm-up")

    def warming_up(self) -> bool:
        """The warm-up is still importing: for 2–3 s after the Train tab is first shown, the window
        may stall up to ~0.2 s (an import holds the interpreter lock in long stretches)."""
        return self._warm_up_job is not None and self._warm_up_job.is_running()

    # -- corpus inspection ---------------------------------------------------------------------
    def inspect(self, entry: CorpusEntry) -> None:
        """Preview and report on ``entry``; large files are read in a worker thread."""
        self._inspect_entry = entry
        cached = self._inspected.get(entry)
        if cached is not None:
            self.inspected.emit(cached)
            return
        if entry.is_task:
            for inspection in inspect_corpus(entry):
                self._remember(inspection)
            return
        job = self.jobs.start(lambda: inspect_corpus(entry), f"corpus {entry.label}")
        job.yielded.connect(lambda _id, inspection: self._remember(inspection))

    @Slot(object)
    def _remember(self, inspection: CorpusInspection) -> None:
        if inspection.done:
            self._inspected[inspection.entry] = inspection
        if inspection.entry == self._inspect_entry:
            self.inspected.emit(inspection)
