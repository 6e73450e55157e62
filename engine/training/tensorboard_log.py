"""TensorBoard event files for those who use TensorBoard (``train --tensorboard``): an optional extra.

    pip install -e ".[tensorboard]"
    python -m engine train … --tensorboard --out runs/zh-en
    tensorboard --logdir runs/zh-en/tensorboard

The run's own metrics log (engine.training.metrics_log) stays the record the app reads; this writes the
same events into ``<run folder>/tensorboard/``: per step the loss, learning rate and throughput;
per validation BLEU, chrF, exact match and the validation loss, and the attention map of the first
sample sentence as an image (target rows × source columns, brighter = more attention), so that
TensorBoard, too, shows attention learning to align. Nothing else in the engine depends on it.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from engine.settings.errors import ConfigError
from engine.training.events import FinishedEvent, StepEvent, TrainEvent, ValidationEvent

TENSORBOARD_FOLDER = "tensorboard"
EXTRA_HINT = 'pip install -e ".[tensorboard]"'


def attention_image(attention: np.ndarray, cell: int = 8) -> np.ndarray:
    """α (T×S, rows summing to 1) → a greyscale image (1 × T·cell × S·cell, values in [0, 1]),
    each weight a cell×cell square, scaled so that the largest weight is white."""
    matrix = np.asarray(attention, dtype=np.float32)
    peak = float(matrix.max()) if matrix.size else 0.0
    scaled = matrix / peak if peak > 0 else matrix
    return np.kron(scaled, np.ones((cell, cell), dtype=np.float32))[None]


def require_tensorboard() -> None:
    """Raise ConfigError, saying how to install it, when TensorBoard is not installed."""
    try:
        from torch.utils.tensorboard import SummaryWriter  # noqa: F401
    except ImportError:
        raise ConfigError(f"--tensorboard needs the TensorBoard package, an optional extra: {EXTRA_HINT}") from None


class TensorBoardLog:
    """Writes training events as TensorBoard scalars and images (needs the ``tensorboard`` package)."""

    def __init__(self, run_folder: Path, purge_step: int | None = None) -> None:
        require_tensorboard()
        from torch.utils.tensorboard import SummaryWriter

        # A resumed run drops what was written after its checkpoint, as the metrics log does.
        self.writer = SummaryWriter(str(Path(run_folder) / TENSORBOARD_FOLDER), purge_step=purge_step)

    def append(self, event: TrainEvent) -> None:
        if isinstance(event, StepEvent):
            self._step(event)
        elif isinstance(event, ValidationEvent):
            self._validation(event)
        elif isinstance(event, FinishedEvent):
            self.writer.add_text("run/finished", f"{event.reason} after {event.steps} steps", event.steps)
            self.writer.flush()

    def _step(self, event: StepEvent) -> None:
        if math.isfinite(event.loss):  # a skipped step's loss (NaN) is left out
            self.writer.add_scalar("train/loss", event.loss, event.step)
        self.writer.add_scalar("train/learning_rate", event.learning_rate, event.step)
        self.writer.add_scalar("train/target_tokens_per_second", event.tokens_per_second, event.step)

    def _validation(self, event: ValidationEvent) -> None:
        """The scores (those that are finite), then the first sample's attention map and translation."""
        for name, value in (("bleu", event.bleu), ("chrf", event.chrf), ("exact_match", event.exact_match),
                            ("loss", event.valid_loss)):
            if math.isfinite(value):
                self.writer.add_scalar(f"valid/{name}", value, event.step)
        sample = event.samples[0] if event.samples else None
        if sample is not None and sample.attention is not None and sample.attention.size:
            self.writer.add_image("valid/attention", attention_image(sample.attention), event.step)
            self.writer.add_text("valid/sample", f"{sample.source} → {sample.hypothesis}", event.step)
        self.writer.flush()

    def close(self) -> None:
        self.writer.close()
