"""Labels that stay (issue: 'every label readable at ordinary lengths'): the Translate heatmap at
1280×800 names every column and every row in view up to 40 tokens, in both directions and both
views, with no two labels overlapping; longer inputs open fitted, thinned evenly; Compare's maps name
every column of a 12-token input and the cell under the pointer.

The widgets are laid out as in the window — the Translate view in a tab of a 1280×800 main window
with a status bar — and fed pieces cut by the shipped tokenizers (a zh→en and an en→zh paragraph)."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
from PySide6.QtCore import QCoreApplication, QPointF
from PySide6.QtWidgets import QMainWindow, QTabWidget

from engine.settings import SCORER_TABLE
from gui.attention.record import DecodeRecord
from gui.translate.view import TranslateView
from tests.gui.test_heatmap_labels import overlapping

pytestmark = pytest.mark.slow  # trains a model, opens the real window, runs a subprocess or fuzzes many cases

# The shipped tokenizers' pieces of two example paragraphs (resources/examples.json), each way.
ZH = ("▁汤姆", "昨天", "晚上", "没有", "睡", "好", "。", "他", "今天早上", "起", "得很", "晚", "<0xEF>", "<0xBC>", "<0x8C>",
      "所以", "上班", "迟", "到了", "。", "他的", "老板", "很", "生气", "。", "▁", "虽", "然", "这本书", "很", "长", "<0xEF>",
      "<0xBC>", "<0x8C>", "但是", "我", "还是", "在", "一个", "星期", "内", "把它", "读", "完了", "<0xEF>", "<0xBC>", "<0x8C>",
      "因为", "故事", "太", "有", "意思", "了", "。")
EN = ("▁Tom", "▁did", "n", "'", "t", "▁sleep", "▁well", "▁last", "▁night", ".", "▁He", "▁got", "▁up", "▁late", "▁this",
      "▁morning", ",", "▁so", "▁he", "▁was", "▁late", "▁for", "▁work", ".", "▁His", "▁boss", "▁was", "▁very", "▁angry", ".",
      "▁Al", "though", "▁this", "▁book", "▁is", "▁very", "▁long", ",", "▁I", "▁finished", "▁reading", "▁it", "▁in", "▁a",
      "▁week", "▁be", "cause", "▁the", "▁story", "▁was", "▁so", "▁interesting", ".")
FITTING_ROWS = 26  # rows with a label each in view at 1280×800 at least (measured: 27–31 under Xvfb, 8-point labels)


def pieces(kind: tuple[str, ...], count: int) -> list[str]:
    """``count`` pieces of ``kind``, repeated as needed, ending with the end-of-sentence piece."""
    return [kind[k % len(kind)] for k in range(count - 1)] + ["</s>"]


@pytest.fixture
def translate_panel(qtbot):
    """The Translate view's attention panel as laid out in a 1280×800 window."""
    window = QMainWindow()
    tabs = QTabWidget()
    view = TranslateView()
    tabs.addTab(view, "Translate")
    window.setCentralWidget(tabs)
    window.statusBar().showMessage("status")
    qtbot.addWidget(window)
    window.resize(1280, 800)
    window.show()
    qtbot.waitExposed(window)
    view.stack.setCurrentIndex(0)  # the workspace (not the no-model page)
    yield view.attention_panel  # the window stays referenced (alive) until the test ends


def show_run(qtbot, panel, source: list[str], target: list[str]) -> None:
    rng = np.random.default_rng(len(source) * 100 + len(target))
    logits = rng.normal(0, 2, (len(target), len(source)))
    panel.begin(source, True, SCORER_TABLE["additive"])
    panel.record = DecodeRecord(tuple(source), True)
    panel.record.target_tokens = list(target)
    panel.record.matrix = (np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)).astype(np.float32)
    panel.record.finished = True
    panel.render_now()
    QCoreApplication.processEvents()  # the labels are placed on the next turn


def indices(heatmap, side: str) -> list[int]:
    return [index for index, _ in heatmap.shown_labels(side)]


def in_view(heatmap, side: str) -> list[int]:
    low, high = heatmap.plot.getViewBox().viewRange()[0 if side == "top" else 1]
    return [j for j in range(len(heatmap._labels[side])) if low <= j <= high]


@pytest.mark.parametrize("words", [True, False], ids=["words", "pieces"])
@pytest.mark.parametrize(("source_kind", "target_kind"), [(ZH, EN), (EN, ZH)], ids=["zh-en", "en-zh"])
@pytest.mark.parametrize("count", [15, 19, 40])
def test_every_label_up_to_40_tokens_is_shown_without_overlap(qtbot, translate_panel, count, source_kind,
                                                              target_kind, words):
    panel = translate_panel
    panel.set_word_view(words)
    show_run(qtbot, panel, pieces(source_kind, count), pieces(target_kind, count))
    heatmap = panel.heatmap
    columns = len(heatmap._labels["top"])
    assert columns == (len(panel.source_words()) if words else count)
    assert indices(heatmap, "top") == list(range(columns))  # no column thinned
    assert len(heatmap.visible_label_rects("top")) == columns == len(in_view(heatmap, "top"))
    assert overlapping(heatmap.visible_label_rects("top")) == []
    rows = len(heatmap._labels["left"])
    assert indices(heatmap, "left") == list(range(rows))  # no row thinned
    shown_rows = heatmap.visible_label_rects("left")
    assert len(shown_rows) == len(in_view(heatmap, "left")) >= min(rows, FITTING_ROWS)
    assert overlapping(shown_rows) == []


