"""MP4 recordings through ffmpeg — a fake put in its place, a small script (gui/attention/video.py,
animation.py, gui/translate/run_export.py): the file is moved into place only when ffmpeg exits 0 and
the file is a whole MP4; a failing, disk-filling or lying ffmpeg or a cancel leaves the file at the path
as it was, and the reason is ffmpeg's own line, never "Broken pipe". Runs subprocesses: the slow tier."""

from __future__ import annotations

import stat
import sys
from pathlib import Path

import pytest

from engine.settings import SCORER_TABLE
from gui.attention import animation, video
from gui.attention.animation import AnimationError, mp4_frames
from tests.gui.test_recording_stream import OLD, decode, leftovers

pytestmark = pytest.mark.slow


FAKE = """#!{python}
import os, sys
mode, out = {mode!r}, sys.argv[-1]
if mode == "early":  # refuses at once, reading nothing: the writer meets a closed pipe
    sys.stderr.write("Unknown encoder 'libx264'\\n")
    sys.exit(1)
data = sys.stdin.buffer.read()
with open(out, "wb") as video:
    if mode == "full":  # the disk fills part-way
        video.write(b"\\x00\\x00\\x00\\x18ftypisom" + bytes(12))
        sys.stderr.write("[mp4 @ 0x1] frame written\\nav_interleaved_write_frame(): No space left on device\\n")
        sys.exit(1)
    if mode == "garbage":  # exits 0 with a cut-short file
        video.write(b"\\x00\\x00\\x00\\x18ftypisom" + bytes(12) + b"\\x00\\x01\\x00\\x00mdat")
        sys.exit(0)
    box = lambda kind, body: (8 + len(body)).to_bytes(4, "big") + kind + body
    video.write(box(b"ftyp", b"isom" + bytes(4)) + box(b"mdat", data[:64]) + box(b"moov", b""))
"""


@pytest.fixture
def fake_ffmpeg(tmp_path, monkeypatch):
    """Put a fake ffmpeg in the real one's place; returns a function choosing how it behaves."""
    def use(mode: str) -> Path:
        script = tmp_path / f"ffmpeg-{mode}"
        script.write_text(FAKE.format(python=sys.executable, mode=mode))
        script.chmod(script.stat().st_mode | stat.S_IEXEC)
        monkeypatch.setattr(video, "ffmpeg_exe", lambda: str(script))
        return script

    return use


@pytest.mark.parametrize("mode, reason", [
    ("full", "No space left on device"),
    ("garbage", "cut short"),
    ("early", "Unknown encoder 'libx264'"),
])
def test_a_failed_mp4_leaves_the_old_file_and_says_why(qtbot, tmp_path, fake_ffmpeg, mode, reason):
    fake_ffmpeg(mode)
    target = tmp_path / "decode.mp4"
    target.write_bytes(OLD)
    with pytest.raises(AnimationError, match=reason) as error:
        animation.write_mp4(decode(8, 4), target)
    assert "Broken pipe" not in str(error.value) and "\n" not in str(error.value)
    assert target.read_bytes() == OLD and leftovers(tmp_path) == []


def test_an_mp4_is_moved_into_place_only_when_whole(qtbot, tmp_path, fake_ffmpeg):
    fake_ffmpeg("good")
    target = tmp_path / "decode.mp4"
    target.write_bytes(OLD)
    writer = mp4_frames(decode(3, 4), target)
    assert [next(writer) for _ in range(3)] == [1, 2, 3]
    assert target.read_bytes() == OLD  # still the old one while ffmpeg works
    with pytest.raises(StopIteration):
        next(writer)
    assert target.read_bytes()[4:8] == b"ftyp" and video.mp4_problem_of(target) == ""
    assert leftovers(tmp_path) == []


def test_a_cancelled_mp4_stops_ffmpeg_and_leaves_the_old_file(qtbot, tmp_path, fake_ffmpeg):
    fake_ffmpeg("good")
    target = tmp_path / "decode.mp4"
    target.write_bytes(OLD)
    writer = mp4_frames(decode(5, 4), target)
    next(writer)
    writer.close()
    assert target.read_bytes() == OLD and leftovers(tmp_path) == []



def test_a_failed_mp4_in_the_tab_is_one_message_and_the_old_file_stays(qtbot, tmp_path, fake_ffmpeg, monkeypatch):
    from PySide6.QtWidgets import QMessageBox

    from gui.attention.panel import AttentionPanel
    from gui.translate.run_export import RunExport
    from tests.gui.test_recording import SOURCE, greedy_steps
    from tests.gui.test_recording_export import FakeTab
    from tests.inline_jobs import InlineJobs

    warnings: list[str] = []
    monkeypatch.setattr(QMessageBox, "warning", lambda parent, title, text: warnings.append(text))
    fake_ffmpeg("full")
    panel = AttentionPanel()
    qtbot.addWidget(panel)
    panel.begin(SOURCE, True, SCORER_TABLE["additive"])
    for step in greedy_steps():
        panel.show_step(step)
    tab = FakeTab(panel)
    qtbot.addWidget(tab)
    exports = RunExport(tab.parts(), InlineJobs())
    target = tmp_path / "decode.mp4"
    target.write_bytes(OLD)
    exports.record("mp4", target)
    exports.jobs.started[-1].run()
    assert len(warnings) == 1 and warnings[0].startswith(f"cannot write {target}: ffmpeg failed")
    assert "No space left on device" in warnings[0] and "\n" not in warnings[0]
    assert target.read_bytes() == OLD and leftovers(tmp_path) == [] and tab.said == []
