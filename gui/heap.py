"""Keeping the garbage collector's full collections short: the objects alive once PyTorch, Qt and
pyqtgraph are loaded (a few hundred thousand) are frozen out of its sight.

A full collection walks every tracked object while holding the interpreter lock — about 150 ms on
a small CPU with those libraries loaded, 65–85 ms more after torch._dynamo — and any thread that
allocates enough triggers one: a decoding worker, a watched log's reader, a training run encoding
its corpus. Frozen objects are never walked (they stay alive, which they would anyway).
"""

from __future__ import annotations

import gc


def freeze_startup_heap() -> None:
    """Collect once and freeze every object alive now — the first time only (the model catalog's
    worker calls it when it has imported the engine, and so PyTorch)."""
    if gc.get_freeze_count() == 0:
        gc.collect()
        gc.freeze()


def freeze_new_objects() -> None:
    """Freeze what a large import has just added (the young generations collected first, cheaply)."""
    gc.collect(1)
    gc.freeze()
