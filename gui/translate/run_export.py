"""The Translate tab's exports: the current map or matrix (png, svg, csv, json) or a recording of the
decode (gif, mp4, session file) with what was decoded, and a recorded session opened to replay
(read in a worker: gui/translate/session_open.py).

A recording is written in a worker (gui.attention.recording: one frame or stage at a time), with a
progress dialog whose Cancel stops it at the next frame — the file at the path is then left as it
was. One recording at a time; closing the tab stops it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QCoreApplication, QSettings
from PySide6.QtWidgets import QFileDialog, QMessageBox, QProgressDialog

from gui.attention.export import EXPORT_KINDS, ExportError
from gui.attention.recording import RECORDINGS, RecordingProgress, recording_job
from gui.i18n import fill
from gui.stored_settings import stored_text
from gui.translate.session_open import SessionOpener
from gui.workers import Job, JobSet, JobStarter

if TYPE_CHECKING:
    from PySide6.QtWidgets import QWidget

    from engine.models import ModelBundle
    from gui.attention.panel import AttentionPanel
    from gui.translate.controller import RunInfo


@dataclass(frozen=True)
class ExportParts:
    """What the exports read and drive of the Translate tab."""

    window: QWidget  # the dialogs' parent
    panel: AttentionPanel  # the map and its record: what is written
    run: Callable[[], RunInfo | None]  # the run shown
    output_text: Callable[[], str]  # the output line's text
    seconds_per_step: Callable[[], float]  # the speed chosen
    say: Callable[[str], None]  # a passing message for the status bar
    model: Callable[[], ModelBundle | None]  # the model in use (a replayed session's note compares its weights)


class RunExport:
    """Writes the Translate tab's current run, and replays a recorded one."""

    def __init__(self, parts: ExportParts, jobs: JobStarter | None = None) -> None:
        """``jobs`` runs the recordings (tests pass a fake that runs them inline)."""
        self.parts = parts
        self.jobs: JobStarter = jobs if jobs is not None else JobSet(parts.window)
        # a recorded session, read in a worker and replayed
        self.sessions = SessionOpener(parts.window, self.jobs, parts.say, parts.model)
        self.recording: Job | None = None  # the recording being written
        self.recording_path: Path | None = None
        self.progress: QProgressDialog | None = None

    def metadata(self) -> dict:
        """What the export says of the run: the source, the output, the model, the search."""
        run = self.parts.run()
        if run is None:
            return {}
        bundle = run.bundle
        return {"source": run.prepared.text, "text": self.parts.output_text(),
                "scorer": bundle.scorer, "model": bundle.folder.name,
                "direction": f"{bundle.source_language}-{bundle.target_language}",
                "source_language": bundle.source_language, "target_language": bundle.target_language,
                "model_sha256": (bundle.info.get("weights") or {}).get("sha256", ""),
                "beam_size": run.beam_size,
                "seconds_per_step": self.parts.seconds_per_step()}

    def export(self, kind: str, path: Path) -> Path:
        """Write the current heatmap or matrix (``kind``: png, svg, csv, json, …) to ``path``."""
        return EXPORT_KINDS[kind].write(self.parts.panel, Path(path), self.metadata())

    def ask_and_export(self, kind: str) -> None:
        """The Export menu: ask where (the last folder used first), write, say where it went."""
        parts, spec = self.parts, EXPORT_KINDS[kind]
        settings = QSettings()
        folder = Path(stored_text(settings, "export/folder") or str(Path.home()))
        run = parts.run()
        scorer = run.bundle.scorer if run else "attention"
        name, _ = QFileDialog.getSaveFileName(parts.window, spec.title.rstrip("…"), str(folder / f"attention-{scorer}{spec.suffix}"),
                                              spec.file_filter)
        if not name:
            return
        path = Path(name) if Path(name).suffix else Path(name + spec.suffix)
        if kind in RECORDINGS:
            if self.record(kind, path):
                settings.setValue("export/folder", str(path.parent))
            return
        try:
            self.export(kind, path)
        except ExportError as error:
            QMessageBox.warning(parts.window, QCoreApplication.translate("RunExport", "Export"), str(error))
            return
        settings.setValue("export/folder", str(path.parent))
        parts.say(QCoreApplication.translate("RunExport", "Saved %1").replace("%1", str(path)))

    # -- recordings, written in a worker ---------------------------------------------------------
    def record(self, kind: str, path: Path) -> bool:
        """Start writing the decode as ``kind`` (gif, mp4, session) to ``path`` in a worker, its progress
        shown; False (and why, in a message) when it cannot start."""
        window, path = self.parts.window, Path(path)
        if self.recording is not None:
            QMessageBox.information(window, QCoreApplication.translate("RunExport", "Export"), QCoreApplication.translate(
                "RunExport", "%1 is still being written: wait for it, or cancel it first.").replace(
                "%1", str(self.recording_path)))
            return False
        try:
            recording = recording_job(kind, self.parts.panel, path, self.metadata())
        except ExportError as error:
            QMessageBox.warning(window, QCoreApplication.translate("RunExport", "Export"), str(error))
            return False
        progress = QProgressDialog(QCoreApplication.translate("RunExport", "Writing %1…").replace("%1", path.name),
                                   QCoreApplication.translate("RunExport", "Cancel"), 0, recording.total, window)
        progress.setObjectName("recordingProgress")
        progress.setWindowTitle(QCoreApplication.translate("RunExport", "Export"))
        progress.setMinimumDuration(300)
        progress.setAutoClose(False)
        progress.setAutoReset(False)
        job = self.jobs.start(recording.frames, f"record {kind}")
        self.recording, self.recording_path, self.progress = job, path, progress
        progress.canceled.connect(job.cancel)
        job.yielded.connect(self._advanced)
        job.returned.connect(self._written)
        job.failed.connect(self._failed)
        job.done.connect(self._ended)
        return True

    def cancel_recording(self) -> None:
        """Stop the recording at its next frame; nothing is written."""
        if self.recording is not None:
            self.recording.cancel()

    def _current(self, job_id: int) -> bool:
        return self.recording is not None and self.recording.id == job_id

    def _advanced(self, job_id: int, progress: RecordingProgress) -> None:
        if self._current(job_id) and self.progress is not None:
            self.progress.setMaximum(progress.total)
            self.progress.setValue(progress.done)
            self.progress.setLabelText(fill(QCoreApplication.translate("RunExport", "Writing %1: %2"),
                                            self.recording_path.name, progress.what))

    def _written(self, job_id: int, path: object) -> None:
        if self._current(job_id):
            self.parts.say(QCoreApplication.translate("RunExport", "Saved %1").replace("%1", str(path)))

    def _failed(self, job_id: int, message: str, _details: str) -> None:
        if self._current(job_id):
            reason = message.removeprefix(f"{ExportError.__name__}: ")
            self._ended(job_id)
            QMessageBox.warning(self.parts.window, QCoreApplication.translate("RunExport", "Export"), reason)

    def _ended(self, job_id: int) -> None:
        if not self._current(job_id):
            return
        if self.recording.worker.aborted:
            self.parts.say(QCoreApplication.translate(
                "RunExport", "Recording cancelled: %1 left as it was").replace("%1", str(self.recording_path)))
        self.recording = None
        if self.progress is not None:
            self.progress.close()
            self.progress.deleteLater()
            self.progress = None

    def shutdown(self, timeout_ms: int) -> bool:
        """Stop a recording being written (its temporary file goes), or a session being read, with a bounded
        wait."""
        self.cancel_recording()
        return self.jobs.stop_all(timeout_ms)

    def open_session(self) -> None:
        """Replay a recorded decode from its session file (without decoding: engine.records.session_file), the
        file read and checked in a worker."""
        self.sessions.ask_and_open()

    @property
    def replay(self):
        """The replay dialog last opened (gui/attention/replay.py), or None."""
        return self.sessions.replay
