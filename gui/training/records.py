"""What the window remembers about each run: the curves' data, validations and attention snapshots.

Plain Python and numpy, no Qt: the curves and the table render a :class:`RunRecord`; the CSV
export writes it. Step data lives in growing numpy buffers so that redrawing a curve 30 times a
second never copies a Python list.

A :class:`RunRecord` is the run *as shown* — its plot series, held in memory for this session. The
run's stored record (its request, checkpoint, log, phase) has one owner, :class:`engine.records.runs.RunFolder`,
which a record holds as :attr:`RunRecord.run`.
"""

from __future__ import annotations

import csv
import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication

from engine.records import RunFolder, RunPhase
from engine.training import FinishedEvent, SampleTranslation, StepEvent, ValidationEvent
from gui.training.settings import RunSettings

DEFAULT_SMOOTHING = 0.9  # weight of the past in the smoothed training loss (TensorBoard's convention)


class GrowingArray:
    """An append-only float64 array with amortized O(1) appends; :meth:`view` is a no-copy slice."""

    def __init__(self, capacity: int = 1024) -> None:
        self._data = np.empty(capacity, dtype=np.float64)
        self._size = 0

    def extend(self, values: Sequence[float]) -> None:
        needed = self._size + len(values)
        if needed > len(self._data):
            grown = np.empty(max(needed, 2 * len(self._data)), dtype=np.float64)
            grown[: self._size] = self._data[: self._size]
            self._data = grown
        self._data[self._size : needed] = values
        self._size = needed

    def view(self) -> np.ndarray:
        return self._data[: self._size]

    def __len__(self) -> int:
        return self._size


def smooth(values: np.ndarray, weight: float, state: tuple[float, int] = (0.0, 0)) -> tuple[np.ndarray, tuple[float, int]]:
    """Debiased exponential moving average; NaN inputs stay NaN (gaps) and do not move the average.

    ``state`` (running average, finite values seen) continues an earlier call, so a growing series
    is smoothed incrementally. Returns the smoothed values and the new state.
    """
    average, count = state
    out = np.empty(len(values), dtype=np.float64)
    for index, value in enumerate(values):
        if not math.isfinite(value):
            out[index] = math.nan
            continue
        average = weight * average + (1.0 - weight) * value
        count += 1
        out[index] = average / (1.0 - weight**count) if weight > 0 else average
    return out, (average, count)


@dataclass(frozen=True)
class StepBlock:
    """Step events as columns, one numpy array per :attr:`RunRecord.STEP_COLUMNS` entry, made where
    the events are read (a watched log's worker): a record takes thousands of steps as a few array
    copies instead of a loop over events in the window's thread."""

    columns: tuple[np.ndarray, ...]  # in the order of RunRecord.STEP_COLUMNS; equal lengths
    last: StepEvent | None  # the newest event (the progress line shows it)

    @classmethod
    def from_events(cls, events: Sequence[StepEvent]) -> StepBlock:
        rows = [(e.step, e.epoch, e.elapsed_seconds, e.loss, e.learning_rate, e.tokens_per_second,
                 e.target_tokens if e.target_tokens > 0 else math.nan) for e in events]  # 0: a log without them
        width = len(RunRecord.STEP_COLUMNS)
        table = np.array(rows, dtype=np.float64).reshape(len(rows), width)
        return cls(tuple(np.ascontiguousarray(table[:, i]) for i in range(width)), events[-1] if events else None)

    def __len__(self) -> int:
        return len(self.columns[0]) if self.columns else 0


@dataclass(frozen=True)
class ValidationPoint:
    step: int
    epoch: int
    elapsed: float  # seconds of training; NaN for points read back from an older checkpoint
    valid_loss: float
    bleu: float
    chrf: float
    exact_match: float
    learning_rate: float
    long_bleu: float = math.nan  # on the long validation set (the valid pairs joined 1–8); NaN without one


@dataclass(frozen=True)
class Snapshot:
    """The fixed sample sentences translated after one validation, with their attention."""

    epoch: int
    step: int
    bleu: float
    samples: tuple[SampleTranslation, ...]


