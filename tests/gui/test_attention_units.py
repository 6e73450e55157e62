"""Pieces of the attention view that need no model: labels, the run record, the throttle,
the scorer/direction choices, the heatmap's geometry."""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np

from engine.decoding.search import Alternative, DecodeStep
from engine.records.catalog import ModelEntry
from engine.settings.scorer_table import SCORER_TABLE
from gui.attention.heatmap import HeatmapView
from gui.attention.labels import axis_label, join_pieces, quoted
from gui.attention.record import DecodeRecord
from gui.attention.throttle import FrameThrottle
from gui.translate.choices import ModelChoices, direction_label
from tests.gui.conftest import shown


def step(index: int, tokens: list[str], matrix: np.ndarray) -> DecodeStep:
    previous = tuple(step(i, tokens, matrix) for i in range(index))
    return DecodeStep(index, 10 + index, tokens[index], 0.9, matrix[index], matrix[index] * 3,
                      (Alternative(10, tokens[index], 0.9),), tuple(tokens[: index + 1]),
                      matrix[: index + 1], -0.1 * (index + 1), previous_steps=previous)


def test_labels():
    assert join_pieces(["▁20", "2", "6", "-", "</s>"]) == ("2026-", [(0, 2), (2, 3), (3, 4), (4, 5), (5, 5)])
    assert join_pieces(["▁I", "▁love", "▁you", "."])[0] == "I love you."
    assert join_pieces(["<0xF0>", "▁a"])[0] == "<0xF0> a"  # byte pieces stay visible
    assert axis_label("▁Nov") == "Nov" and axis_label("▁") == "␣" and axis_label("x" * 40).endswith("…")
    assert quoted("▁29") == "\u201829\u2019"


def test_record_takes_the_whole_hypothesis_each_step():
    matrix = np.eye(3, dtype=np.float32)
    record = DecodeRecord(("a", "b", "c"), True)
    record.add(step(0, ["x", "y", "z"], matrix))
    record.add(step(1, ["x", "y", "z"], matrix))
    assert record.attention().shape == (2, 3) and record.target_tokens == ["x", "y"]
    # beam search: the best hypothesis changed, its step 2 replaces everything shown
    other = np.full((3, 3), 1 / 3, np.float32)
    record.add(step(2, ["p", "q", "r"], other))
    assert record.target_tokens == ["p", "q", "r"]
    np.testing.assert_allclose(record.attention(), other)
    assert record.step(2).token == "r" and record.step(0).token == "p"  # the new hypothesis' own steps
    empty = DecodeRecord(("a",), False)
    empty.add(DecodeStep(0, 3, "</s>", 1.0, None, None, (), ("</s>",), None, 0.0, True))
    assert empty.attention().shape == (0, 1) and empty.target_tokens == ["</s>"]


def test_throttle_draws_at_once_when_slow_and_coalesces_when_fast(qtbot):
    calls = []
    throttle = FrameThrottle(lambda: calls.append(time.perf_counter()), frame_seconds=0.05)
    throttle.request()
    assert len(calls) == 1  # first request: drawn at once
    for _ in range(20):
        throttle.request()
    assert len(calls) == 1 and throttle.pending
    qtbot.waitUntil(lambda: len(calls) == 2, timeout=1000)
    assert len(calls) == 2 and not throttle.pending  # twenty requests, one more frame, nothing left to draw
    qtbot.waitUntil(lambda: time.perf_counter() - calls[-1] >= 0.05, timeout=1000)  # a frame has passed
    throttle.request()
    assert len(calls) == 3  # a frame later: at once again


def Entry(folder, source, target, scorer, shipped, modified):  # noqa: N802 - reads like the dataclass
    return ModelEntry(folder, source, target, scorer, shipped, None, modified)


