"""A 410-step decode recorded as a GIF, an MP4 and a session file in a worker's way (one frame at a time):
the memory it adds stays far under 500 MB (it reached 24 GB when every frame was kept), and the window's
thread only starts it (gui/attention/recording.py). Heavy: the slow tier."""

from __future__ import annotations

import os
import threading
import time

import pytest

from gui.attention import animation
from gui.attention.panel import AttentionPanel
from gui.attention.recording import RecordingProgress, recording_job
from tests.engine.test_session_format import greedy

pytestmark = pytest.mark.slow
LIMIT_MB = 500


def resident_mb() -> float:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


@pytest.mark.parametrize("kind", ["gif", "mp4", "session"])
def test_a_410_step_recording_stays_under_500_mb(qtbot, tmp_path, kind):
    if kind == "mp4" and animation.mp4_problem():
        pytest.skip("MP4 needs imageio-ffmpeg")
    panel = AttentionPanel()
    qtbot.addWidget(panel)
    panel.begin(tuple(f"▁src{j}" for j in range(205)), True, "e", "Additive")
    for step in greedy(410, 205):
        panel.record.add(step)
    path = tmp_path / f"long.{'session.json' if kind == 'session' else kind}"
    job = recording_job(kind, panel, path, {"model": "m", "source": "x", "seconds_per_step": 0.0})
    start, peak, running = resident_mb(), [0.0], [True]

    def watch() -> None:
        while running[0]:
            peak[0] = max(peak[0], resident_mb())
            time.sleep(0.005)

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    try:
        progress = list(job.frames())
    finally:
        running[0] = False
        watcher.join()
    assert all(isinstance(p, RecordingProgress) for p in progress) and progress[-1].done == job.total
    assert path.is_file() and peak[0] - start < LIMIT_MB
