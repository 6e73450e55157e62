"""The Translate tab's exports: the current map or matrix (png, svg, csv, json) or a recording of the
decode (gif, mp4, session file) with what was decoded, and a recorded session opened to replay."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QFileDialog, QMessageBox

from gui.attention.export import EXPORT_KINDS, ExportError
from gui.stored_settings import stored_text
from gui.translate.controls import delay_for

if TYPE_CHECKING:
    from gui.translate.tab import TranslateTab


class RunExport:
    """Writes the Translate tab's current run, and replays a recorded one."""

    def __init__(self, tab: TranslateTab) -> None:
        self.tab = tab
        self.replay = None  # the replay dialog last opened (gui/attention/replay.py)

    def metadata(self) -> dict:
        """What the export says of the run: the source, the output, the model, the search."""
        run = self.tab.run
        if run is None:
            return {}
        bundle = run.bundle
        return {"source": run.prepared.text, "text": self.tab.view.target_output.text(),
                "scorer": bundle.scorer, "model": bundle.folder.name,
                "direction": f"{bundle.source_language}-{bundle.target_language}",
                "source_language": bundle.source_language, "target_language": bundle.target_language,
                "model_sha256": (bundle.info.get("weights") or {}).get("sha256", ""),
                "beam_size": run.beam_size,
                "seconds_per_step": delay_for(self.tab.view.choice_bar.speed_slider.value())}

    def export(self, kind: str, path: Path) -> Path:
        """Write the current heatmap or matrix (``kind``: png, svg, csv, json, …) to ``path``."""
        return EXPORT_KINDS[kind].write(self.tab.view.attention_panel, Path(path), self.metadata())

    def ask_and_export(self, kind: str) -> None:
        """The Export menu: ask where (the last folder used first), write, say where it went."""
        tab, spec = self.tab, EXPORT_KINDS[kind]
        settings = QSettings()
        folder = Path(stored_text(settings, "export/folder") or str(Path.home()))
        scorer = tab.run.bundle.scorer if tab.run else "attention"
        name, _ = QFileDialog.getSaveFileName(tab, spec.title.rstrip("…"), str(folder / f"attention-{scorer}{spec.suffix}"),
                                              spec.file_filter)
        if not name:
            return
        path = Path(name) if Path(name).suffix else Path(name + spec.suffix)
        try:
            self.export(kind, path)
        except ExportError as error:
            QMessageBox.warning(tab, "Export", str(error))
            return
        settings.setValue("export/folder", str(path.parent))
        tab.statusMessage.emit(f"Saved {path}")

    def open_session(self) -> None:
        """Replay a recorded decode from its session file (without decoding: engine.session_file)."""
        from engine.session_file import SessionFileError, load_session
        from gui.attention.replay import ReplayDialog

        tab = self.tab
        name, _ = QFileDialog.getOpenFileName(tab, "Open a recorded session", str(Path.home()),
                                              "Attention Studio session (*.session.json);;JSON (*.json)")
        if not name:
            return
        try:
            session = load_session(Path(name))
        except SessionFileError as error:
            QMessageBox.warning(tab, "Open a recorded session", str(error))
            return
        bundle = tab.controller.bundle
        sha256 = (bundle.info.get("weights") or {}).get("sha256", "") if bundle is not None else ""
        self.replay = ReplayDialog(session, session.note(sha256, bundle.folder.name if bundle is not None else ""), tab)
        self.replay.show()
        self.replay.play()
