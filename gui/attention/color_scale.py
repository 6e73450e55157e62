"""The colour scales of an attention map: what colour a weight α gets, and what the colour bar says.

- **0–1** (``unit``): colour = α on a fixed scale; maps of different sentences compare directly.
- **Per row** (``row``): each row divided by its own largest weight, so every row's strongest
  source token is the brightest colour — on long inputs, where every weight of a row is below
  0.2, the shape of each step's attention becomes visible.
- **Automatic** (``auto``): 0 to the largest weight of the whole map (rounded up to 0.01).

Numpy, and Qt only to translate its texts: the heatmap applies a scale to the weights it is given; the hover read-out and
the exports keep the weights themselves.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication


@dataclass(frozen=True)
class ColorScale:
    """One way to map weights to colours."""

    name: str  # the key (settings, exports): unit, row or auto
    title: str  # the menu text (English: shown through QCoreApplication.translate("ColorScale", …))
    tooltip: str

    def apply(self, matrix: np.ndarray) -> tuple[np.ndarray, tuple[float, float], str]:
        """The image values for ``matrix`` (rows × columns of α), the colour levels, and the colour
        bar's label."""
        matrix = np.asarray(matrix, dtype=np.float32)
        if self.name == "row":
            top = matrix.max(axis=1, keepdims=True) if matrix.size else np.ones((matrix.shape[0], 1), np.float32)
            return (np.divide(matrix, top, out=np.zeros_like(matrix), where=top > 0), (0.0, 1.0),
                    QCoreApplication.translate("ColorScale", "α ÷ row max"))
        if self.name == "auto":
            largest = float(np.nanmax(matrix)) if matrix.size else 0.0
            high = math.ceil(largest * 100) / 100 if largest > 0 else 1.0
            return matrix, (0.0, min(high, 1.0)), QCoreApplication.translate("ColorScale", "α (0–%1, map max)").replace(
                "%1", f"{min(high, 1.0):.2f}")
        return matrix, (0.0, 1.0), "α (0–1)"


COLOR_SCALES: dict[str, ColorScale] = {
    "unit": ColorScale("unit", "0–1", QT_TRANSLATE_NOOP("ColorScale", "Colour = α on the fixed 0–1 scale: maps of "
                                                         "different sentences compare")),
    "row": ColorScale("row", QT_TRANSLATE_NOOP("ColorScale", "Per row"),
                      QT_TRANSLATE_NOOP("ColorScale", "Each row divided by its largest α: every step's strongest "
                                        "source token is the brightest (the shape of diffuse attention)")),
    "auto": ColorScale("auto", QT_TRANSLATE_NOOP("ColorScale", "Automatic"),
                       QT_TRANSLATE_NOOP("ColorScale", "0 to the largest α of this map")),
}
DEFAULT_SCALE = "unit"


def color_scale(name: str) -> ColorScale:
    """The scale called ``name``; the error lists the valid names."""
    try:
        return COLOR_SCALES[name]
    except KeyError:
        raise ValueError(f"unknown colour scale {name!r}: choose one of {', '.join(COLOR_SCALES)}") from None
