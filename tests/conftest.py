"""Test-wide settings: Qt runs offscreen, torch on few threads (CI has 2 cores)."""

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
# OpenMP worker threads sleep instead of spinning when idle: on 2 shared cores, spinning threads of
# one test process starve the others (and the GUI thread) many times over.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

import torch  # noqa: E402

torch.set_num_threads(2)

import pytest  # noqa: E402

# The slow tier: tests that need a trained model (the session's dates models, or one trained by a
# module's own fixture), the real window, a training run, a subprocess, or many generated cases (the
# fuzz tests). ``pytest -m "not slow"`` runs the rest — the fast tier, for development (README,
# "Development"); CI runs both.
SLOW_FIXTURES = {"dates_models", "compare", "window", "bundle", "translator", "entries_with_models"}
SLOW_TEST_MODULES = {"test_cli", "test_concat", "test_run_folder_safety", "test_snapshots", "test_trainer",
                     "test_app", "test_tune_decoding", "test_layers_runtime", "test_main_window", "test_training_panel",
                     "test_translate_decode", "test_translate_input", "test_translate_models", "test_compare",
                     "test_whatif", "test_fuzz", "test_subword_sampling", "test_run_watch", "test_metrics_log",
                     "test_beam_tree", "test_forced", "test_travel", "test_checkpoint_commit", "test_multihead",
                     "test_stored_fuzz", "test_map_labels"}


def pytest_collection_modifyitems(config, items) -> None:
    for item in items:
        module = item.module.__name__.rsplit(".", 1)[-1] if item.module else ""
        if module in SLOW_TEST_MODULES or SLOW_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.slow)

from tests.model_factory import train_tiny_model  # noqa: E402


@pytest.fixture(scope="session")
def dates_models(tmp_path_factory) -> dict:
    """Model folders trained on the dates task, one per scorer used by tests (trained once)."""
    root = tmp_path_factory.mktemp("dates-models")
    return {scorer: train_tiny_model(root / f"dates-{scorer}", scorer) for scorer in ("additive", "dot", "none")}
