"""What the trainer reports: immutable events, one per batch and one per validation.

The trainer knows no listener; the command line prints these, the app plots them. All fields are
plain Python values or numpy copies, so an event can cross threads as it is.
"""

from __future__ import annotations

import dataclasses
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Protocol

import numpy as np


class FinishReason(StrEnum):
    """How a run ended (a ``str``: it is written to config.json and compared as text)."""

    COMPLETED = "completed"  # every epoch ran
    EARLY_STOPPING = "early stopping"  # valid BLEU stopped improving
    TIME_BUDGET = "time budget"  # --max-minutes ran out
    STEP_LIMIT = "step limit"  # --max-steps reached
    TOKEN_BUDGET = "token budget"  # --max-target-tokens reached
    STOPPED = "stopped"  # asked to stop (Stop, Ctrl-C, SIGTERM): resumable


ENDED_ON_ITS_OWN = frozenset({FinishReason.COMPLETED, FinishReason.EARLY_STOPPING, FinishReason.TIME_BUDGET,
                              FinishReason.STEP_LIMIT, FinishReason.TOKEN_BUDGET})


LOGGED = "logged"  # the metadata key of a field's Logged
IN_EVERY_LINE: Any = object()  # a field's ``absent``: every line of its kind holds it


@dataclass(frozen=True)
class Logged:
    """How an event's field is written in the metrics log (engine.training.metrics_log) and checked when
    a line is read back (engine.training.metrics_schema derives the line's schema from these facts and
    the field's type: an ``int`` is a count, at least 0; ``X | None`` may be null; a ``tuple`` is a list;
    an enum one of its values; an ``np.ndarray`` a matrix of numbers). A field without one is logged
    with the defaults."""

    low: float | None = None  # valid range of a number (or of a matrix's entries); None: unbounded
    high: float | None = None
    nan_as_null: bool = False  # a float written as null when not finite, and read back as NaN
    absent: Any = IN_EVERY_LINE  # what a line of an older version without the field reads as
    max_length: int = 100_000  # a text's (or each token's) characters
    max_items: int | None = None  # a list's (or a matrix's rows' and columns') items
    first: int | None = None  # only the first items of a tuple are written
    decimals: int | None = None  # a matrix's entries are written rounded to this many decimals


def logged(**facts: Any) -> dict[str, Logged]:
    """A field's metadata saying how the metrics log holds it: ``field(metadata=logged(low=0))``."""
    return {LOGGED: Logged(**facts)}


def log_facts(event_field: dataclasses.Field) -> Logged:
    """The :class:`Logged` facts of an event's field (the defaults when it declares none)."""
    return event_field.metadata.get(LOGGED, _PLAIN)


_PLAIN = Logged()
_TOKENS = {"max_length": 1_000, "max_items": 10_000}


@dataclass(frozen=True)
class StepEvent:
    step: int  # optimizer steps attempted so far (skipped ones included), 1-based
    epoch: int  # 1-based
    batch: int  # 1-based position within the epoch
    batches_per_epoch: int
    loss: float = field(metadata=logged(nan_as_null=True))  # per target token, label smoothing included; NaN for a skipped step
    tokens_per_second: float = field(metadata=logged(low=0, nan_as_null=True))  # target tokens over training wall time, recent window
    learning_rate: float = field(metadata=logged(low=0, nan_as_null=True))
    skipped_steps: int  # non-finite steps skipped so far
    elapsed_seconds: float = field(metadata=logged(low=0))  # a clock: never null
    # until the first budget ends: the last epoch, steps, target tokens or time (logs before it: None)
    eta_seconds: float | None = field(metadata=logged(absent=None))
    # target tokens trained on so far, this run's earlier sittings included (0: not logged, as before it was)
    target_tokens: int = field(default=0, metadata=logged(absent=0))


@dataclass(frozen=True)
class SampleTranslation:
    source: str
    reference: str
    hypothesis: str
    source_tokens: tuple[str, ...] = field(metadata=logged(**_TOKENS))
    tokens: tuple[str, ...] = field(metadata=logged(**_TOKENS))
    # len(tokens)×len(source_tokens); None for the 'none' scorer; written rounded to 4 decimals
    attention: np.ndarray | None = field(metadata=logged(low=0, high=1, max_items=10_000, decimals=4, absent=None))


