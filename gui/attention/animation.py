"""A decode as an animation for slides: the heatmap filling row by row while the output grows beside
it, written as an animated GIF (Pillow) or an MP4 video (imageio-ffmpeg, when installed).

One frame per output token: frame k shows rows 0..k of α (the newest outlined), the source tokens
along the top, the output tokens down the side and the output so far as text underneath. Frames are
painted with QPainter on a QImage (no window needed; Qt finds fonts for Chinese as the app does),
all the same size, so the video does not jump. Each frame lasts the decode's chosen speed (its
seconds per step; at "fastest" a readable ANIMATION_FLOOR), the last one three times longer.
"""

from __future__ import annotations

import functools
import io
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QFont, QFontMetrics, QImage, QPainter, QPen

from gui.attention.labels import axis_label, join_pieces

ANIMATION_FLOOR = 0.4  # seconds per frame when the decode ran at full speed
LAST_FRAME_HOLD = 3  # the last frame stays this many frame lengths
MP4_FPS = 10
FRAME_WIDTH = 960
CELL_RANGE = (10, 40)  # pixels per cell, smallest and largest
LABEL_LIMIT = 150  # pixels of a token label at most (longer ones are elided)
MARGIN = 16
EMPTY_CELL = QColor("#eeeeee")
CURRENT_ROW = QColor("#ff7f0e")
MP4_HINT = "MP4 export needs imageio-ffmpeg: pip install imageio-ffmpeg (it brings its own ffmpeg)"


class AnimationError(Exception):
    """The animation cannot be written; says why."""


@dataclass(frozen=True)
class Animation:
    """What the frames show: T output tokens × S source tokens of α, and how long a frame lasts."""

    source_tokens: tuple[str, ...]
    target_tokens: tuple[str, ...]
    matrix: np.ndarray  # T×S α, rows summing to 1
    title: str
    seconds_per_frame: float

    @property
    def frame_count(self) -> int:
        return len(self.target_tokens)


def animation_of(source_tokens, target_tokens, matrix, title: str, seconds_per_step: float) -> Animation:
    """The animation of a decode; AnimationError when there is nothing to animate."""
    matrix = np.asarray(matrix, dtype=np.float64)
    if not len(target_tokens) or matrix.ndim != 2 or matrix.shape != (len(target_tokens), len(source_tokens)):
        raise AnimationError("translate a sentence first: there is no attention matrix to animate yet")
    seconds = float(seconds_per_step)
    return Animation(tuple(source_tokens), tuple(target_tokens), matrix, title,
                     seconds if seconds > 0 else ANIMATION_FLOOR)


@dataclass(frozen=True)
class _Layout:
    cell: int
    left: int  # x of the first column
    top: int  # y of the first row
    width: int
    height: int


def _layout(animation: Animation, font: QFont) -> _Layout:
    metrics = QFontMetrics(font)
    label = lambda text: min(metrics.horizontalAdvance(axis_label(text)), LABEL_LIMIT)  # noqa: E731
    left = MARGIN + max((label(t) for t in animation.target_tokens), default=0) + 8
    columns = max(len(animation.source_tokens), 1)
    cell = int(np.clip((FRAME_WIDTH - left - MARGIN) / columns, *CELL_RANGE))
    top = MARGIN + metrics.height() + 8 + max((label(t) for t in animation.source_tokens), default=0) + 8
    width = max(left + columns * cell + MARGIN, 480)
    height = top + len(animation.target_tokens) * cell + 3 * metrics.height() + 2 * MARGIN
    return _Layout(cell, left, top, width + width % 2, height + height % 2)  # even: video encoders need it


@functools.cache
def _palette() -> tuple[QColor, ...]:
    table = pg.colormap.get("viridis").getLookupTable(0.0, 1.0, 256, alpha=False)  # 256×3 bytes
    return tuple(QColor(*map(int, rgb)) for rgb in table)


def _colours(values: np.ndarray) -> list[QColor]:
    palette = _palette()
    return [palette[i] for i in np.clip((values * 255).round().astype(int), 0, 255)]


