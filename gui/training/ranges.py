"""Plot ranges that change rarely: bounds rounded outwards to "nice" numbers.

Letting pyqtgraph auto-range a growing curve changes the view range on every frame, and each
change re-renders the axes (a few milliseconds per plot on a CPU). Rounding the bounds to nice
steps means the range changes only when the data crosses one, a handful of times per run.
"""

from __future__ import annotations

import math

import numpy as np

_MANTISSAS = (1.0, 1.2, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0, 8.0, 10.0)


def nice_ceil(value: float) -> float:
    """The smallest of 1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8 × 10^k that is ≥ ``value`` (> 0)."""
    if not math.isfinite(value) or value <= 0:
        return 1.0
    exponent = math.floor(math.log10(value))
    for mantissa in _MANTISSAS:
        candidate = mantissa * 10.0**exponent
        if candidate >= value * (1 - 1e-12):
            return candidate
    return 10.0 ** (exponent + 1)


def nice_step(span: float, ticks: int = 5) -> float:
    """A 1/2/5 × 10^k step that cuts ``span`` into about ``ticks`` parts."""
    if not math.isfinite(span) or span <= 0:
        return 1.0
    raw = span / ticks
    exponent = math.floor(math.log10(raw))
    for mantissa in (1.0, 2.0, 5.0, 10.0):
        if mantissa * 10.0**exponent >= raw:
            return mantissa * 10.0**exponent
    return 10.0 ** (exponent + 1)


def nice_bounds(values: list[np.ndarray], floor_zero: bool = False) -> tuple[float, float] | None:
    """(low, high) of the finite values, rounded outwards to a nice step; None when there are none."""
    finite = [v[np.isfinite(v)] for v in values if len(v)]
    finite = [v for v in finite if len(v)]
    if not finite:
        return None
    low = 0.0 if floor_zero else float(min(v.min() for v in finite))
    high = float(max(v.max() for v in finite))
    if high - low < 1e-12:
        pad = abs(high) * 0.1 or 1.0
        low, high = low - pad, high + pad
    step = nice_step(high - low)
    return math.floor(low / step) * step, math.ceil(high / step) * step
