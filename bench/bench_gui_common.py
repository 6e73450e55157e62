"""Shared by the GUI benchmarks: finding (or training) a model to run them with.

A shipped zh→en model is used when present; otherwise a small dates model is trained once into
``bench/out/`` (about a minute or a few on a CPU) with the tests' model factory.
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen" if not os.environ.get("DISPLAY") else os.environ.get(
    "QT_QPA_PLATFORM", "xcb"))

# Benchmarks never touch the user's models, logs or saved settings: a private data folder here,
# and isolate_settings() for QSettings (children inherit both through the environment).
os.environ.setdefault("ATTENTION_STUDIO_DATA", tempfile.mkdtemp(prefix="attention-studio-bench-"))
SETTINGS_FOLDER = Path(os.environ["ATTENTION_STUDIO_DATA"]) / "settings"

SHIPPED = ROOT / "resources" / "models" / "zh-en-additive"
TRAINED = ROOT / "bench" / "out" / "dates-additive"
SENTENCES = {  # a long-ish sentence per source language, decoded by the benchmarks
    "zh": "虽然这本书很长，但是我还是在一个星期内把它读完了，因为故事太有意思了。",
    "en": "Although this book is very long, I finished reading it in a week because the story was so interesting.",
    "dates-src": "Sunday, November 29, 2026",
}


def bench_model(folder: str | None = None) -> Path:
    """The model folder to benchmark with (trained on the spot if there is none)."""
    if folder:
        return Path(folder)
    if (SHIPPED / "config.json").is_file():
        return SHIPPED
    if not (TRAINED / "config.json").is_file():
        from tests.model_factory import train_tiny_model

        print(f"training a small dates model into {TRAINED.relative_to(ROOT)} …", file=sys.stderr)
        train_tiny_model(TRAINED, "additive")
    return TRAINED


def isolate_settings() -> None:
    """QSettings in the benchmark's own folder, so remembered speed or beam never apply."""
    from gui.stored_settings import use_settings_folder

    use_settings_folder(str(SETTINGS_FOLDER))


def full_speed(window) -> None:
    """Greedy search, no delay between steps."""
    bar = window.translate_tab.view.choice_bar
    bar.beam_spin.setValue(1)
    bar.speed_slider.setValue(0)


def sentence_for(folder: Path) -> str:
    """An input sentence in the source language of the model in ``folder``."""
    import json

    info = json.loads((folder / "config.json").read_text(encoding="utf-8"))
    return SENTENCES.get(info.get("source_language", ""), SENTENCES["dates-src"])


def describe(values_ms: list[float]) -> str:
    """Median, 95th percentile and maximum of ``values_ms``, in words."""
    ordered = sorted(values_ms)
    p95 = ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]
    return f"median {statistics.median(ordered):.2f} ms, p95 {p95:.2f} ms, max {ordered[-1]:.2f} ms (n={len(ordered)})"


class StallMeter:
    """A precise Qt timer firing every ``interval_ms``; :attr:`stalls` holds, per tick, how many
    milliseconds late it came — the window's stalls while the event loop runs."""

    def __init__(self, interval_ms: int = 10) -> None:
        from PySide6.QtCore import Qt, QTimer

        self.interval_ms = interval_ms
        self.stalls: list[float] = []
        self._last = time.perf_counter()
        self.timer = QTimer()
        self.timer.setTimerType(Qt.TimerType.PreciseTimer)
        self.timer.timeout.connect(self._tick)

    def _tick(self) -> None:
        now = time.perf_counter()
        self.stalls.append(max(0.0, (now - self._last) * 1000 - self.interval_ms))
        self._last = now

    def start(self) -> None:
        self.timer.start(self.interval_ms)
        self.restart_clock()

    def restart_clock(self) -> None:
        """Count from now (after work that is not measured)."""
        self._last = time.perf_counter()

    def stop(self) -> None:
        self.timer.stop()