def test_choices():
    entries = [Entry(Path("old"), "zh", "en", "additive", False, 1.0), Entry(Path("new"), "zh", "en", "additive", False, 2.0),
               Entry(Path("d"), "dates-src", "iso", "dot", False, 3.0), Entry(Path("e"), "en", "zh", "none", True, 0.5)]
    choices = ModelChoices(entries)
    assert [d for d, _ in choices.directions()] == ["zh-en", "en-zh", "dates-src-iso"]
    assert choices.direction_label("dates-src-iso") == "Dates → ISO 8601" == direction_label("dates-src", "iso")
    assert choices.best("zh-en", "additive").folder == Path("new")
    options = {o.name: o for o in choices.options("zh-en")}
    assert list(options) == list(SCORER_TABLE)  # every mechanism of the registry, in its order
    assert options["additive"].enabled and not options["dot"].enabled and "Dot product" in options["dot"].reason
    assert choices.scorer_for("dates-src-iso", "additive") == "dot"
    assert choices.initial("en-zh", "none", None).folder == Path("e")
    assert choices.initial("fr-en", "additive", entries[0]) is entries[0]
    pinned = Entry(Path("cli"), "zh", "en", "additive", False, float("inf"))
    assert ModelChoices(entries, pinned).initial("dates-src-iso", "dot", None) is pinned
    assert ModelChoices([]).empty


def test_heatmap_geometry(qtbot):
    view = HeatmapView()
    qtbot.addWidget(view)
    view.reset(["▁a", "b", "c"])
    view.set_rows(np.array([[0.2, 0.3, 0.5]], np.float32), ["x"])
    assert view.image.image.shape == (3, 3)  # one decoded row, blank rows for the steps to come
    assert np.isnan(view.image.image[1:]).all()
    view.set_rows(np.array([[0.2, 0.3, 0.5], [1, 0, 0]], np.float32), ["x", "</s>"], finished=True)
    assert view.image.image.shape == (2, 3)
    centre = view.plot.getViewBox().mapViewToScene(__import__("PySide6.QtCore", fromlist=["QPointF"]).QPointF(2, 1))
    assert view.cell_at(centre) == (1, 2)


def test_the_inspector_follows_a_streaming_run_at_a_limited_rate_and_ends_on_its_last_step(qtbot):
    from gui.attention.panel import INSPECTOR_INTERVAL_MS, AttentionPanel

    panel = AttentionPanel()
    qtbot.addWidget(panel)
    tokens, matrix = ["x", "y", "z", "w"], np.full((4, 3), 1 / 3, np.float32)
    panel.begin(("a", "b", "c"), True, SCORER_TABLE["dot"])
    shown = []
    original = panel.inspector.show_step
    panel.inspector.show_step = lambda index, *rest, **named: (shown.append(index), original(index, *rest, **named))
    started = time.perf_counter()
    for index in range(4):  # four steps within one interval: the first at once, the others wait
        panel.show_step(step(index, tokens, matrix))
        panel._throttle.flush()
    if (time.perf_counter() - started) * 1000 < INSPECTOR_INTERVAL_MS:
        assert shown == [0]
    qtbot.waitUntil(lambda: shown[-1] == 3, timeout=2000)  # the trailing update shows the newest step
    assert len(shown) <= 3 and panel.inspector.shown_index == 3
    panel.begin(("a",), True)
    panel.show_step(step(0, ["q"], np.ones((1, 1), np.float32)))
    panel.render_now()  # an export, a test: everything at once
    assert panel.inspector.shown_index == 0


def test_the_empty_maps_hint_wraps_to_a_narrow_map(qtbot):
    view = shown(qtbot, HeatmapView(), 260, 400)
    view.set_empty_hint("The attention on a fixed validation sentence appears here after the first validation.")
    box = view.plot.getViewBox()

    def whole() -> bool:  # not cut at the sides once laid out
        hint = view.empty_hint.mapRectToScene(view.empty_hint.boundingRect())
        area = box.mapRectToScene(box.boundingRect())
        return area.left() <= hint.left() and hint.right() <= area.right() and hint.width() > 0

    qtbot.waitUntil(whole, timeout=2000)
