"""Test-wide settings: Qt runs offscreen, torch on few threads (CI has 2 cores)."""

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
# OpenMP worker threads sleep instead of spinning when idle: on 2 shared cores, spinning threads of
# one test process starve the others (and the GUI thread) many times over.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

import torch  # noqa: E402

torch.set_num_threads(2)

import pytest  # noqa: E402

# The slow tier: a module whose tests train a model, open the real window, run a subprocess, read the whole
# corpus or fuzz many cases says so itself (``pytestmark = pytest.mark.slow``); a test that uses one of the
# trained-model fixtures below (the session's dates models, or one a module trains) is slow wherever it is.
# ``pytest -m "not slow"`` runs the rest — the fast tier, for development (README, "Development"); CI runs both.
SLOW_FIXTURES = {"dates_models", "compare", "window", "bundle", "translator", "entries_with_models"}


def pytest_collection_modifyitems(config, items) -> None:
    for item in items:
        if SLOW_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.slow)

from tests.model_factory import train_tiny_model  # noqa: E402


@pytest.fixture(scope="session")
def dates_models(tmp_path_factory) -> dict:
    """Model folders trained on the dates task, one per scorer used by tests (trained once)."""
    root = tmp_path_factory.mktemp("dates-models")
    return {scorer: train_tiny_model(root / f"dates-{scorer}", scorer) for scorer in ("additive", "dot", "none")}
