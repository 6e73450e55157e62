"""Recording a decode: an animated GIF with one frame per output token, an MP4 when imageio-ffmpeg is
there (and a clear reason when it is not), and a session file whose replay plays the recorded events
again (gui/attention/recording.py, animation.py, replay.py)."""

from __future__ import annotations

import numpy as np
import pytest
from PIL import Image

from engine.decoding.search import Alternative, DecodeStep
from engine.records.session_file import load_session
from engine.records.session_save import step_json
from engine.settings import SCORER_TABLE
from gui.attention import animation
from gui.attention.export import EXPORT_KINDS, ExportError
from gui.attention.panel import AttentionPanel
from gui.attention.recording import write_recording
from gui.attention.replay import ReplayDialog

SOURCE = ("▁我们", "走", "吧", "。")
ROWS = np.array([[0.7, 0.1, 0.1, 0.1], [0.1, 0.6, 0.2, 0.1], [0.1, 0.1, 0.7, 0.1], [0.05, 0.05, 0.1, 0.8]])
TOKENS = ("▁Let", "'s", "▁go", "</s>")
METADATA = {"model": "zh-en-additive", "source": "我们走吧。", "scorer": "additive", "model_sha256": "ab" * 32,
            "source_language": "zh", "target_language": "en", "beam_size": 1, "seconds_per_step": 0.25}


def greedy_steps() -> list[DecodeStep]:
    steps: list[DecodeStep] = []
    for index, token in enumerate(TOKENS):
        steps.append(DecodeStep(index=index, token_id=20 + index, token=token, probability=0.8,
                                attention=ROWS[index].astype(np.float32), scores=ROWS[index].astype(np.float32),
                                alternatives=(Alternative(20 + index, token, 0.8),), hypothesis_tokens=TOKENS[:index + 1],
                                hypothesis_attention=ROWS[:index + 1].astype(np.float32),
                                log_probability=-0.2 * (index + 1), is_eos=token == "</s>",
                                previous_steps=tuple(steps)))
    return steps


@pytest.fixture
def panel(qtbot):
    panel = AttentionPanel()
    qtbot.addWidget(panel)
    panel.begin(SOURCE, True, SCORER_TABLE["additive"])
    for step in greedy_steps():
        panel.show_step(step)
    return panel


def test_the_gif_has_one_frame_per_output_token(panel, tmp_path):
    panel.set_word_view(False)  # the model's pieces: a frame each
    path = write_recording("gif", panel, tmp_path / "decode.gif", METADATA)
    with Image.open(path) as gif:
        assert gif.n_frames == len(TOKENS)
        assert gif.info["duration"] == 250  # the decode's speed, per frame
    assert set(EXPORT_KINDS) >= {"gif", "mp4", "session"}


