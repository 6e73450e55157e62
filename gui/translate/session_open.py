"""Opening a recorded session to replay it (the Translate tab's File menu).

The file is read and checked in a worker — engine.records.session_file with every one of its checks, through
the safe opener — so a long recording never holds the window; the replay dialog (gui/attention/replay.py)
opens in the window's thread when the session arrives, and a refused file says why in one message. One
load at a time: opening another file drops the one being read.
"""

from __future__ import annotations

from collections.abc import Callable, Generator
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication
from PySide6.QtWidgets import QFileDialog, QMessageBox

from gui.workers import Job, JobStarter

if TYPE_CHECKING:
    from PySide6.QtWidgets import QWidget

    from engine.models import ModelBundle
    from engine.records import Session
    from gui.attention.replay import ReplayDialog

TITLE = QT_TRANSLATE_NOOP("SessionOpener", "Open a recorded session")
FILE_FILTER = QT_TRANSLATE_NOOP("SessionOpener", "Attention Studio session (*.session.json);;JSON (*.json)")


def read_session(path: Path) -> Generator[None, None, Session]:
    """The worker's job: the session at ``path``, read and checked (SessionFileError says why not)."""
    from engine.records import session_file  # imported in the worker: it brings the engine's decoding types

    yield from ()
    return session_file.load_session(path)


class SessionOpener:
    """Reads a session file in a worker and replays it in a dialog beside the tab: ``window`` is the dialogs'
    parent, ``say`` the status bar, ``model`` the model in use (the replay's note compares its weights)."""

    def __init__(self, window: QWidget, jobs: JobStarter, say: Callable[[str], None],
                 model: Callable[[], ModelBundle | None]) -> None:
        self.window, self.jobs, self.say, self.model = window, jobs, say, model
        self.loading: Job | None = None  # the file being read
        self.path: Path | None = None
        self.replay: ReplayDialog | None = None  # the replay dialog last opened

    def ask_and_open(self) -> None:
        """Ask for a session file, then open it."""
        name, _ = QFileDialog.getOpenFileName(self.window, QCoreApplication.translate("SessionOpener", TITLE),
                                              str(Path.home()), QCoreApplication.translate("SessionOpener", FILE_FILTER))
        if name:
            self.open(Path(name))

    def open(self, path: Path) -> Job:
        """Start reading ``path`` in a worker; the replay opens when it has been read and checked."""
        if self.loading is not None:
            self.loading.cancel()  # its session, if it still comes, is dropped
        self.path = path = Path(path)
        job = self.jobs.start(lambda: read_session(path), "open session")
        self.loading = job
        job.returned.connect(self._read)
        job.failed.connect(self._refused)
        job.done.connect(self._ended)
        self.say(QCoreApplication.translate("SessionOpener", "Reading %1…").replace("%1", self.path.name))
        return job

    def _current(self, job_id: int) -> bool:
        return self.loading is not None and self.loading.id == job_id

    def _read(self, job_id: int, session: Session) -> None:
        if not self._current(job_id):
            return
        from gui.attention.replay import ReplayDialog

        bundle = self.model()
        sha256 = (bundle.info.get("weights") or {}).get("sha256", "") if bundle is not None else ""
        self.replay = ReplayDialog(session, session.note(sha256, bundle.folder.name if bundle is not None else ""),
                                   self.window)
        self.replay.show()
        self.replay.play()

    def _refused(self, job_id: int, message: str, _details: str) -> None:
        if self._current(job_id):
            self.loading = None
            QMessageBox.warning(self.window, QCoreApplication.translate("SessionOpener", TITLE),
                                message.removeprefix("SessionFileError: "))

    def _ended(self, job_id: int) -> None:
        if self._current(job_id):
            self.loading = None
