"""The Train tab's list of runs that can continue never waits on a run whose metrics log is a pipe or a
device link in the user's models folder (it once froze the window for good when the tab opened)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from engine.files import user_models_folder
from gui.training.controller import TrainingController
from tests.engine.hang_guard import ends_quickly
from tests.inline_jobs import InlineJobs

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo") or not Path("/dev/zero").exists(),
                                reason="pipes and /dev/zero are POSIX only")


@pytest.mark.parametrize("kind", ["pipe", "device"])
def test_a_run_whose_log_is_not_a_file_is_left_out_at_once(kind: str) -> None:
    run = user_models_folder() / "run-1"
    (run / "checkpoint").mkdir(parents=True)
    (run / "checkpoint" / "state.json").write_text("{}", encoding="utf-8")
    log = run / "metrics.jsonl"
    if kind == "pipe":
        os.mkfifo(log)
    else:
        log.symlink_to("/dev/zero")

    def release() -> None:  # a reader stuck on the pipe sees its end
        os.close(os.open(log, os.O_WRONLY | os.O_NONBLOCK))

    controller = TrainingController(jobs=InlineJobs())
    ended = ends_quickly(controller.resumable, on_hang=release if kind == "pipe" else lambda: None)
    assert ended.error is None and ended.value == []