def test_the_gif_follows_the_maps_view_stacks_chinese_labels_and_has_a_colour_bar(panel, tmp_path):
    from gui.attention.frames import BAR_WIDTH, FramePainter
    from gui.attention.recording import panel_animation

    panel.set_word_view(False)
    pieces = panel_animation(panel, METADATA)
    assert pieces.target_tokens == ("Let", "##'s", "go", "</s>") and pieces.frame_count == 4  # the ## marks
    panel.set_word_view(True)
    words = panel_animation(panel, METADATA)
    assert words.target_tokens[0] == "Let's" and words.frame_count == len(words.target_tokens) < 4  # a frame a word
    assert words.texts[0] == "Let's" and np.allclose(words.matrix.sum(axis=1), 1.0, atol=1e-5)
    painter = FramePainter(words)
    layout = painter.layout
    rotated_height = painter.metrics.horizontalAdvance("我们")  # a turned label's height
    assert layout.top - painter.metrics.height() - 16 - 16 >= 2 * painter.metrics.height() - 2  # 我/们 stacked
    assert rotated_height < 2 * painter.metrics.height()
    image = painter.frame(words.frame_count)
    bar_x = int(layout.left + len(words.source_tokens) * layout.cell + 12 + BAR_WIDTH // 2)
    top, bottom = image.pixelColor(bar_x, layout.top + 2), image.pixelColor(bar_x, layout.top + 78)
    assert top != bottom and top.name() != "#ffffff" and bottom.name() != "#ffffff"  # the scale, 1 down to 0


def test_the_mp4_is_written_or_its_missing_encoder_is_named(panel, tmp_path, monkeypatch):
    if animation.mp4_problem():
        with pytest.raises(ExportError, match="pip install imageio-ffmpeg"):
            write_recording("mp4", panel, tmp_path / "decode.mp4", METADATA)
    else:
        path = write_recording("mp4", panel, tmp_path / "decode.mp4", METADATA)
        assert path.stat().st_size > 1000 and path.read_bytes()[4:8] == b"ftyp"
    monkeypatch.setattr(animation, "mp4_problem", lambda: animation.MP4_HINT)
    with pytest.raises(ExportError, match="MP4 export needs imageio-ffmpeg"):
        write_recording("mp4", panel, tmp_path / "other.mp4", METADATA)


def test_nothing_decoded_nothing_recorded(qtbot, tmp_path):
    empty = AttentionPanel()
    qtbot.addWidget(empty)
    for kind in ("gif", "session"):
        with pytest.raises(ExportError, match="translate a sentence first"):
            write_recording(kind, empty, tmp_path / f"x.{kind}", METADATA)


def test_a_saved_session_replays_the_recorded_events_without_the_model(qtbot, panel, tmp_path):
    path = write_recording("session", panel, tmp_path / "decode.session.json", METADATA)
    session = load_session(path)
    assert session.model["sha256"] == "ab" * 32 and session.model["scorer_label"] == "Additive (Bahdanau)"
    dialog = ReplayDialog(session, session.note("cd" * 32, "zh-en-dot"))
    qtbot.addWidget(dialog)
    dialog.timer.setInterval(1)
    dialog.play()
    qtbot.waitUntil(lambda: dialog.complete, timeout=5000)
    assert [step_json(s) for s in dialog.shown] == [step_json(s) for s in greedy_steps()]
    assert np.allclose(dialog.panel.attention(), ROWS, atol=1e-6)
    assert dialog.panel.target_tokens() == list(TOKENS)
    assert "Recorded with another model" in dialog.note.text()
    assert dialog.tree is None  # a greedy decode has no beam tree
    dialog.panel.select_step(1)  # no model to continue from a candidate: listed, never links that do nothing
    listed = dialog.panel.inspector.alternatives.text()
    assert "candidates" in listed and "<a href" not in listed and "click one" not in listed


def test_a_beam_sessions_tree_grows_in_the_replay_and_a_node_shows_its_hypothesis(qtbot, panel, tmp_path):
    from dataclasses import replace

    from engine.decoding.search import BeamNode
    from engine.records.session_file import Session
    from engine.records.session_save import save_session

    steps = greedy_steps()
    levels = [(BeamNode(tuple(range(20, 21 + i)), TOKENS[i], 0.8, -0.2 * (i + 1), "kept", -0.2, steps[i]),
               BeamNode((7,) * (i + 1), "▁x", 0.1, -3.0, "pruned", -3.0)) for i in range(len(steps))]
    shown = tuple(replace(step, beam_level=level) for step, level in zip(steps, levels, strict=True))
    model = {"name": "zh-en-additive", "sha256": "ab" * 32, "scorer": "additive", "scorer_label": "Additive (Bahdanau)",
             "formula": "e", "uses_attention": True, "source_language": "zh", "target_language": "en"}
    path = save_session(tmp_path / "beam.session.json",
                        Session(model, "我们走吧。", SOURCE, {"beam_size": 2, "seconds_per_step": 0.0}, shown))
    dialog = ReplayDialog(load_session(path), "")
    qtbot.addWidget(dialog)
    dialog.timer.setInterval(1)
    dialog.play()
    qtbot.waitUntil(lambda: dialog.complete, timeout=5000)
    assert dialog.tree is not None and dialog.tree.objectName() == "replayBeamTree"
    assert dialog.tree.node_count() == 2 * len(TOKENS)
    kept = dialog.tree.levels[1][0]
    dialog.tree.choose(kept)
    assert dialog.panel.target_tokens() == list(TOKENS[:2])


FULL_DISK_FFMPEG = """#!{python}
import sys
data = sys.stdin.buffer.read()
with open(sys.argv[-1], "wb") as video:
    video.write(b"\\x00\\x00\\x00\\x18ftypisom" + bytes(12))
sys.stderr.write("av_interleaved_write_frame(): No space left on device\\n")
sys.exit(1)
"""


@pytest.mark.slow  # runs a (fake) ffmpeg
def test_an_mp4_onto_a_full_disk_keeps_the_file_that_was_there(panel, tmp_path, monkeypatch):
    import stat
    import sys

    pytest.importorskip("imageio_ffmpeg")
    script = tmp_path / "ffmpeg"
    script.write_text(FULL_DISK_FFMPEG.format(python=sys.executable))
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("IMAGEIO_FFMPEG_EXE", str(script))  # imageio-ffmpeg's own switch: this ffmpeg, not its own
    target = tmp_path / "decode.mp4"
    target.write_bytes(b"the video that was here")
    with pytest.raises(ExportError, match="No space left on device"):
        write_recording("mp4", panel, target, METADATA)
    assert target.read_bytes() == b"the video that was here"


@pytest.mark.parametrize("kind", ["gif", "mp4"])
def test_a_folder_at_the_path_is_named_not_a_broken_pipe(panel, tmp_path, kind):
    if kind == "mp4" and animation.mp4_problem():
        pytest.skip("MP4 needs imageio-ffmpeg")
    (tmp_path / f"decode.{kind}").mkdir()
    with pytest.raises(ExportError, match="it is a folder"):
        write_recording(kind, panel, tmp_path / f"decode.{kind}", METADATA)


def test_a_session_file_grows_linearly_with_the_decode(qtbot, tmp_path):
    from tests.engine.test_session_format import greedy

    sizes = {}
    for count in (60, 120):
        steps = greedy(count)
        long = AttentionPanel()
        qtbot.addWidget(long)
        long.begin(tuple(f"▁s{j}" for j in range(8)), True, SCORER_TABLE["additive"])
        for step in steps:
            long.record.add(step)
        sizes[count] = write_recording("session", long, tmp_path / f"{count}.session.json", METADATA).stat().st_size
    assert sizes[120] / sizes[60] < 2.2  # each step's attention once: O(T·S), not O(T²·S)
