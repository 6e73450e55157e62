"""An animated GIF written frame by frame (Pillow's GIF encoder, one frame at a time), so that a long
animation never holds more than two frames.

Every frame uses one global palette of 255 colours, quantized from a frame that holds every colour
(the last: the whole map); each frame after the first is stored as the rectangle that changed since
the one before, its unchanged pixels transparent (index 255), so that they compress to almost
nothing — what Pillow's own optimizer does, without holding every frame (the rest stays: disposal 1).
No Qt here: the recordings' workers call it.
"""

from __future__ import annotations

from typing import IO

import numpy as np
from PIL import GifImagePlugin, Image

UNCHANGED = 255  # the palette index of a pixel left as the frame before drew it (transparent)


class GifStream:
    """Writes a looping GIF to ``out``: :meth:`add` each frame, then :meth:`close`."""

    def __init__(self, out: IO[bytes], palette_frame: np.ndarray) -> None:
        """``palette_frame``: H×W×3 bytes holding every colour the frames use."""
        self.out = out
        self.palette = Image.fromarray(palette_frame).quantize(colors=UNCHANGED, method=Image.Quantize.FASTOCTREE)
        self.previous: np.ndarray | None = None  # the last frame's palette indices

    def add(self, frame: np.ndarray, milliseconds: int) -> None:
        """One frame (H×W×3 bytes, every frame the same size) shown ``milliseconds``."""
        picture = Image.fromarray(frame).quantize(palette=self.palette, dither=Image.Dither.NONE)
        indices = np.asarray(picture)
        extra = {}
        if self.previous is None:
            header, _ = GifImagePlugin.getheader(picture, None, {"loop": 0, "optimize": False, "duration": milliseconds})
            self.out.write(b"".join(header))
            part = picture
            offset = (0, 0)
        else:
            left, top, right, bottom = _changed(self.previous, indices)
            window = (slice(top, bottom), slice(left, right))
            shown = np.where(self.previous[window] == indices[window], UNCHANGED, indices[window]).astype(np.uint8)
            part = Image.frombytes("P", (right - left, bottom - top), shown.tobytes())
            offset, extra = (left, top), {"transparency": UNCHANGED}
        self.previous = indices
        for chunk in GifImagePlugin.getdata(part, offset=offset, duration=milliseconds, disposal=1, **extra):
            self.out.write(chunk)

    def close(self) -> None:
        """The trailer: the file is whole."""
        self.out.write(b";")


def _changed(before: np.ndarray, after: np.ndarray) -> tuple[int, int, int, int]:
    """The smallest (left, top, right, bottom) holding every pixel that differs (one pixel if none)."""
    differs = before != after
    rows, columns = np.flatnonzero(differs.any(axis=1)), np.flatnonzero(differs.any(axis=0))
    if not rows.size:
        return 0, 0, 1, 1
    return int(columns[0]), int(rows[0]), int(columns[-1]) + 1, int(rows[-1]) + 1
