"""Plot ranges that change rarely: bounds rounded outwards to "nice" numbers (and, from them, the
ranges of the training curves' plots).

Letting pyqtgraph auto-range a growing curve changes the view range on every frame, and each
change re-renders the axes (a few milliseconds per plot on a CPU). Rounding the bounds to nice
steps means the range changes only when the data crosses one, a handful of times per run.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from gui.training.records import RunRecord

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
    finite = _finite_values(values)
    if not finite:
        return None
    low = 0.0 if floor_zero else float(min(v.min() for v in finite))
    high = float(max(v.max() for v in finite))
    if high - low < 1e-12:  # one value: a range around it
        pad = abs(high) * 0.1 or 1.0
        low, high = low - pad, high + pad
    step = nice_step(high - low)
    return math.floor(low / step) * step, math.ceil(high / step) * step


def _finite_values(values: list[np.ndarray]) -> list[np.ndarray]:
    """The finite values of each array; the arrays left without any are dropped."""
    finite = [v[np.isfinite(v)] for v in values if len(v)]
    return [v for v in finite if len(v)]


# -- the training curves' ranges ------------------------------------------------------------------

def curves_x_bounds(records: list[RunRecord], x_name: str) -> tuple[float, float] | None:
    """The x range of the runs' curves against ``x_name`` ("step", "elapsed" or "target_tokens"): from 0 to a nice
    number a little past the last point (room to grow while some run goes on; just past it when every
    run has ended), or past where a watched run's backlog will end."""
    finite = _finite_values(_x_values(records, x_name))
    if not finite:
        return None
    last = max(float(v.max()) for v in finite)
    growing = any(r.finished is None or r.steps_ahead > 0 for r in records)
    return 0.0, nice_ceil((1.04 if growing else 1.0) * max(last, 1.0 if x_name == "elapsed" else 10.0))


def _x_values(records: list[RunRecord], x_name: str) -> list[np.ndarray]:
    """Every x of the runs' training and validation points, and where each watched run's backlog will end."""
    xs = [r.series(x_name) for r in records] + [r.validation_series(x_name) for r in records]
    return xs + [np.array([_expected_end(r, x_name)]) for r in records if r.steps_ahead > 0]


def _expected_end(record: RunRecord, x_name: str) -> float:
    """Where a watched run's backlog will end on the x axis (its log's size says about how many
    steps are still to read; time at the pace so far)."""
    last = record.last_step
    if last is None or last.step <= 0:
        return 0.0
    end_step = last.step + record.steps_ahead
    if x_name == "step":
        return float(end_step)
    so_far = last.target_tokens if x_name == "target_tokens" else last.elapsed_seconds
    return so_far * end_step / last.step


def loss_bounds(records: list[RunRecord], log_scale: bool) -> tuple[float, float] | None:
    """The y range of the loss plot: the training and validation losses (their log10 on a log axis)."""
    losses = [r.series("loss") for r in records] + [r.validation_series("valid_loss") for r in records]
    if log_scale:
        losses = [np.log10(np.where(v > 0, v, np.nan)) for v in losses]
    return nice_bounds(losses)