# The words of engine.records.runs.RunPhase and engine.training.events.FinishReason, and what a run says it is
# doing in fixed words (engine.records.lifecycle, engine.training.jobs), marked for translation (status_word
# shows them in the interface's language; a status with figures in it stays as the engine wrote it).
STATUS_WORDS = (
    QT_TRANSLATE_NOOP("RunStatus", "not started"), QT_TRANSLATE_NOOP("RunStatus", "waiting"),
    QT_TRANSLATE_NOOP("RunStatus", "preparing"), QT_TRANSLATE_NOOP("RunStatus", "training"),
    QT_TRANSLATE_NOOP("RunStatus", "paused"), QT_TRANSLATE_NOOP("RunStatus", "stopping"),
    QT_TRANSLATE_NOOP("RunStatus", "stopped"), QT_TRANSLATE_NOOP("RunStatus", "finished"),
    QT_TRANSLATE_NOOP("RunStatus", "ended"), QT_TRANSLATE_NOOP("RunStatus", "failed"),
    QT_TRANSLATE_NOOP("RunStatus", "diverged"), QT_TRANSLATE_NOOP("RunStatus", "watching"),
    QT_TRANSLATE_NOOP("RunStatus", "completed"), QT_TRANSLATE_NOOP("RunStatus", "early stopping"),
    QT_TRANSLATE_NOOP("RunStatus", "time budget"), QT_TRANSLATE_NOOP("RunStatus", "step limit"),
    QT_TRANSLATE_NOOP("RunStatus", "token budget"),
    QT_TRANSLATE_NOOP("RunStatus", "reading the corpus and training the tokenizers"),
    QT_TRANSLATE_NOOP("RunStatus", "reading the corpus and the checkpoint"),
    QT_TRANSLATE_NOOP("RunStatus", "reading the corpus"), QT_TRANSLATE_NOOP("RunStatus", "training the tokenizers"),
    QT_TRANSLATE_NOOP("RunStatus", "scoring the best model on the held-out test split and its long test set"),
)


def status_word(word: str) -> str:
    """A run phase's or finish reason's word in the interface's language (unknown words as they are)."""
    return QCoreApplication.translate("RunStatus", word)


class RunRecord:
    """One run's plot series and state as the window shows it, in memory; its folder is :attr:`run`."""

    STEP_COLUMNS = ("step", "epoch", "elapsed", "loss", "learning_rate", "tokens_per_second", "target_tokens")

    def __init__(self, name: str, settings: RunSettings, folder: Path, colour: str) -> None:
        self.name, self.settings, self.colour = name, settings, colour
        self.run = RunFolder(folder)
        self.columns = {column: GrowingArray() for column in self.STEP_COLUMNS}
        self.smoothing = DEFAULT_SMOOTHING
        self._smoothed = GrowingArray()
        self._smooth_state: tuple[float, int] = (0.0, 0)
        self.validations: list[ValidationPoint] = []
        self.snapshots: list[Snapshot] = []
        self.phase = RunPhase.WAITING
        self.activity = ""  # what the run says it is doing, in words (reading the corpus, scoring the model)
        self.watched = False  # followed from its folder (a run started elsewhere)
        self.last_step: StepEvent | None = None
        self.finished: FinishedEvent | None = None
        self.test_bleu: float | None = None
        self.error: str | None = None
        self.diverged_at: tuple[int, float] | None = None  # (step, elapsed) where training diverged
        self.parameters: int | None = None
        self.visible = True
        # A watched log not yet read to its end: about how many more steps it holds (so the plots
        # can take the run's whole extent at once instead of re-ranging as the backlog comes in).
        self.steps_ahead = 0

    @property
    def folder(self) -> Path:
        return self.run.path

    def enter(self, phase: RunPhase) -> None:
        """The run is now in ``phase`` (what it said it was doing no longer holds)."""
        self.phase, self.activity = phase, ""

    @property
    def status(self) -> str:
        """The run's phase in words, as the table and the status line show it: a run that ended
        shows how ("completed", "stopped"), what it is doing follows ("completed; scoring …"), and
        a watched run says so ("training (watched)")."""
        text = status_word(self.phase.label)
        if self.finished is not None and self.phase in (RunPhase.FINISHED, RunPhase.STOPPED):
            text = status_word(str(self.finished.reason))
        if self.activity:
            text = self.activity if self.finished is None else f"{text}; {self.activity}"
        if self.watched and self.phase is not RunPhase.WATCHING:
            return QCoreApplication.translate("RunStatus", "%1 (watched)").replace("%1", text)
        return text

    def clear_history(self) -> None:
        """Forget the steps, validations and snapshots (a watched log was rewritten: read it again)."""
        self.columns = {column: GrowingArray() for column in self.STEP_COLUMNS}
        self._smoothed = GrowingArray()
        self._smooth_state = (0.0, 0)
        self.validations, self.snapshots = [], []
        self.last_step, self.finished = None, None

    # -- input --------------------------------------------------------------------------------
    def add_steps(self, events: Sequence[StepEvent]) -> None:
        """Append a batch of step events (in order)."""
        if events:
            self.add_step_block(StepBlock.from_events(events))

    def add_step_block(self, block: StepBlock) -> None:
        """Append steps already laid out as columns (in order)."""
        if not len(block):
            return
        for column, values in zip(self.STEP_COLUMNS, block.columns, strict=True):
            self.columns[column].extend(values)
        loss = block.columns[self.STEP_COLUMNS.index("loss")]
        smoothed, self._smooth_state = smooth(loss, self.smoothing, self._smooth_state)
        self._smoothed.extend(smoothed)
        self.last_step = block.last

    def add_validation(self, event: ValidationEvent) -> None:
        self.validations.append(ValidationPoint(
            event.step, event.epoch, event.elapsed_seconds, event.valid_loss, event.bleu, event.chrf,
            event.exact_match, event.learning_rate, math.nan if event.long_bleu is None else event.long_bleu,
        ))
        if event.samples:
            self.snapshots.append(Snapshot(event.epoch, event.step, event.bleu, event.samples))

    def set_smoothing(self, weight: float) -> None:
        """Recompute the smoothed loss with a new weight (0 = raw, 0.99 = very smooth)."""
        self.smoothing = min(max(weight, 0.0), 0.999)
        smoothed, self._smooth_state = smooth(self.columns["loss"].view(), self.smoothing)
        self._smoothed = GrowingArray(max(len(smoothed), 16))
        self._smoothed.extend(smoothed)

    # -- output -------------------------------------------------------------------------------
    def series(self, column: str) -> np.ndarray:
        """A step column ("step", "elapsed", "loss", …) or "smoothed_loss", as a no-copy view."""
        if column == "smoothed_loss":
            return self._smoothed.view()
        return self.columns[column].view()

    def validation_series(self, field: str) -> np.ndarray:
        """A field of every validation point; "target_tokens" is read from the step it followed."""
        if field == "target_tokens":
            return self.tokens_at(np.array([point.step for point in self.validations], dtype=np.float64))
        return np.array([getattr(point, field) for point in self.validations], dtype=np.float64)

    def tokens_at(self, steps: np.ndarray) -> np.ndarray:
        """The target tokens trained on after each of ``steps`` (NaN for a step not read, or read from
        a log written before step lines carried that count)."""
        known, tokens = self.columns["step"].view(), self.columns["target_tokens"].view()
        out = np.full(len(steps), math.nan)
        if not len(known) or not len(steps):
            return out
        where = np.clip(np.searchsorted(known, steps), 0, len(known) - 1)
        found = known[where] == steps
        out[found] = tokens[where[found]]
        return out

    @property
    def has_tokens(self) -> bool:
        """Some step read says how many target tokens the run had trained on."""
        return bool(np.isfinite(self.columns["target_tokens"].view()).any())

    @property
    def step_count(self) -> int:
        return len(self.columns["step"])

    @property
    def best_bleu(self) -> float | None:
        scores = [p.bleu for p in self.validations if math.isfinite(p.bleu)]
        return max(scores) if scores else None

    @property
    def elapsed(self) -> float:
        if self.finished is not None:
            return self.finished.seconds
        return self.last_step.elapsed_seconds if self.last_step is not None else 0.0


