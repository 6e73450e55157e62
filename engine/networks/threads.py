"""torch's CPU thread count, one owner: every change of it in the engine and the app goes through here.

torch's thread count is a process setting that each new thread picks up. The app decodes on one
thread (its window keeps a core); a training run uses the count its settings ask for
(``TrainConfig.torch_threads``, 0 = leave it) for its duration only, and the previous count comes
back when it ends (:func:`threads_for_run`, used by engine.training.lifecycle).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import torch


def use_torch_threads(count: int) -> None:
    """Set torch's thread count for the process (``count`` >= 1)."""
    torch.set_num_threads(max(1, int(count)))


def torch_threads() -> int:
    """torch's thread count now."""
    return torch.get_num_threads()


@contextlib.contextmanager
def threads_for_run(count: int) -> Iterator[int]:
    """Run the block on ``count`` torch threads (0: the process's count, unchanged), the previous
    count restored afterwards; yields the count the block runs on."""
    previous = torch.get_num_threads()
    if count:
        use_torch_threads(count)
    try:
        yield torch.get_num_threads()
    finally:
        torch.set_num_threads(previous)
