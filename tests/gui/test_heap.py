"""The garbage collector never walks the libraries' objects: they are frozen once PyTorch is loaded."""

from __future__ import annotations

import gc


def test_the_model_catalogs_worker_freezes_the_heap_once_pytorch_is_loaded(monkeypatch):
    from gui import heap
    from gui.common.catalog_jobs import catalog_items

    calls = []
    monkeypatch.setattr(gc, "get_freeze_count", lambda: 0)  # as in a fresh app
    monkeypatch.setattr(gc, "freeze", lambda: calls.append("freeze"))
    monkeypatch.setattr(gc, "collect", lambda generation=2: calls.append(f"collect {generation}"))
    snapshot = next(catalog_items(None))
    assert snapshot.entries is not None
    assert calls == ["collect 2", "freeze"]
    calls.clear()
    heap.freeze_new_objects()  # after a large import: the young generations only, then freeze
    assert calls == ["collect 1", "freeze"]


def test_a_frozen_heap_is_not_frozen_again_by_the_startup_call(monkeypatch):
    from gui import heap

    calls = []
    monkeypatch.setattr(gc, "get_freeze_count", lambda: 1000)
    monkeypatch.setattr(gc, "collect", lambda generation=2: calls.append(generation))
    heap.freeze_startup_heap()
    assert calls == []  # no second full collection in the window's thread
