"""Built-in tasks: corpora the engine generates itself, with no file to download.

Each task is a function ``(seed) -> Split`` registered in :data:`TASKS` by the name the command
line (``--task NAME``) and the app use.
"""

from __future__ import annotations

from collections.abc import Callable

from engine.corpus.data import Split
from engine.corpus.tasks.dates import dates_split
from engine.settings.errors import DataError

TASKS: dict[str, Callable[..., Split]] = {"dates": dates_split}


def task_split(name: str, seed: int = 1) -> Split:
    """The train / valid / test split of the built-in task ``name``, deterministic by ``seed``."""
    builder = TASKS.get(name)
    if builder is None:
        raise DataError(f"task must be one of {', '.join(TASKS)}; got {name!r}")
    return builder(seed=seed)
