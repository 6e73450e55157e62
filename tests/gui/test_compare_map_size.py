"""The Compare grid at 1280×800: every map at least 300 × 150 px with every row label of a 15-token output
and every source label (three columns; the grid scrolls rather than squeeze a map under the next row), and
labelled coverage bars (gui/compare/layout.py, gui/compare/panel.py, gui/compare/tab_widgets.py)."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from engine.settings import SCORER_NAMES
from engine.settings.scorer_table import SCORER_TABLE, attends
from gui.compare.layout import plan_grid
from gui.compare.model import PanelNumbers, PanelRows, PanelSlot
from gui.compare.panel import PanelScheduler, ScorerPanel
from gui.compare.tab_widgets import CompareWidgets

SOURCE = tuple("如果明天下雨我们就待在家里看电影") + ("。", "</s>")  # 18 tokens
WORDS = ("If", "it", "rains", "tomorrow", ",", "we", "will", "stay", "at", "home", "and", "watch", "a", "film", ".")
TARGET = (*("▁" + word for word in WORDS), "</s>")  # 16 pieces: a 15-token output and its end
TAB_AREA = (1264, 700)  # the Compare tab's share of a 1280×800 window (tabs, status bar and frame taken out)


def test_six_mechanisms_maps_are_at_least_300_by_150_with_every_label(qtbot):
    widgets = CompareWidgets()
    qtbot.addWidget(widgets)
    widgets.resize(*TAB_AREA)
    scheduler = PanelScheduler(widgets)
    panels = {name: ScorerPanel(PanelSlot(SCORER_TABLE[name],
                                          SimpleNamespace()), scheduler=scheduler) for name in SCORER_NAMES}
    widgets.place_panels(panels, plan_grid(list(SCORER_NAMES)))
    widgets.show()
    qtbot.waitExposed(widgets)
    attention = np.random.default_rng(1).dirichlet(np.ones(len(SOURCE)), size=len(TARGET) - 1).astype(np.float32)
    for panel in panels.values():
        panel.set_word_view(False)  # one label per piece
        panel.begin(SOURCE)
        panel.show_result(PanelRows(TARGET[:-1], attention), " ".join(TARGET[:-1]),  # a forced target's figures:
                          PanelNumbers(-3.2, len(TARGET) - 1, 1.1, 0.4, 38.0, 67.9, forced=True), True)  # the longest
    scheduler.flush()
    mapped = [panel for name, panel in panels.items() if attends(name)]
    assert len(mapped) >= 6

    def sizes() -> list[tuple[float, float]]:
        return [(p.heatmap.plot.getViewBox().width(), p.heatmap.plot.getViewBox().height()) for p in mapped]

    qtbot.waitUntil(lambda: all(w >= 300 and h >= 150 for w, h in sizes()), timeout=5000)
    for panel in mapped:
        box = panel.numbers.parentWidget().parentWidget()  # its fixed-lines scroll area: every figure, BLEU too,
        needed = panel.numbers.heightForWidth(box.viewport().width())  # without scrolling
        assert needed <= box.viewport().height(), (needed, box.viewport().height(), panel.numbers.text())
        assert len(panel.heatmap.shown_labels("left")) == len(TARGET) - 1  # every row named: none thinned
        assert panel.heatmap.geometry().bottom() < panel.coverage.geometry().top()  # the bars under the map
        assert "coverage" in panel.coverage.name.toPlainText()
    assert (widgets.width(), widgets.height()) == TAB_AREA  # the grid scrolls: the tab does not grow
    assert widgets.grid.height() > widgets.grid_scroll.viewport().height()


def test_the_grid_exports_as_a_figure_of_maps_titles_and_numbers_without_widgets(qtbot, tmp_path):
    from PySide6.QtGui import QImage

    from gui.compare.export import export_grid
    from gui.compare.figure import COLUMNS, GAP, GridFigure

    scheduler = PanelScheduler()
    panels = []
    for name in ("additive", "dot", "none", "multihead"):
        panel = ScorerPanel(PanelSlot(SCORER_TABLE[name], SimpleNamespace()),
                            scheduler=scheduler)
        qtbot.addWidget(panel)
        panel.resize(405, 460)
        panel.show()  # laid out as on screen
        panel.set_word_view(False)
        panel.begin(SOURCE)
        attention = np.full((len(TARGET) - 1, len(SOURCE)), 1 / len(SOURCE), np.float32)
        panel.show_result(PanelRows(TARGET[:-1], attention), " ".join(WORDS), PanelNumbers(-3.2, 15, 1.1, 0.4), False)
        panels.append(panel)
    scheduler.flush()
    qtbot.waitUntil(lambda: all(panel.heatmap is None or panel.heatmap.width() < 405 for panel in panels))
    figure = GridFigure(panels, "如果明天下雨我们就待在家里看电影。", panels[0].font())
    assert figure.size().width() == GAP + COLUMNS * (figure.cell_width + GAP)
    path = export_grid("png", figure, dict, tmp_path / "grid.png")
    image = QImage(str(path))
    assert image.size() == figure.size()
    assert image.pixelColor(1, 1).name() == "#ffffff"  # a white page, not the window's grey
    svg = export_grid("svg", figure, dict, tmp_path / "grid.svg").read_text(encoding="utf-8")
    assert "<svg" in svg and "Additive" in svg and "Multi-head" in svg  # titles as text
