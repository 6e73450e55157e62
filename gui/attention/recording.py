"""Record the decode on screen: as an animated GIF, an MP4 video (gui.attention.animation) or a
session file that replays it without the model (engine.session_file) — the Export menu's last
three entries.

The decode is the attention panel's record (gui.attention.record): its source tokens, its output
and attention as shown, and every step event it took in, in order. ``metadata`` comes from the
Translate tab: the model's name and weights hash, its languages, the beam size and the chosen speed
(seconds per step).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from gui.attention.animation import AnimationError, animation_of, write_gif, write_mp4
from gui.attention.export import ExportError

if TYPE_CHECKING:
    from gui.attention.panel import AttentionPanel

RECORDINGS = ("gif", "mp4", "session")


def _title(metadata: dict[str, Any]) -> str:
    model, source = metadata.get("model", ""), metadata.get("source", "")
    return " · ".join(part for part in (model, source) if part)


def write_recording(kind: str, panel: AttentionPanel, path: Path, metadata: dict[str, Any]) -> Path:
    """Write the panel's decode as ``kind`` (one of RECORDINGS) to ``path``; ExportError says why not."""
    if kind not in RECORDINGS:
        raise ExportError(f"a recording is one of {', '.join(RECORDINGS)}; got {kind!r}")
    record = panel.record
    if not record.target_tokens or not record.events:
        raise ExportError("translate a sentence first: there is no decode to record yet")
    if kind == "session":
        return _write_session(panel, Path(path), metadata)
    if not record.uses_attention:
        raise ExportError("this model has no attention weights (fixed context C): there is no heatmap to animate")
    try:
        animation = animation_of(record.source_tokens, record.target_tokens, record.attention(), _title(metadata),
                                 float(metadata.get("seconds_per_step", 0.0)))
        return (write_gif if kind == "gif" else write_mp4)(animation, Path(path))
    except AnimationError as error:
        raise ExportError(str(error)) from None


def _write_session(panel: AttentionPanel, path: Path, metadata: dict[str, Any]) -> Path:
    from engine.session_file import Session, SessionFileError, save_session

    record = panel.record
    model = {"name": str(metadata.get("model", "")), "sha256": str(metadata.get("model_sha256", "")),
             "scorer": str(metadata.get("scorer", "")), "scorer_label": record.scorer_label,
             "formula": record.formula, "uses_attention": record.uses_attention,
             "source_language": str(metadata.get("source_language", "")),
             "target_language": str(metadata.get("target_language", ""))}
    settings = {"beam_size": int(metadata.get("beam_size", 1)),
                "seconds_per_step": float(metadata.get("seconds_per_step", 0.0))}
    session = Session(model, str(metadata.get("source", "")), tuple(record.source_tokens), settings,
                      tuple(record.events))
    try:
        return save_session(path, session)
    except SessionFileError as error:
        raise ExportError(str(error)) from None
