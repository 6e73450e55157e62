"""Record the decode on screen: as an animated GIF, an MP4 video (gui.attention.animation) or a
session file that replays it without the model (engine.records.session_file) — the Export menu's last
three entries.

The decode is the attention panel's record (gui.attention.record): its source tokens, its output
and attention as shown, and every step event it took in, in order. ``metadata`` comes from the
Translate tab: the model's name and weights hash, its languages, the beam size and the chosen speed
(seconds per step).

:func:`recording_job` takes what it needs from the panel in the GUI thread (immutable: tuples, a
read-only matrix, the frozen step events) and returns a generator for a worker, which writes the
file one frame (or one stage) at a time, yields a :class:`RecordingProgress` after each and returns
the path; :func:`write_recording` runs the same generator to its end in the caller's thread.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QCoreApplication

from gui.attention import animation as animations
from gui.attention.animation import WRITERS, AnimationError, animation_of
from gui.attention.export import ExportError
from gui.attention.labels import join_pieces
from gui.attention.target_file import target_problem

if TYPE_CHECKING:
    from gui.attention.panel import AttentionPanel

RECORDINGS = ("gif", "mp4", "session")


@dataclass(frozen=True)
class RecordingProgress:
    """How far a recording is: ``done`` of ``total`` (frames, or a session's stages), in words."""

    done: int
    total: int
    what: str


@dataclass(frozen=True)
class RecordingJob:
    """A recording ready to run: ``frames()`` writes it (in a worker); ``total`` items it yields."""

    kind: str
    path: Path
    total: int
    frames: Callable[[], Iterator[RecordingProgress]]


def _title(metadata: dict[str, Any]) -> str:
    model, source = metadata.get("model", ""), metadata.get("source", "")
    return " · ".join(part for part in (model, source) if part)


def recording_job(kind: str, panel: AttentionPanel, path: Path, metadata: dict[str, Any]) -> RecordingJob:
    """The recording of the panel's decode as ``kind`` (one of RECORDINGS) at ``path``, not yet
    written; ExportError when there is nothing to record."""
    if kind not in RECORDINGS:
        raise ExportError(f"a recording is one of {', '.join(RECORDINGS)}; got {kind!r}")
    record, path = panel.record, Path(path)
    if not record.target_tokens or not record.events:
        raise ExportError(QCoreApplication.translate(
            "AttentionExport", "translate a sentence first: there is no decode to record yet"))
    if kind == "session":
        return _session_job(panel, path, metadata)
    if not record.uses_attention:
        raise ExportError(QCoreApplication.translate(
            "AttentionExport", "this model has no attention weights (fixed context C): there is no heatmap to animate"))
    problem = (animations.mp4_problem() if kind == "mp4" else "") or target_problem(path)
    if problem:
        raise ExportError(problem)
    animation = panel_animation(panel, metadata)
    return RecordingJob(kind, path, animation.frame_count, _frames(WRITERS[kind], animation, path))


def panel_animation(panel: AttentionPanel, metadata: dict[str, Any]) -> animations.Animation:
    """The panel's decode as an animation in the map's view: words, or pieces with their ``##`` marks, a
    frame per row (ExportError when there is nothing to animate)."""
    record, units = panel.record, panel.units()
    texts = [join_pieces(record.target_tokens[:units.row_pieces(row).stop])[0] for row in range(len(units.row_labels()))]
    try:
        return animation_of(units.column_labels, units.row_labels(), units.matrix(record.attention()),
                            _title(metadata), float(metadata.get("seconds_per_step", 0.0)), texts)
    except AnimationError as error:
        raise ExportError(str(error)) from None


def _frames(write, animation, path) -> Callable[[], Iterator[RecordingProgress]]:
    """The worker's generator: the writer's frames as progress, its path returned, its errors as ExportError."""
    def run() -> Iterator[RecordingProgress]:
        total = animation.frame_count
        writer = write(animation, path)
        try:
            while True:
                try:
                    done = next(writer)
                except StopIteration as stop:
                    return stop.value
                yield RecordingProgress(done, total, QCoreApplication.translate("AttentionExport", "frame %1 of %2").replace(
                    "%1", f"{done:,}").replace("%2", f"{total:,}"))
        except AnimationError as error:
            raise ExportError(str(error)) from None
        finally:
            writer.close()

    return run


def _session_job(panel: AttentionPanel, path: Path, metadata: dict[str, Any]) -> RecordingJob:
    from engine.records import SAVE_STAGES, Session, SessionFileError, session_saving

    record = panel.record
    scorer = record.scorer  # the session keeps the row's texts: a reader without this registry still shows them
    model = {"name": str(metadata.get("model", "")), "sha256": str(metadata.get("model_sha256", "")),
             "scorer": str(metadata.get("scorer", "")), "scorer_label": scorer.label if scorer else "",
             "formula": scorer.formula if scorer else "", "uses_attention": record.uses_attention,
             "source_language": str(metadata.get("source_language", "")),
             "target_language": str(metadata.get("target_language", ""))}
    settings = {"beam_size": int(metadata.get("beam_size", 1)),
                "seconds_per_step": float(metadata.get("seconds_per_step", 0.0))}
    session = Session(model, str(metadata.get("source", "")), tuple(record.source_tokens), settings,
                      tuple(record.events))
    total = len(SAVE_STAGES)

    def stages() -> Iterator[RecordingProgress]:
        saving = session_saving(path, session)
        try:
            while True:
                try:
                    stage = next(saving)
                except StopIteration as stop:
                    return stop.value
                yield RecordingProgress(SAVE_STAGES.index(stage) + 1, total, stage)
        except SessionFileError as error:
            raise ExportError(str(error)) from None
        finally:
            saving.close()

    return RecordingJob("session", path, total, stages)


def write_recording(kind: str, panel: AttentionPanel, path: Path, metadata: dict[str, Any]) -> Path:
    """Write the panel's decode as ``kind`` to ``path`` here and now; ExportError says why not."""
    frames = recording_job(kind, panel, path, metadata).frames()
    while True:
        try:
            next(frames)
        except StopIteration as stop:
            return stop.value
