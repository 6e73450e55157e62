"""What the Translate view runs in the background besides decoding: scanning the model catalog
and loading a model folder. Both import the engine (and with it PyTorch) lazily, in the worker
thread, so the window can appear before PyTorch has loaded.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from gui.heap import freeze_startup_heap

if TYPE_CHECKING:
    from engine.records import ModelEntry, UnusableFolder

# PyTorch threads for the app's decoding (one sentence at a time: matrix–vector products too small
# to share between threads). With idle threads asleep (gui.app.prefer_passive_threads), every
# operation that splits its work wakes a sleeping thread first: a second thread made decoding up to
# 2.5 times slower on two cores, and it competes with the window's thread. A training run in the app
# asks for its own count for its duration (gui.training.runner.training_threads; engine.networks.threads sets it).
DECODING_THREADS = 1


def use_decoding_threads() -> None:
    """Set PyTorch's thread count for decoding (once the engine, and with it PyTorch, is imported)."""
    from engine.networks import use_torch_threads

    use_torch_threads(DECODING_THREADS)


@dataclass(frozen=True)
class CatalogSnapshot:
    """The model folders found, plus the folder named on the command line (if any)."""

    entries: list[ModelEntry]
    unusable: list[UnusableFolder]
    default: ModelEntry | None  # engine.records.catalog.default_model's choice
    pinned: ModelEntry | None = None
    pinned_error: str = ""


@dataclass(frozen=True)
class LoadFailure:
    """A model folder that could not be loaded, with the engine's one-line reason."""

    folder: Path
    reason: str


def pinned_entry(folder: Path) -> ModelEntry:
    """A catalog entry for a folder given on the command line (it wins its direction × scorer slot)."""
    from engine.records import read_entry

    return dataclasses.replace(read_entry(Path(folder), shipped=False), modified=float("inf"))


def scan_catalog(pinned_folder: Path | None = None) -> CatalogSnapshot:
    """Scan the shipped and user model folders (imports the engine)."""
    from engine.records import default_model, scan
    from engine.settings import EngineError

    entries, unusable = scan()
    pinned, pinned_error = None, ""
    if pinned_folder is not None:
        try:
            pinned = pinned_entry(pinned_folder)
        except EngineError as error:
            pinned_error = str(error)
    return CatalogSnapshot(entries, unusable, default_model(entries), pinned, pinned_error)


def catalog_items(pinned_folder: Path | None) -> Iterator[CatalogSnapshot]:
    """The catalog scan as a job: one snapshot of the model folders (PyTorch loads here, off the window's thread)."""
    snapshot = scan_catalog(pinned_folder)  # the app's first import of the engine
    use_decoding_threads()
    freeze_startup_heap()  # PyTorch is loaded: its objects out of the collector's sight (gui.heap)
    yield snapshot


def load_items(folder: Path) -> Iterator[object]:
    """Yields the loaded ModelBundle, or a :class:`LoadFailure` for a folder the engine refuses."""
    from engine.models import load_model_folder
    from engine.settings import EngineError

    try:
        bundle = load_model_folder(folder)
    except EngineError as error:
        yield LoadFailure(Path(folder), str(error))
        return
    yield bundle
