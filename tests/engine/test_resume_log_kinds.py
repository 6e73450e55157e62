"""A bare ``train --resume`` whose run's metrics log is a pipe or a device link (it reads the stored
command from the log) ends at once in one line naming the file — it once hung on the pipe for good."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from engine.__main__ import main
from tests.engine.hang_guard import ends_quickly

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo") or not Path("/dev/zero").exists(),
                                reason="pipes and /dev/zero are POSIX only")


@pytest.mark.parametrize("kind", ["pipe", "device"])
def test_a_bare_resume_refuses_a_log_that_is_not_a_file_at_once(tmp_path: Path, capsys, kind: str) -> None:
    run = tmp_path / "run"
    (run / "checkpoint").mkdir(parents=True)
    (run / "checkpoint" / "state.json").write_text("{}", encoding="utf-8")
    log = run / "metrics.jsonl"
    if kind == "pipe":
        os.mkfifo(log)
    else:
        log.symlink_to("/dev/zero")

    def release() -> None:  # a reader stuck on the pipe sees its end
        os.close(os.open(log, os.O_WRONLY | os.O_NONBLOCK))

    ended = ends_quickly(lambda: main(["train", "--resume", "--out", str(run)]),
                         on_hang=release if kind == "pipe" else lambda: None)
    error = capsys.readouterr().err
    assert ended.error is None and ended.value == 2
    assert error.count("\n") == 1 and "metrics.jsonl" in error and "not a regular file" in error