@dataclass(frozen=True, kw_only=True)
class ValidationEvent:
    step: int
    epoch: int
    valid_loss: float = field(metadata=logged(nan_as_null=True))  # per target token, no label smoothing
    bleu: float
    chrf: float
    exact_match: float
    is_best: bool  # this model was saved as the run's best
    best_bleu: float
    learning_rate: float = field(metadata=logged(low=0))
    elapsed_seconds: float = field(metadata=logged(low=0))
    # BLEU on the long validation set (TrainConfig.long_validation), else None
    long_bleu: float | None = field(default=None, metadata=logged(absent=None))
    # the fixed validation sentences' translations; the log keeps the first one's (its attention snapshot)
    samples: tuple[SampleTranslation, ...] = field(metadata=logged(max_items=64, first=1, absent=()))

    @property
    def score(self) -> float:
        """What the run is judged on: the valid BLEU, or with a long validation set the mean of both BLEUs
        (a model must translate single sentences and long inputs alike to be chosen)."""
        return self.bleu if self.long_bleu is None else (self.bleu + self.long_bleu) / 2


@dataclass(frozen=True)
class FinishedEvent:
    reason: FinishReason
    best_bleu: float
    best_epoch: int
    steps: int
    epochs_completed: int
    seconds: float = field(metadata=logged(low=0))
    tokens_per_second: float = field(metadata=logged(low=0))  # target tokens over training wall time (validation excluded)
    skipped_steps: int
    model_folder: str = field(metadata=logged(max_length=4096))


TrainEvent = StepEvent | ValidationEvent | FinishedEvent


class RunControl(Protocol):
    """What a training run asks between two steps (engine.training.trainer): whether to stop, and
    whether to hold — a paused run waits in :meth:`wait_while_paused`, and its clock (the time
    budget, the training time) does not run meanwhile."""

    @property
    def stop_requested(self) -> bool:
        """A stop was asked: the run ends before its next step (with a checkpoint)."""
        ...

    @property
    def paused(self) -> bool:
        """A pause was asked: the run holds before its next step."""
        ...

    def wait_while_paused(self) -> float:
        """Block while paused, waking on a stop; the seconds spent paused."""
        ...


class RunSteering(RunControl, Protocol):
    """A run's control as its owner steers it from another thread — the app's worker
    (gui.workers), the command line's signals (engine.training.interrupt); :class:`TrainControl`
    is the plain one."""

    def request_stop(self) -> None:
        """Ask the run to stop before its next step (a paused run wakes up to stop)."""
        ...

    def pause(self) -> None:
        """Ask the run to hold before its next step."""
        ...

    def resume(self) -> None:
        """Let a paused run go on."""
        ...

    def listen_held(self, listener: Callable[[], None]) -> None:
        """Have ``listener`` called (from the run's thread) each time a pause takes hold: every event
        before it has been yielded, and no step runs until a resume or a stop."""
        ...


class TrainControl:
    """Thread-safe stop / pause requests, honoured by the trainer before the next batch (a
    :class:`RunSteering`)."""

    def __init__(self) -> None:
        self._stop = threading.Event()
        self._running = threading.Event()
        self._running.set()
        self._held_listeners: list[Callable[[], None]] = []

    def request_stop(self) -> None:
        """Ask the run to stop before its next step (a paused run wakes up to stop)."""
        self._stop.set()
        self._running.set()

    def pause(self) -> None:
        """Ask the run to hold before its next step."""
        self._running.clear()

    def resume(self) -> None:
        """Let a paused run go on."""
        self._running.set()

    def listen_held(self, listener: Callable[[], None]) -> None:
        """Have ``listener`` called (from the run's thread) each time a pause takes hold."""
        self._held_listeners.append(listener)

    @property
    def stop_requested(self) -> bool:
        return self._stop.is_set()

    @property
    def paused(self) -> bool:
        return not self._running.is_set()

    def wait_while_paused(self) -> float:
        """Block while paused (waking on stop); returns the seconds spent paused."""
        started = time.monotonic()
        if not self._running.is_set():
            for listener in list(self._held_listeners):
                listener()
        while not self._running.wait(timeout=0.05):
            if self._stop.is_set():
                break
        return time.monotonic() - started
