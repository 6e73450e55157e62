"""A decode as an animation for slides: the heatmap filling row by row while the output grows beside
it, written as an animated GIF (Pillow) or an MP4 video (imageio-ffmpeg, when installed).

One frame per output token (gui.attention.frames paints them, all the same size, the size capped).
Each frame lasts the decode's chosen speed (its seconds per step; at "fastest" a readable
ANIMATION_FLOOR), the last one three times longer.

The writers stream: :func:`gif_frames` and :func:`mp4_frames` are generators that paint a frame,
write it and yield the number written, so a worker runs them (progress shown, cancel honoured at
each frame) and memory holds a frame or two whatever the decode's length. Each writes a temporary
file beside the target and moves it into place only when it is whole (gui.attention.target_file):
a failure or a cancel leaves whatever was at the path as it was.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from PySide6.QtCore import QCoreApplication

from gui.attention.frames import FramePainter, rgb_bytes, viridis_palette
from gui.attention.target_file import AnimationError, cannot_write, move_into_place, target_problem, temp_beside
from gui.attention.video import MP4_HINT, VideoEncoder, mp4_problem

__all__ = ["MP4_HINT", "Animation", "AnimationError", "animation_of", "gif_frames", "mp4_frames", "mp4_problem",
           "write_gif", "write_mp4"]

ANIMATION_FLOOR = 0.4  # seconds per frame when the decode ran at full speed
LAST_FRAME_HOLD = 3  # the last frame stays this many frame lengths


@dataclass(frozen=True)
class Animation:
    """What the frames show: T output tokens × S source tokens of α, and how long a frame lasts.
    Immutable (the matrix and palette are read-only copies): a worker may paint from it."""

    source_tokens: tuple[str, ...]
    target_tokens: tuple[str, ...]
    matrix: np.ndarray  # T×S α, rows summing to 1
    title: str
    seconds_per_frame: float
    palette: np.ndarray  # 256×3 bytes: the map's colour scale
    texts: tuple[str, ...] = ()  # the output so far after each frame (else the target tokens joined as pieces)

    @property
    def frame_count(self) -> int:
        return len(self.target_tokens)


def animation_of(source_tokens, target_tokens, matrix, title: str, seconds_per_step: float,
                 texts=()) -> Animation:
    """The animation of a decode (``texts``: the output so far after each row, when the tokens are labels
    rather than pieces); AnimationError when there is nothing to animate."""
    matrix = np.array(matrix, dtype=np.float32)
    if not len(target_tokens) or matrix.ndim != 2 or matrix.shape != (len(target_tokens), len(source_tokens)):
        raise AnimationError(QCoreApplication.translate(
            "AttentionExport", "translate a sentence first: there is no attention matrix to animate yet"))
    matrix.setflags(write=False)
    palette = viridis_palette()
    palette.setflags(write=False)
    seconds = float(seconds_per_step)
    return Animation(tuple(source_tokens), tuple(target_tokens), matrix, title,
                     seconds if seconds > 0 else ANIMATION_FLOOR, palette, tuple(texts))


def _milliseconds(animation: Animation, number: int) -> int:
    """How long frame ``number`` (0-based) is shown."""
    milliseconds = round(animation.seconds_per_frame * 1000)
    return milliseconds * (LAST_FRAME_HOLD if number == animation.frame_count - 1 else 1)


def gif_frames(animation: Animation, path: Path) -> Iterator[int]:
    """Write the animation as a looping GIF at ``path``, one frame at a time; yields the frames written
    so far and returns the path."""
    from gui.attention.gif_stream import GifStream

    path = Path(path)
    problem = target_problem(path)
    if problem:
        raise AnimationError(problem)
    painter = FramePainter(animation)
    last = rgb_bytes(painter.frame(animation.frame_count))  # every colour: the palette's source
    with temp_beside(path) as temp:
        try:
            with open(temp, "wb") as out:
                stream = GifStream(out, last)
                del last
                for number in range(animation.frame_count):
                    stream.add(rgb_bytes(painter.frame(number + 1)), _milliseconds(animation, number))
                    yield number + 1
                stream.close()
        except OSError as error:
            raise cannot_write(path, error) from None
        move_into_place(temp, path)
    return path


def mp4_frames(animation: Animation, path: Path) -> Iterator[int]:
    """Write the animation as an H.264 MP4 at ``path`` through ffmpeg, one frame at a time; yields the
    frames sent so far and returns the path. Moved into place only when ffmpeg succeeded and the file
    is a whole MP4."""
    path = Path(path)
    problem = mp4_problem() or target_problem(path)
    if problem:
        raise AnimationError(problem)
    painter = FramePainter(animation)
    with temp_beside(path) as temp:
        encoder = VideoEncoder(temp, painter.size, animation.seconds_per_frame)
        try:
            for number in range(animation.frame_count):
                frame = rgb_bytes(painter.frame(number + 1)).tobytes()
                holds = LAST_FRAME_HOLD if number == animation.frame_count - 1 else 1
                if not all(encoder.send(frame) for _ in range(holds)):
                    break  # ffmpeg stopped: finish() says why
                yield number + 1
            encoder.finish(path)
        except BaseException:
            encoder.kill()
            raise
        move_into_place(temp, path)
    return path


def drained(frames: Iterator[int]) -> Path:
    """Run a writer to its end in this thread; its path."""
    while True:
        try:
            next(frames)
        except StopIteration as stop:
            return stop.value


def write_gif(animation: Animation, path: Path) -> Path:
    """The whole GIF written here and now (tests, scripts; the app runs :func:`gif_frames` in a worker)."""
    return drained(gif_frames(animation, path))


def write_mp4(animation: Animation, path: Path) -> Path:
    """The whole MP4 written here and now (tests, scripts; the app runs :func:`mp4_frames` in a worker)."""
    return drained(mp4_frames(animation, path))


WRITERS: dict[str, Callable[[Animation, Path], Iterator[int]]] = {"gif": gif_frames, "mp4": mp4_frames}