CSV_COLUMNS = ("run", "kind", "step", "epoch", "elapsed_seconds", "train_loss", "valid_loss", "bleu", "chrf",
               "exact_match", "learning_rate", "tokens_per_second", "scorer", "cell", "corpus", "direction",
               "long_bleu", "target_tokens")


def _number(value: float) -> str:
    return "" if value is None or not math.isfinite(value) else f"{value:.6g}"


def _count(value: float) -> str:
    return "" if not math.isfinite(value) else str(int(value))


def metrics_rows(runs: Sequence[RunRecord]) -> list[list[str]]:
    """One row per training step ("train") and per validation ("valid") of every run."""
    rows: list[list[str]] = []
    for run in runs:
        s = run.settings
        about = [s.model.scorer, s.model.cell, s.corpus_label, s.direction_label]
        columns = [run.series(c) for c in RunRecord.STEP_COLUMNS]
        for step, epoch, elapsed, loss, lr, tps, tokens in zip(*columns, strict=True):
            rows.append([run.name, "train", str(int(step)), str(int(epoch)), _number(elapsed), _number(loss), "",
                         "", "", "", _number(lr), _number(tps), *about, "", _count(tokens)])
        for p, tokens in zip(run.validations, run.validation_series("target_tokens"), strict=True):
            rows.append([run.name, "valid", str(p.step), str(p.epoch), _number(p.elapsed), "", _number(p.valid_loss),
                         _number(p.bleu), _number(p.chrf), _number(p.exact_match), _number(p.learning_rate), "",
                         *about, _number(p.long_bleu), _count(tokens)])
    return rows


def write_metrics_csv(path: Path, runs: Sequence[RunRecord]) -> None:
    """Write every run's metrics as CSV (UTF-8, header row); raises OSError."""
    with Path(path).open("w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(CSV_COLUMNS)
        writer.writerows(metrics_rows(runs))
