"""An H.264 MP4 written frame by frame through ffmpeg (the one imageio-ffmpeg brings, an optional
extra: ``pip install attention-studio[video]``), into a temporary file beside the target.

:class:`VideoEncoder` starts ffmpeg reading raw RGB frames from a pipe, its messages going to a file
(a pipe left unread could stall it); each frame goes down the pipe as it is painted, so memory holds
one frame. The result counts only when ffmpeg exits 0 and the file :func:`mp4_problem_of` probes is
a whole MP4 (its boxes tile the file; ``ftyp``, ``moov`` and ``mdat`` present); otherwise the error
is ffmpeg's own last line ("No space left on device"), never the pipe's "Broken pipe". No Qt here.
"""

from __future__ import annotations

import contextlib
import struct
import subprocess
import tempfile
from pathlib import Path

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication

from gui.attention.target_file import AnimationError

MP4_HINT = QT_TRANSLATE_NOOP("AttentionExport", "MP4 export needs imageio-ffmpeg: pip install imageio-ffmpeg (it brings its own ffmpeg)")
MP4_FPS = 10
FINISH_SECONDS = 300  # ffmpeg's time to finish once every frame is sent
REQUIRED_BOXES = ("ftyp", "moov", "mdat")


def ffmpeg_exe() -> str:
    """The ffmpeg to run; AnimationError (MP4_HINT) when imageio-ffmpeg or its ffmpeg is missing."""
    try:
        import imageio_ffmpeg

        return imageio_ffmpeg.get_ffmpeg_exe()
    except (ImportError, RuntimeError, OSError):
        raise AnimationError(QCoreApplication.translate("AttentionExport", MP4_HINT)) from None


def mp4_problem() -> str:
    """Why MP4 cannot be written here ("" when it can)."""
    try:
        ffmpeg_exe()
    except AnimationError as error:
        return str(error)
    return ""


def mp4_problem_of(path: Path) -> str:
    """What is wrong with the MP4 at ``path`` ("" when its top-level boxes are whole)."""
    try:
        seen, problem = _top_boxes(Path(path))
    except OSError as error:
        return f"the video cannot be read back ({error.strerror or error})"
    if problem:
        return problem
    if not seen or seen[0] != "ftyp":
        return "the file ffmpeg wrote is not an MP4"
    missing = [box for box in REQUIRED_BOXES if box not in seen]
    return f"the video is incomplete (no {', '.join(missing)})" if missing else ""


def _top_boxes(path: Path) -> tuple[list[str], str]:
    """The kinds of the file's top-level boxes in order, and what breaks their tiling ("" when nothing)."""
    size = path.stat().st_size
    seen, offset = [], 0
    with open(path, "rb") as video:
        while offset < size:
            video.seek(offset)
            head = video.read(16)
            if len(head) < 8:
                return seen, "the video ends inside a box header"
            length = _box_length(head, size - offset)
            if length < 8 or offset + length > size:
                return seen, "the video is cut short (a box runs past its end)"
            seen.append(head[4:8].decode("latin-1"))
            offset += length
    return seen, ""


def _box_length(head: bytes, rest: int) -> int:
    """The length a box header says: a 64-bit one after it when it says 1, the ``rest`` of the file when 0."""
    length = struct.unpack(">I", head[:4])[0]
    if length == 1 and len(head) == 16:
        return struct.unpack(">Q", head[8:16])[0]
    return rest if length == 0 else length


class VideoEncoder:
    """ffmpeg encoding W×H RGB frames, each shown ``seconds_per_frame``, into ``temp``."""

    def __init__(self, temp: Path, size: tuple[int, int], seconds_per_frame: float) -> None:
        self.temp = Path(temp)
        self.messages = tempfile.TemporaryFile()  # noqa: SIM115 (ffmpeg writes it until finish or kill closes it)
        milliseconds = max(1, round(seconds_per_frame * 1000))
        width, height = size
        command = [ffmpeg_exe(), "-y", "-hide_banner", "-nostdin", "-loglevel", "error",
                   "-f", "rawvideo", "-pix_fmt", "rgb24", "-s", f"{width}x{height}", "-r", f"1000/{milliseconds}",
                   "-i", "pipe:0", "-an", "-c:v", "libx264", "-preset", "veryfast", "-pix_fmt", "yuv420p",
                   "-r", str(MP4_FPS), "-f", "mp4", str(self.temp)]
        try:
            self.process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                                            stderr=self.messages)
        except OSError as error:
            self.messages.close()
            raise AnimationError(QCoreApplication.translate("AttentionExport", "cannot start ffmpeg: %1").replace(
                "%1", str(error.strerror or error))) from None
        self.broken = False

    def send(self, frame: bytes) -> bool:
        """One frame down the pipe; False once ffmpeg has stopped reading (then :meth:`finish` says why)."""
        if self.broken:
            return False
        try:
            self.process.stdin.write(frame)
        except OSError:  # ffmpeg exited: its own message says why
            self.broken = True
        return not self.broken

    def finish(self, path: Path) -> None:
        """Wait for ffmpeg and check what it wrote; AnimationError with ffmpeg's reason otherwise."""
        with contextlib.suppress(OSError):
            self.process.stdin.close()
        try:
            code = self.process.wait(FINISH_SECONDS)
        except subprocess.TimeoutExpired:
            self.kill()
            raise AnimationError(QCoreApplication.translate("AttentionExport", "cannot write %1: ffmpeg did not finish in %2 s").replace(
                "%1", str(path)).replace("%2", str(FINISH_SECONDS))) from None
        reason = self._last_message()
        self.messages.close()
        if code != 0 or self.broken:
            raise AnimationError(QCoreApplication.translate("AttentionExport", "cannot write %1: ffmpeg failed (%2)").replace(
                "%1", str(path)).replace("%2", reason or f"exit code {code}"))
        problem = mp4_problem_of(self.temp)
        if problem:
            raise AnimationError(QCoreApplication.translate("AttentionExport", "cannot write %1: %2").replace("%1", str(path)).replace(
            "%2", str(problem)))

    def kill(self) -> None:
        """Stop ffmpeg now (a cancelled recording); the caller removes the temporary file."""
        if self.process.poll() is None:
            self.process.kill()
        with contextlib.suppress(OSError):
            self.process.stdin.close()
        self.process.wait()
        self.messages.close()

    def _last_message(self) -> str:
        self.messages.seek(0)
        lines = [line.strip() for line in self.messages.read()[-4096:].decode("utf-8", "replace").splitlines()]
        lines = [line for line in lines if line]
        return lines[-1][:300] if lines else ""
