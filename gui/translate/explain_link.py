"""The Translate tab's attributions: once a decode has ended, the attribution the map's chooser names is
computed in the background (a job running engine.explain.explain_steps) and handed to the attention panel
step by step (gui/attention/attribution_view.py), with its progress beside the chooser.

One attribution job at a time: a new decode, another method or Cancel ends the one under way (the steps it
delivered stay; a later choice of the same method computes it again). A contrastive attribution ("why this
word and not that one?", asked from the inspector) is a job of its own. Nothing waits in the window's thread:
the engine is imported in the job's thread, and the panel redraws at most ~30 times a second.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

from PySide6.QtCore import QObject, QSettings, QTimer, Slot

from gui.attention.attribution_math import ALPHA
from gui.attention.map_choice import method_label
from gui.workers import Job, JobStarter

if TYPE_CHECKING:
    from PySide6.QtCore import SignalInstance

    from engine.decoding import Translation, Translator
    from gui.attention.attribution_math import AttributionStore, StepAttributionLike
    from gui.attention.map_choice import MapChoice


class AttributionShown(Protocol):
    """What the link drives of the map's attribution (gui/attention/attribution_view.py): its chooser and
    progress, the steps computed so far, and the learner's requests."""

    @property
    def methodChanged(self) -> SignalInstance: ...
    @property
    def cancelRequested(self) -> SignalInstance: ...
    @property
    def contrastRequested(self) -> SignalInstance: ...
    @property
    def method(self) -> str: ...
    @property
    def store(self) -> AttributionStore: ...
    @property
    def choice(self) -> MapChoice: ...
    def offer(self) -> None: ...
    def set_subject(self, tokens: tuple[str, ...]) -> None: ...
    def add(self, item: StepAttributionLike) -> None: ...
    def show_progress(self, text: str, running: bool, why: str = "", tooltip: str = "") -> None: ...


class DecodeRuns(Protocol):
    """The controller's news of the decodes (gui/translate/controller.py): a run started (RunInfo), a run
    finished (Translation)."""

    @property
    def runStarted(self) -> SignalInstance: ...
    @property
    def runFinished(self) -> SignalInstance: ...


def explain_job(translator: Translator, translation: Translation, method: str, contrast: dict[int, str] | None = None):
    """The job's generator: engine.explain.explain_steps, imported in the job's thread (PyTorch and Captum)."""
    from engine.explain import explain_steps

    items = explain_steps(translator, translation, method, contrast=contrast)
    try:
        if not contrast:
            yield from items
            return
        (wanted,) = contrast
        for item in items:  # only the contrastive step is wanted: stop once it is in
            if item.index == wanted:
                yield item
                return
    finally:
        close = getattr(items, "close", None)
        if close is not None:
            close()


