"""Test-wide settings: Qt runs offscreen, torch on few threads (CI has 2 cores)."""

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
# OpenMP worker threads sleep instead of spinning when idle: on 2 shared cores, spinning threads of
# one test process starve the others (and the GUI thread) many times over.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

import torch  # noqa: E402

torch.set_num_threads(2)

import pytest  # noqa: E402

# The slow tier: a test that trains a model, loads one, opens the real window, runs a subprocess, reads the whole
# corpus or fuzzes many cases says so itself, with ``@pytest.mark.slow`` or its module's
# ``pytestmark = pytest.mark.slow`` (every user of the trained-model fixtures below is one).
# ``pytest -m "not slow"`` runs the rest — the fast tier, for development (README, "Development"); CI runs both.
from tests.model_factory import train_tiny_model  # noqa: E402


@pytest.fixture(scope="session")
def dates_models(tmp_path_factory) -> dict:
    """Model folders trained on the dates task, one per scorer used by tests (trained once)."""
    root = tmp_path_factory.mktemp("dates-models")
    return {scorer: train_tiny_model(root / f"dates-{scorer}", scorer) for scorer in ("additive", "dot", "none")}