@pytest.mark.parametrize(("source_kind", "target_kind"), [(ZH, EN), (EN, ZH)], ids=["zh-en", "en-zh"])
def test_a_70_token_input_is_thinned_evenly_and_zooming_in_brings_every_label_back(qtbot, translate_panel,
                                                                                 source_kind, target_kind):
    panel = translate_panel
    panel.set_word_view(False)
    show_run(qtbot, panel, pieces(source_kind, 70), pieces(target_kind, 70))
    heatmap, view = panel.heatmap, panel.heatmap.plot.getViewBox()
    assert view.viewRange()[0] == [-0.5, 69.5]  # it opens fitted: every column in view, none cropped
    assert len(in_view(heatmap, "top")) == 70
    view.setRange(xRange=(-0.5, 69.5), yRange=(-0.5, 69.5), padding=0)  # everything at once
    for side in ("top", "left"):
        shown = indices(heatmap, side)
        stride = shown[1] - shown[0]
        assert stride > 1 and shown == list(range(0, 70, stride))  # thinned evenly
        assert overlapping(heatmap.visible_label_rects(side)) == []
    view.setRange(xRange=(29.5, 49.5), yRange=(29.5, 49.5), padding=0)
    assert set(range(30, 50)) <= set(indices(heatmap, "top")) and set(range(30, 50)) <= set(indices(heatmap, "left"))


def test_columns_that_do_not_fit_side_by_side_stand_upright(qtbot, translate_panel):
    panel = translate_panel
    panel.set_word_view(False)
    show_run(qtbot, panel, pieces(EN, 40), pieces(ZH, 10))
    heatmap = panel.heatmap
    assert heatmap.labels_turned()
    top = heatmap.visible_label_rects("top")
    assert all(rect.height() > rect.width() for rect, (_, label) in zip(top, heatmap.shown_labels("top"), strict=True)
               if len(label) > 3)
    show_run(qtbot, panel, ["▁I", "▁love", "▁you", ".", "</s>"], ["▁我爱", "你", "。", "</s>"])
    assert not heatmap.labels_turned()  # five short labels fit side by side


def compare_grid(qtbot):
    """The Compare tab in a 1280×800 window, its panels planned for models that are never loaded."""
    from engine.settings.scorer_table import SCORER_TABLE
    from gui.compare.model import PanelSlot
    from gui.compare.tab import CompareTab

    window = QMainWindow()
    tab = CompareTab()
    window.setCentralWidget(tab)
    window.statusBar().showMessage("status")
    qtbot.addWidget(window)
    entry = SimpleNamespace(source_language="zh", folder=Path("no-such-model-folder"))  # unreadable: left out of the training note
    slots = [PanelSlot(info, entry) for info in SCORER_TABLE.values()]
    tab._on_slots(slots)
    window.resize(1280, 800)
    window.show()
    qtbot.waitExposed(window)
    tab.test_window = window  # referenced while the tab is: the window owns it
    return tab


@pytest.mark.parametrize(("source_kind", "target_kind"), [(ZH, EN), (EN, ZH)], ids=["zh-en", "en-zh"])
def test_compare_maps_name_every_column_of_12_tokens_and_the_cell_under_the_pointer(qtbot, source_kind, target_kind):
    tab = compare_grid(qtbot)
    tab.view_bar.set_word_view(False)  # pieces: the most labels
    source, target = pieces(source_kind, 12), pieces(target_kind, 12)
    matrix = np.full((12, 12), 1 / 12, np.float32)
    for panel in tab.panels.values():
        if panel.heatmap is None:
            continue
        heatmap = panel.heatmap
        heatmap.reset(source)
        heatmap.set_rows(matrix, target, finished=True)
        QCoreApplication.processEvents()  # the labels are placed on the next turn
        assert indices(heatmap, "top") == list(range(12))
        assert len(heatmap.visible_label_rects("top")) == 12 and overlapping(heatmap.visible_label_rects("top")) == []
        assert overlapping(heatmap.visible_label_rects("left")) == []
        centre = heatmap.plot.getViewBox().mapViewToScene(QPointF(7, 9))
        heatmap._on_mouse_moved(centre)
        assert heatmap.caption.isVisible()
        assert heatmap.caption.textItem.toPlainText().startswith(f"{heatmap._row_labels[9]} ← {heatmap._labels['top'][7]}")


def test_the_compare_word_view_and_colour_scale_reach_every_map(qtbot):
    tab = compare_grid(qtbot)
    maps = [p.heatmap for p in tab.panels.values() if p.heatmap is not None]
    source, target = ["▁Al", "though", "▁it", "</s>"], ["▁虽", "然", "它", "</s>"]
    for heatmap in maps:
        heatmap.reset(source)
        heatmap.set_rows(np.array([[0.5, 0.3, 0.2, 0], [0.1, 0.1, 0.8, 0], [0, 0, 0.5, 0.5], [0, 0, 0, 1]], np.float32),
                         target, finished=True)
    assert all(h._labels["top"] == ["Although", "it", "</s>"] for h in maps)  # words by default
    assert all(h._row_labels == ["虽然", "它", "</s>"] for h in maps)
    assert maps[0].weight(0, 0) == pytest.approx(0.5)  # (0.5 + 0.3 + 0.1 + 0.1) / 2: averaged rows, summed columns
    tab.view_bar.set_word_view(False)
    assert all(h._labels["top"] == ["Al", "##though", "it", "</s>"] for h in maps)
    tab.view_bar.set_scale("row")
    assert all(h.bar_label == "α ÷ row max" for h in maps)