class ExplainLink(QObject):
    """Runs the attribution the map asks for, for the finished decode on screen."""

    def __init__(self, view: AttributionShown, runs: DecodeRuns, jobs: JobStarter, redraw: Callable[[], None],
                 parent: QObject | None = None) -> None:
        """``view``: the map's attribution; ``runs``: the decodes to explain; ``jobs`` runs the attributions
        (the controller's, so that closing the tab stops them with the decode; tests pass a fake);
        ``redraw`` draws the map now. The map's choice is remembered at once."""
        super().__init__(parent)
        self.jobs = jobs
        self.view = view
        self.redraw = redraw
        self.translator: Translator | None = None
        self.translation: Translation | None = None  # the finished decode the attributions explain
        self.job: Job | None = None
        self.job_method = ""
        self.contrast_job: Job | None = None
        runs.runStarted.connect(self._on_run_started)
        runs.runFinished.connect(self._on_finished)
        self.view.offer()
        self.view.choice.restore(QSettings())
        self.view.methodChanged.connect(self._on_method)
        self.view.cancelRequested.connect(self.cancel)
        self.view.contrastRequested.connect(self.contrast)

    @property
    def running(self) -> bool:
        return self.job is not None or self.contrast_job is not None

    # -- runs -------------------------------------------------------------------------------
    @Slot(object)
    def _on_run_started(self, info) -> None:
        """A new decode: the attribution under way is superseded."""
        self._drop_jobs()
        self.translator, self.translation = info.bundle.translator, None

    @Slot(object)
    def _on_finished(self, translation: Translation) -> None:
        if translation.empty or not translation.tokens or self.translator is None:
            return
        self.translation = translation
        self.view.set_subject(translation.tokens)
        self._start(self.view.method)

    def _on_method(self, method: str) -> None:
        QTimer.singleShot(0, lambda: self.view.choice.save(QSettings()))  # its own turn of the event loop: after the redraw
        if method == ALPHA:
            return  # a job under way goes on: its steps are there when the method is chosen again
        if self.job is not None and self.job_method == method:
            return
        self._start(method)

    def _start(self, method: str) -> None:
        """Compute ``method`` for the decode on screen, unless it is α or already complete."""
        translation = self.translation
        if method == ALPHA or translation is None or self.translator is None:
            if method != ALPHA and translation is None:
                self.view.show_progress(self.tr("after the decode"), running=False,
                                        why=self.tr("The attribution is computed once the decode has ended."))
            return
        if self.view.store.complete(method, len(translation.tokens)):
            self._say_done(method)
            return
        self._drop_job()
        translator = self.translator
        job = self.jobs.start(lambda: explain_job(translator, translation, method), "explain")
        self.job, self.job_method = job, method
        job.yielded.connect(self._on_item)
        job.failed.connect(self._on_failed)
        job.done.connect(self._on_done)
        self._say_progress()

    def cancel(self) -> None:
        """Stop the attribution under way (Cancel): the steps it delivered stay."""
        if self.job is None and self.contrast_job is None:
            return
        method = self.job_method
        self._drop_jobs()
        if method and self.translation is not None:
            done, total = self.view.store.count(method), len(self.translation.tokens)
            text = self.tr("%1: stopped at %2/%3").replace("%1", method_label(method)).replace(
                "%2", str(done)).replace("%3", str(total))
            self.view.show_progress(self.tr("stopped %1/%2").replace("%1", str(done)).replace("%2", str(total)),
                                    running=False, why=text + self.tr(" — choose the method again to go on."),
                                    tooltip=text)

    def contrast(self, index: int, piece: str) -> None:
        """A contrastive attribution of step ``index``: log p(y_i) − log p(``piece``), by the map's method."""
        method, translation = self.view.method, self.translation
        if method == ALPHA or translation is None or self.translator is None:
            return
        if self.contrast_job is not None:
            self.contrast_job.cancel()
        translator = self.translator
        job = self.jobs.start(lambda: explain_job(translator, translation, method, {index: piece}), "explain-contrast")
        self.contrast_job = job
        job.yielded.connect(self._on_item)
        job.failed.connect(self._on_failed)
        job.done.connect(self._on_contrast_done)
        self.view.show_progress(self.tr("why not…"), running=True, tooltip=self.tr(
            "Contrastive attribution of step %1: why %2 and not %3").replace("%1", str(index)).replace(
            "%2", translation.tokens[index]).replace("%3", piece))

    # -- the job's signals ------------------------------------------------------------------
    def _current(self, job_id: int) -> bool:
        return any(job is not None and job.id == job_id for job in (self.job, self.contrast_job))

    @Slot(int, object)
    def _on_item(self, job_id: int, item) -> None:
        if self._current(job_id):
            self.view.add(item)
            if self.job is not None and job_id == self.job.id:
                self._say_progress()

    @Slot(int, str, str)
    def _on_failed(self, job_id: int, message: str, _details: str) -> None:
        if self._current(job_id):
            line = self.tr("Attribution failed: %1").replace("%1", message.splitlines()[0] if message else "")
            self.view.show_progress(self.tr("failed"), running=False, why=line, tooltip=line)

    @Slot(int)
    def _on_done(self, job_id: int) -> None:
        if self.job is not None and self.job.id == job_id:
            method = self.job_method
            self.job, self.job_method = None, ""
            if self.translation is not None and self.view.store.complete(method, len(self.translation.tokens)):
                self._say_done(method)

    @Slot(int)
    def _on_contrast_done(self, job_id: int) -> None:
        if self.contrast_job is not None and self.contrast_job.id == job_id:
            self.contrast_job = None
            if self.job is None:
                self.view.show_progress("", running=False)
            self.redraw()

    def _say_progress(self) -> None:
        if self.job is None or self.translation is None:
            return
        done, total = self.view.store.count(self.job_method), len(self.translation.tokens)
        short = f"{done}/{total}"
        self.view.choice.show_progress(short, self.tr("%1: %2 of %3 steps computed").replace(
            "%1", method_label(self.job_method)).replace("%2", str(done)).replace("%3", str(total)), running=True)

    def _say_done(self, method: str) -> None:
        self.view.show_progress("", running=False)

    # -- ending -----------------------------------------------------------------------------
    def _drop_job(self) -> None:
        if self.job is not None:
            self.job.cancel()
            self.job, self.job_method = None, ""

    def _drop_jobs(self) -> None:
        self._drop_job()
        if self.contrast_job is not None:
            self.contrast_job.cancel()
            self.contrast_job = None
        self.view.choice.show_progress("", running=False)
