"""A 410-step decode recorded as a GIF, an MP4 and a session file in a worker's way (one frame at a time):
the memory it adds stays far under 500 MB (it reached 24 GB when every frame was kept), and the window's
thread only starts it (gui/attention/recording.py). Heavy: the slow tier."""

from __future__ import annotations

import os
import threading
import time

import pytest

from engine.settings import SCORER_TABLE
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
    panel.begin(tuple(f"▁src{j}" for j in range(205)), True, SCORER_TABLE["additive"])
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


def test_the_tab_writes_a_recording_in_a_thread_and_closing_stops_it(qtbot, tmp_path):
    from gui.translate.run_export import RunExport
    from tests.gui.test_recording_export import FakeTab

    panel = AttentionPanel()
    qtbot.addWidget(panel)
    panel.begin(tuple(f"▁src{j}" for j in range(205)), True, SCORER_TABLE["additive"])
    for step in greedy(410, 205):
        panel.record.add(step)
    tab = FakeTab(panel)
    qtbot.addWidget(tab)
    exports = RunExport(tab.parts())  # real threads
    target = tmp_path / "long.gif"
    target.write_bytes(b"the animation that was here")
    assert exports.record("gif", target)
    qtbot.waitUntil(lambda: exports.progress is not None and exports.progress.value() >= 2, timeout=30_000)
    assert exports.shutdown(10_000)  # what closing the window does
    assert target.read_bytes() == b"the animation that was here"
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".part")]
    qtbot.waitUntil(lambda: exports.recording is None, timeout=10_000)  # its end reaches the window
    assert tab.said == [f"Recording cancelled: {target} left as it was"]
    assert exports.record("gif", tmp_path / "short.gif")  # the next one starts
    qtbot.waitUntil(lambda: exports.recording is None, timeout=60_000)
    assert tab.said[-1] == f"Saved {tmp_path / 'short.gif'}" and (tmp_path / "short.gif").is_file()
