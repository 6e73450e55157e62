"""Recordings that stream (gui/attention/animation.py, frames.py, gif_stream.py, video.py): frames painted
and written one at a time with a capped size, the file moved into place only when whole — a folder, a
missing folder or a cancel leaves the file at the path as it was and says the real reason in one line;
the MP4 probe. What runs ffmpeg (a fake in its place) is in test_recording_mp4.py, the slow tier."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from gui.attention import animation, frames, video
from gui.attention.animation import AnimationError, animation_of, gif_frames, mp4_frames

OLD = b"the video that was here before"


def decode(steps: int, width: int):
    rows = np.random.default_rng(1).dirichlet(np.ones(width), size=steps)
    return animation_of([f"▁s{j}" for j in range(width)], [f"▁w{i}" for i in range(steps)], rows, "model · input", 0.25)


def leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".part"))


def test_a_gif_is_written_one_frame_at_a_time(qtbot, tmp_path):
    target, shown = tmp_path / "decode.gif", decode(5, 4)
    writer = gif_frames(shown, target)
    assert [next(writer) for _ in range(5)] == [1, 2, 3, 4, 5]
    assert not target.exists()  # not until it is whole
    with pytest.raises(StopIteration) as stop:
        next(writer)
    assert stop.value.value == target
    with Image.open(target) as gif:
        assert gif.n_frames == 5
        durations = []
        for number in range(5):
            gif.seek(number)
            durations.append(gif.info["duration"])
        assert durations == [250, 250, 250, 250, 750]  # the last frame held three times
        painter = frames.FramePainter(shown)
        for number in (0, 2, 4):  # each frame as painted (a frame after the first: its changes over the last)
            gif.seek(number)
            drawn = np.asarray(gif.convert("RGB"), dtype=int)
            assert np.abs(drawn - frames.rgb_bytes(painter.frame(number + 1))).mean() < 8  # within quantizing
    assert leftovers(tmp_path) == []


def test_a_long_decodes_frames_are_capped(qtbot):
    painter = frames.FramePainter(decode(410, 205))
    width, height = painter.size
    assert width <= frames.MAX_FRAME_WIDTH and height <= frames.MAX_FRAME_HEIGHT
    assert width % 2 == 0 and height % 2 == 0
    image = painter.frame(410)
    assert (image.width(), image.height()) == (width, height)
    assert painter.layout.row_labels > 1  # cells smaller than a line: every few rows labelled
    small = frames.FramePainter(decode(4, 4))
    assert small.layout.cell == frames.CELL_RANGE[1] and small.layout.row_labels == 1


def test_a_cancelled_gif_leaves_the_file_that_was_there(qtbot, tmp_path):
    target = tmp_path / "decode.gif"
    target.write_bytes(OLD)
    writer = gif_frames(decode(6, 4), target)
    next(writer)
    next(writer)
    writer.close()  # what a worker's abort does
    assert target.read_bytes() == OLD and leftovers(tmp_path) == []


@pytest.mark.parametrize("writer", [gif_frames, mp4_frames])
def test_a_folder_or_a_missing_folder_is_named_before_any_frame(qtbot, tmp_path, monkeypatch, writer):
    monkeypatch.setattr(video, "ffmpeg_exe", lambda: "ffmpeg")  # never started: the path is refused first
    (tmp_path / "there.mp4").mkdir()
    with pytest.raises(AnimationError, match="it is a folder"):
        next(writer(decode(3, 4), tmp_path / "there.mp4"))
    with pytest.raises(AnimationError, match="the folder .*missing does not exist"):
        next(writer(decode(3, 4), tmp_path / "missing" / "x.out"))
    (tmp_path / "file").write_bytes(b"")
    with pytest.raises(AnimationError, match="is not a folder"):
        next(writer(decode(3, 4), tmp_path / "file" / "x.out"))


def test_a_read_only_folder_is_named(qtbot, tmp_path, monkeypatch):
    import os

    if os.geteuid() == 0:
        pytest.skip("the superuser writes into read-only folders")
    monkeypatch.setattr(video, "ffmpeg_exe", lambda: "ffmpeg")  # never started: the temporary file fails first
    folder = tmp_path / "locked"
    folder.mkdir()
    (folder / "decode.mp4").write_bytes(OLD)
    folder.chmod(0o555)
    try:
        with pytest.raises(AnimationError, match="Permission denied"):
            animation.write_mp4(decode(3, 4), folder / "decode.mp4")
        assert (folder / "decode.mp4").read_bytes() == OLD
    finally:
        folder.chmod(0o755)


def test_without_imageio_ffmpeg_the_mp4_names_the_extra(qtbot, tmp_path, monkeypatch):
    import builtins

    real_import = builtins.__import__

    def no_imageio(name, *args, **kwargs):
        if name == "imageio_ffmpeg":
            raise ImportError(name)
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_imageio)
    assert animation.mp4_problem() == video.MP4_HINT
    with pytest.raises(AnimationError, match="pip install imageio-ffmpeg"):
        animation.write_mp4(decode(3, 4), tmp_path / "x.mp4")


def test_the_probe_reads_box_structure(tmp_path):
    def box(kind: bytes, body: bytes = b"") -> bytes:
        return (8 + len(body)).to_bytes(4, "big") + kind + body

    cases = {b"": "not an MP4", box(b"ftyp") + box(b"mdat"): "no moov", box(b"ftyp") + box(b"moov") + b"\x00\x00":
             "ends inside a box header", box(b"ftyp") + box(b"moov") + box(b"mdat", b"x" * 4)[:-2]: "cut short"}
    for number, (data, reason) in enumerate(cases.items()):
        (tmp_path / f"{number}.mp4").write_bytes(data)
        assert reason in video.mp4_problem_of(tmp_path / f"{number}.mp4")
    (tmp_path / "ok.mp4").write_bytes(box(b"ftyp", b"isom") + box(b"moov") + box(b"mdat", b"xy"))
    assert video.mp4_problem_of(tmp_path / "ok.mp4") == ""