def frame(animation: Animation, rows: int) -> QImage:
    """The frame with the first ``rows`` rows of α filled in (1 ≤ rows ≤ T)."""
    font = QFont()
    font.setPixelSize(13)
    layout = _layout(animation, font)
    metrics = QFontMetrics(font)
    image = QImage(layout.width, layout.height, QImage.Format.Format_RGB32)
    image.fill(QColor("white"))
    painter = QPainter(image)
    painter.setFont(font)
    painter.setPen(QColor("#303030"))
    painter.drawText(MARGIN, MARGIN + metrics.ascent(), animation.title)
    cell, left, top = layout.cell, layout.left, layout.top
    for j, token in enumerate(animation.source_tokens):  # source tokens along the top, read upwards
        painter.save()
        painter.translate(left + j * cell + cell / 2 + metrics.ascent() / 2 - 2, top - 6)
        painter.rotate(-90)
        painter.drawText(0, 0, metrics.elidedText(axis_label(token), Qt.TextElideMode.ElideRight, LABEL_LIMIT))
        painter.restore()
    for i, token in enumerate(animation.target_tokens):
        y = top + i * cell
        shown = i < rows
        colours = _colours(animation.matrix[i]) if shown else [EMPTY_CELL] * len(animation.source_tokens)
        for j, colour in enumerate(colours):
            painter.fillRect(left + j * cell, y, cell - 1, cell - 1, colour)
        if shown:
            text = metrics.elidedText(axis_label(token), Qt.TextElideMode.ElideRight, LABEL_LIMIT)
            painter.drawText(QRectF(MARGIN, y, left - MARGIN - 8, cell),
                             int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter), text)
    if rows > 0:
        painter.setPen(QPen(CURRENT_ROW, 2))
        painter.drawRect(left - 1, top + (rows - 1) * cell - 1, len(animation.source_tokens) * cell + 1, cell + 1)
    painter.setPen(QColor("#303030"))
    output = join_pieces(list(animation.target_tokens[:rows]))[0]
    text_top = top + len(animation.target_tokens) * cell + MARGIN
    painter.drawText(QRectF(MARGIN, text_top, layout.width - 2 * MARGIN, 3 * metrics.height()),
                     int(Qt.TextFlag.TextWordWrap), f"Output: {output}")
    painter.end()
    return image


def frames(animation: Animation) -> list[QImage]:
    """One frame per output token."""
    return [frame(animation, rows) for rows in range(1, animation.frame_count + 1)]


def rgb_array(image: QImage) -> np.ndarray:
    """H×W×3 bytes of ``image``."""
    rgb = image.convertToFormat(QImage.Format.Format_RGB888)
    width, height, stride = rgb.width(), rgb.height(), rgb.bytesPerLine()
    data = np.frombuffer(rgb.constBits(), np.uint8, count=stride * height).reshape(height, stride)
    return data[:, : width * 3].reshape(height, width, 3).copy()


def write_gif(animation: Animation, path: Path) -> Path:
    """The animation as a looping GIF at ``path`` (Pillow), one frame per output token."""
    from PIL import Image

    from engine.atomic import write_bytes_atomic

    pictures = [Image.fromarray(rgb_array(image)) for image in frames(animation)]
    # One palette for every frame, from the last (it holds every colour): quantizing each frame on
    # its own is what made a 20-step GIF slow.
    palette = pictures[-1].quantize(colors=256, method=Image.Quantize.FASTOCTREE)
    pictures = [picture.quantize(palette=palette, dither=Image.Dither.NONE) for picture in pictures]
    milliseconds = round(animation.seconds_per_frame * 1000)
    durations = [milliseconds] * (len(pictures) - 1) + [milliseconds * LAST_FRAME_HOLD]
    data = io.BytesIO()
    pictures[0].save(data, format="GIF", save_all=True, append_images=pictures[1:], duration=durations, loop=0,
                     disposal=1)
    try:
        write_bytes_atomic(Path(path), data.getvalue())
    except OSError as error:
        raise AnimationError(f"cannot write {path}: {error.strerror or error}") from None
    return Path(path)


def mp4_problem() -> str:
    """Why MP4 cannot be written here ("" when it can)."""
    try:
        import imageio_ffmpeg

        imageio_ffmpeg.get_ffmpeg_exe()
    except (ImportError, RuntimeError, OSError):
        return MP4_HINT
    return ""


def write_mp4(animation: Animation, path: Path) -> Path:
    """The animation as an H.264 MP4 at ``path`` (imageio-ffmpeg), each frame held its duration."""
    problem = mp4_problem()
    if problem:
        raise AnimationError(problem)
    import imageio_ffmpeg

    pictures = [rgb_array(image) for image in frames(animation)]
    height, width = pictures[0].shape[:2]
    repeat = max(1, round(animation.seconds_per_frame * MP4_FPS))
    writer = imageio_ffmpeg.write_frames(str(path), (width, height), fps=MP4_FPS, codec="libx264",
                                         pix_fmt_out="yuv420p", macro_block_size=1, output_params=["-an"])
    try:
        writer.send(None)
        for number, picture in enumerate(pictures):
            for _ in range(repeat * (LAST_FRAME_HOLD if number == len(pictures) - 1 else 1)):
                writer.send(picture.tobytes())
        writer.close()
    except (OSError, RuntimeError, BrokenPipeError) as error:
        raise AnimationError(f"cannot write {path}: {error}") from None
    return Path(path)
