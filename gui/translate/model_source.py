"""Where the Translate tab's models come from: the catalog scanned in the background, a model loaded
in the background (the one in use stays until the new one is ready; a failed load leaves it in
place, or with none yet opens another), and a training run's earlier weights (gui/common/past.py).
Each load has an id; a superseded load's result is dropped.

``ModelSource`` is the first half of the Translate controller (gui/translate/controller.py adds the
decoding): it calls ``_model_ready`` when a model is in use and ``_no_model_coming`` when the first
scan found none to load.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Signal, Slot

from gui.common.catalog_jobs import CatalogSnapshot, LoadFailure, catalog_items, load_items, scan_catalog
from gui.common.past import PastModel, past_items
from gui.i18n import fill
from gui.translate.choices import ModelChoices
from gui.workers import Job, JobSet, JobStarter

if TYPE_CHECKING:
    from engine.models import ModelBundle
    from engine.records import ModelEntry


class ModelSource(QObject):
    engineReady = Signal()  # the first catalog scan ended: the engine (PyTorch) is imported
    catalogChanged = Signal(object)  # ModelChoices
    modelLoading = Signal(object)  # ModelEntry being loaded
    modelLoaded = Signal(object)  # ModelBundle now in use
    modelFailed = Signal(str)  # why a model could not be loaded (the previous one stays)
    pastLoaded = Signal(str)  # the model in use is a run's earlier weights: 'model at step 2,000 of …'

    def __init__(self, parent: QObject | None = None, jobs: JobStarter | None = None) -> None:
        """``jobs`` starts the background jobs (tests pass a fake that runs them inline)."""
        super().__init__(parent)
        self.jobs: JobStarter = jobs if jobs is not None else JobSet(self)
        self.choices: ModelChoices | None = None
        self.unusable: list = []  # the model folders the last scan could not use (engine.records.catalog.UnusableFolder)
        self.bundle: ModelBundle | None = None
        self.entry: ModelEntry | None = None
        self._pinned_folder: Path | None = None
        self._load_job: Job | None = None
        self._loading_entry: ModelEntry | None = None
        self._failed: set[Path] = set()  # folders that failed to load this session
        self.past: PastModel | None = None  # a run's earlier weights in use (gui.common.past), if any
        self._before_past: ModelEntry | None = None  # the model in use before going back through training
        self._closed = False  # after shutdown no new job starts
        self._scanning = False  # the first catalog scan is running

    def _model_ready(self) -> None:
        """A model is now in use (a subclass decodes what waited for it)."""

    def _no_model_coming(self) -> None:
        """The first scan ended without a model to load."""

    # -- catalog ----------------------------------------------------------------------------
    def start(self, pinned_folder: Path | None, direction: str | None, scorer: str | None) -> None:
        """Scan the catalog in the background, then load the first model."""
        self._pinned_folder = pinned_folder
        self._scanning = True
        job = self.jobs.start(lambda: catalog_items(pinned_folder), "catalog scan")
        job.yielded.connect(lambda _id, snapshot: self._apply_catalog(snapshot, (direction, scorer)))
        job.failed.connect(lambda _id, message, details: self.modelFailed.emit(
            self.tr("Cannot list models: %1").replace("%1", message)))
        job.done.connect(self._on_first_scan_done)

    def _on_first_scan_done(self, _job_id: int) -> None:
        self._scanning = False
        if self.bundle is None and not self.loading:
            self._no_model_coming()
        self.engineReady.emit()

    def rescan(self) -> None:
        """List the model folders again (a model was just trained): choices update at once."""
        if "engine.records.catalog" in sys.modules:
            self._apply_catalog(scan_catalog(self._pinned_folder), None)
        else:
            job = self.jobs.start(lambda: catalog_items(self._pinned_folder), "catalog scan")
            job.yielded.connect(lambda _id, snapshot: self._apply_catalog(snapshot, None))

    def _apply_catalog(self, snapshot: CatalogSnapshot, initial: tuple[str | None, str | None] | None) -> None:
        self.unusable = list(snapshot.unusable)
        self.choices = ModelChoices(snapshot.entries, snapshot.pinned)
        if initial is not None and snapshot.pinned_error:
            self.modelFailed.emit(self.tr("Cannot open the model folder given on the command line: %1").replace(
                "%1", snapshot.pinned_error))
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
        """Load the run ``folder``'s weights nearest ``step`` (read-only: gui.common.past) and decode
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
            kept = self.tr(" The model in use stays.") if self.bundle is not None else ""
            self.modelFailed.emit(fill(self.tr("Cannot go back to that step of %1: %2."), result.folder.name,
                                       result.reason) + kept)
            return
        if self.past is None:
            self._before_past = self.entry
        folder = result.bundle.folder
        self.bundle, self.past = result.bundle, result  # type: ignore[assignment]
        self.entry = next((e for e in (self.choices.entries if self.choices else []) if e.folder == folder), None)
        self.modelLoaded.emit(result.bundle)  # type: ignore[union-attr]
        self.pastLoaded.emit(result.label)  # type: ignore[union-attr]
        self._model_ready()

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
            self._load_failed(result.folder, fill(self.tr("Cannot load the model %1: %2"), result.folder.name,
                                                  result.reason))
            return
        self.bundle, self.entry = result, entry  # type: ignore[assignment]
        self.past = None
        self.modelLoaded.emit(result)
        self._model_ready()

    @Slot(int, str, str)
    def _on_load_failed(self, job_id: int, message: str, details: str) -> None:
        if self._is_current_load(job_id) and self._loading_entry is not None:
            folder = self._loading_entry.folder
            self._load_job, self._loading_entry = None, None
            self._load_failed(folder, fill(self.tr("Cannot load the model %1: %2"), folder.name, message))

    def _load_failed(self, folder: Path, message: str) -> None:
        """Report the failure; with no model in use yet, open another one instead."""
        self._failed.add(folder)
        fallback = self._fallback() if self.bundle is None else None
        if self.bundle is not None:
            message += self.tr(" The previous model is still in use.")
        elif fallback is not None:
            message += self.tr(" Opening %1 instead.").replace("%1", fallback.name)
        self.modelFailed.emit(message)
        if fallback is not None:
            self.load(fallback)

    def _fallback(self) -> ModelEntry | None:
        """Another model to open when the first one fails: newest first, never one that failed."""
        candidates = self.choices.entries if self.choices else []
        usable = [e for e in candidates if e.folder not in self._failed]
        return max(usable, key=lambda e: (not e.shipped, e.modified), default=None) if usable else None
