"""The checked values of a session file (engine/records/session_file.py): each reader takes a parsed JSON value
and returns it typed, or raises :class:`SessionFileError` naming where and why — numbers finite, texts
bounded, arrays of the expected shape and, for attention, rows in 0–1 summing to 1."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from engine.settings.errors import EngineError

MAX_TEXT = 20_000
ROW_SUM_TOLERANCE = 1e-3


class SessionFileError(EngineError):
    """A session file that cannot be replayed (damaged, edited, of another version); says why."""


def require(condition: bool, reason: str) -> None:
    """Raise SessionFileError with ``reason`` unless ``condition`` holds."""
    if not condition:
        raise SessionFileError(reason)


def is_whole(value: Any) -> bool:
    """Whether ``value`` is an int (a bool is not)."""
    return isinstance(value, int) and not isinstance(value, bool)


def finite_number(value: Any, where: str) -> float:
    """``value`` as a float when it is a finite number; SessionFileError naming ``where`` otherwise."""
    require(isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value),
             f"{where} must be a finite number")
    return float(value)


def bounded_text(value: Any, where: str, limit: int = MAX_TEXT) -> str:
    """``value`` when it is text of at most ``limit`` characters; SessionFileError naming ``where`` otherwise."""
    require(isinstance(value, str) and len(value) <= limit, f"{where} must be text of at most {limit:,} characters")
    return value


def checked_array(value: Any, shape: tuple[int | None, ...], where: str, weights: bool = False) -> np.ndarray:
    """A list of numbers (1-D) or of rows (2-D) of the given shape (None: any length), all finite;
    ``weights``: each row between 0 and 1 and summing to 1."""
    require(isinstance(value, list), f"{where} must be a list of numbers")
    try:
        array = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        raise SessionFileError(f"{where} must hold numbers only, in rows of equal length") from None
    require(_has_shape(array, shape),
             f"{where} has shape {array.shape}; expected {tuple('any' if s is None else s for s in shape)}")
    require(bool(np.isfinite(array).all()), f"{where} holds a value that is not a finite number")
    if weights and array.size:
        require(_is_attention(array), f"{where} is not attention: each row must lie in 0–1 and sum to 1")
    return array


def _has_shape(array: np.ndarray, shape: tuple[int | None, ...]) -> bool:
    return array.ndim == len(shape) and all(want is None or got == want
                                            for got, want in zip(array.shape, shape, strict=True))


def _is_attention(array: np.ndarray) -> bool:
    """Every row (the last axis) lies in 0–1 and sums to 1, within the tolerances."""
    return bool((array >= -1e-6).all() and (array <= 1 + 1e-6).all()) and bool(
        np.allclose(array.sum(axis=-1), 1.0, atol=ROW_SUM_TOLERANCE))


def optional_array(value: Any, shape: tuple[int | None, ...], where: str, weights: bool = False) -> np.ndarray | None:
    """None for None, else :func:`checked_array` of ``value``."""
    return None if value is None else checked_array(value, shape, where, weights)
