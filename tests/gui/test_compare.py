"""The Compare tab: every scorer of a direction on one sentence, a shared target, difference maps."""

from __future__ import annotations

import json

import numpy as np
import pytest

from engine.settings.scorer_table import SCORER_NAMES
from tests.gui.compare_support import DIRECTION, run
from tests.gui.test_translate_support import LOAD_MS, RUN_MS, install_models, open_window, wait_for_model

pytestmark = pytest.mark.slow  # trains a model, opens the real window, runs a subprocess or fuzzes many cases


def test_every_scorer_decodes_the_sentence_in_its_own_panel(qtbot, compare):
    tab = compare
    assert tab.controller.direction == DIRECTION
    assert list(tab.panels) == list(SCORER_NAMES)  # one panel per mechanism of the registry
    assert not tab.panels["bilinear"].isEnabled() and "no Bilinear" in tab.panels["bilinear"].output_text
    rows = {"additive": 0, "dot": 0, "none": 0}

    def count(scorer: str, _step) -> None:
        rows[scorer] += 1

    tab.controller.stepArrived.connect(count)
    run(qtbot, tab, "29 Nov 2026")
    for scorer in ("additive", "dot"):
        panel = tab.panels[scorer]
        assert panel.matrix.shape == (len(panel.target_tokens), len(panel.source_tokens))
        assert rows[scorer] == len(panel.target_tokens)  # one step per output token, streamed live
        assert "log p" in panel.numbers.text() and "entropy" in panel.numbers.text()
        assert panel.coverage.values.sum() == pytest.approx(len(panel.target_tokens), abs=1e-4)
    assert tab.panels["none"].matrix is None and tab.panels["none"].output_text
    assert "choose one shared target" in tab.difference.message.text()


def test_a_shared_target_gives_every_map_the_same_rows_and_a_zero_self_difference(qtbot, compare):
    tab = compare
    run(qtbot, tab, "29 Nov 2026", reference="2026-11-29")
    assert "BLEU" in tab.panels["additive"].numbers.text()
    index = tab.target_combo.findData("output:additive")
    tab.target_combo.setCurrentIndex(index)
    with qtbot.waitSignal(tab.controller.runFinished, timeout=RUN_MS):
        tab.target_combo.activated.emit(index)
    additive, dot = tab.panels["additive"], tab.panels["dot"]
    assert additive.forced and dot.forced and additive.target_tokens == dot.target_tokens
    tab.difference.first.setCurrentIndex(tab.difference.first.findData("additive"))
    tab.difference.second.setCurrentIndex(tab.difference.second.findData("dot"))
    tab.difference.second.activated.emit(0)
    assert np.allclose(tab.difference.matrix, additive.matrix - dot.matrix)
    tab.difference.second.setCurrentIndex(tab.difference.second.findData("additive"))
    tab.difference.second.activated.emit(0)
    assert np.array_equal(tab.difference.matrix, np.zeros_like(additive.matrix))


def test_the_difference_panel_offers_the_shared_target_that_makes_two_maps_comparable(qtbot, compare):
    tab = compare
    run(qtbot, tab, "29 Nov 2026")  # no reference: the first scorer's own output is offered
    button = tab.difference.share_button
    assert button.isVisibleTo(tab) and "Additive" in button.text() and tab.difference.matrix is None
    with qtbot.waitSignal(tab.controller.runFinished, timeout=RUN_MS):
        button.click()
    assert tab.target_choice() == "output:additive" and tab.panels["dot"].forced
    assert tab.difference.matrix is not None and not button.isVisibleTo(tab)
    tab.target_combo.setCurrentIndex(0)  # back to each scorer's own output
    run(qtbot, tab, "29 Nov 2026", reference="2026-11-29")
    assert button.isVisibleTo(tab) and "reference" in button.text()
    with qtbot.waitSignal(tab.controller.runFinished, timeout=RUN_MS):
        button.click()
    assert tab.target_choice() == "reference" and tab.panels["additive"].target_tokens == tab.panels["dot"].target_tokens
    assert not button.isVisibleTo(tab)


def test_a_long_input_is_compared_on_its_first_part_and_the_status_says_so(qtbot, compare):
    from engine.settings.config import MAX_SOURCE_TOKENS

    tab = compare
    run(qtbot, tab, "29 Nov 2026, " * 60)
    assert len(tab.panels["additive"].source_tokens) == MAX_SOURCE_TOKENS
    assert "Long input" in tab.status.text() and f"first {MAX_SOURCE_TOKENS} of" in tab.status.text()
    run(qtbot, tab, "29 Nov 2026")
    assert "Long input" not in tab.status.text() and tab.status.text().startswith("Done")
    tab.set_sentence("\x00\x01\u200b")  # nothing left once normalized: no run, the panels keep theirs
    assert tab.status.text().startswith("Nothing to compare:") and tab.controller.run.text == "29 Nov 2026"


def test_the_target_is_forced_on_every_model_in_one_worker_and_a_failure_stays_its_models(qtbot, compare):
    from gui.compare.controller import ForcedFailure, forced_items

    tab = compare
    run(qtbot, tab, "29 Nov 2026", reference="2026-11-29")
    started = []
    tab.controller.jobs.start = (lambda start: lambda factory, name, *rest: (started.append(name),
                                                                               start(factory, name, *rest))[1])(
        tab.controller.jobs.start)
    index = tab.target_combo.findData("output:additive")
    tab.target_combo.setCurrentIndex(index)
    with qtbot.waitSignal(tab.controller.runFinished, timeout=RUN_MS):
        tab.target_combo.activated.emit(index)
    assert started == ["compare forced"]  # one job for every model, not one thread each
    bundles = dict(tab.controller.bundles)
    items = list(forced_items(bundles, "29 Nov 2026", ""))  # an empty target: refused per model
    assert [scorer for scorer, _ in items] == list(bundles)
    assert all(isinstance(item, ForcedFailure) for _, item in items)


def test_a_new_sentence_mid_run_replaces_every_panel_and_exports_are_valid(qtbot, compare, tmp_path):
    tab = compare
    tab.set_sentence("the 2nd of May 2030")  # not waited for: replaced at once
    run(qtbot, tab, "3 May 1999")
    for scorer in ("additive", "dot"):
        panel = tab.panels[scorer]
        assert panel.source_tokens == tab.controller.bundles[scorer].translator.prepare("3 May 1999").tokens
    assert tab.export_to("png", tmp_path / "grid.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert b"<svg" in tab.export_to("svg", tmp_path / "grid.svg").read_bytes()[:2000]
    document = json.loads(tab.export_to("json", tmp_path / "grid.json").read_text(encoding="utf-8"))
    assert document["sentence"] == "3 May 1999"
    shown = {p["scorer"]: p for p in document["panels"]}
    assert len(shown["additive"]["attention"]) == len(shown["additive"]["tokens"])


def test_the_translate_tab_hands_its_sentence_to_the_compare_tab(qtbot, dates_models):
    install_models(dates_models)
    window = open_window(qtbot)
    wait_for_model(qtbot, window)
    window.translate_tab.view.source_input.setText("29 Nov 2026")
    window.translate_tab.view.compare_button.click()
    tab = window.compare_tab
    assert window.tabs.currentWidget() is tab and tab.input.text() == "29 Nov 2026"
    qtbot.waitUntil(lambda: tab.controller.run is not None and not tab.controller.busy
                    and tab.panels["additive"].matrix is not None, timeout=LOAD_MS + RUN_MS)
    expected = tab.controller.bundles["additive"].translator.translate("29 Nov 2026").text
    assert tab.panels["additive"].output_text == expected


def test_an_example_brings_its_reference_and_every_panel_is_scored_against_it(qtbot, compare):
    tab = compare
    action = next(a for a in tab.examples_menu.actions() if a.text() == "29 Nov 2026")
    with qtbot.waitSignal(tab.controller.runFinished, timeout=RUN_MS):
        action.trigger()
    assert tab.reference.text() == "2026-11-29"
    assert all("chrF" in tab.panels[s].numbers.text() for s in ("additive", "dot", "none"))
    assert tab.target_combo.findData("reference") >= 0


def test_the_target_choice_shows_its_whole_text_though_it_was_first_shown_empty(qtbot, compare):
    tab = compare
    tab.window().resize(1280, 800)
    run(qtbot, tab, "29 Nov 2026", reference="2026-11-29")
    combo = tab.target_combo
    for key in ("reference", "output:additive"):
        combo.setCurrentIndex(combo.findData(key))
        qtbot.waitUntil(lambda: combo.width() >= combo.fontMetrics().horizontalAdvance(combo.currentText()))


def test_the_whole_window_fits_1280_by_800_with_every_panel_in_place(qtbot, compare):
    """The grid's panels once needed 950 px of height: showing the tab grew the window off a
    1280×800 screen."""
    window = compare.window()
    window.resize(1280, 800)
    run(qtbot, compare, "29 Nov 2026")
    qtbot.waitUntil(lambda: window.height() == 800)  # laid out, and not grown
    assert window.minimumSizeHint().height() <= 800 and window.minimumSizeHint().width() <= 1280


def test_the_not_trained_alike_note_wraps_rather_than_widening_the_window_past_1280(qtbot, compare):
    """The note names every group's models: on one line, the shipped set's (about 180 characters) made the
    Compare tab need 1,594 px. Here a note wider than the screen in this font, groups trained by the user
    included."""
    window = compare.window()
    window.resize(1280, 800)
    run(qtbot, compare, "29 Nov 2026")
    groups = ['Additive (Bahdanau), Scaled dot product, None (fixed context C) converged or at their token budget',
              'Bilinear (Luong "general") 25 min', "Multi-head (Vaswani, 4 heads) 40 min", "Dot product 12 min"]
    note = compare.training_note
    text = "Not trained alike: " + " · ".join(groups)
    while note.fontMetrics().horizontalAdvance(text) <= 1400:
        text += " · " + groups[0]
    compare.show_training_note(text, "the whole sentence")
    assert note.isVisibleTo(window)
    qtbot.waitUntil(lambda: note.height() >= note.heightForWidth(note.width()), timeout=5000)  # laid out
    assert compare.minimumSizeHint().width() <= 1280 and window.minimumSizeHint().width() <= 1280
    assert window.minimumSizeHint().height() <= 800 and (window.width(), window.height()) == (1280, 800)
    assert note.height() >= note.heightForWidth(note.width()) > note.fontMetrics().height()  # wrapped, not cut


def test_a_new_sentence_relabels_the_maps_one_panel_at_a_time_before_any_of_its_rows(qtbot, compare):
    tab = compare
    run(qtbot, tab, "3 May 1999")
    panels = [panel for scorer, panel in tab.panels.items()
              if panel.heatmap is not None and scorer in tab.controller.bundles]
    assert len(panels) >= 2
    old = {id(panel): panel.heatmap.shown_labels("top") for panel in panels}
    relabelled: set[int] = set()  # the panels whose maps have the new columns

    def watch(panel):
        original = panel.heatmap.reset

        def reset(tokens):
            original(tokens)
            relabelled.add(id(panel))
        panel.heatmap.reset = reset

    for panel in panels:
        watch(panel)
    finished: list[bool] = []
    tab.controller.runFinished.connect(lambda: finished.append(True))
    tab.set_sentence("the 2nd of May 2030")
    assert all(panel.heatmap.shown_labels("top") == old[id(panel)] for panel in panels)  # not all in one go
    qtbot.waitUntil(lambda: len(relabelled) == len(panels), timeout=RUN_MS)
    qtbot.waitUntil(lambda: bool(finished) and not tab.scheduler.pending, timeout=RUN_MS)
    for panel in panels:
        assert [label for _, label in panel.heatmap.shown_labels("top")] != [label for _, label in old[id(panel)]]
        assert panel.heatmap.shown_labels("left")  # the new run's rows, drawn after its columns


@pytest.mark.parametrize("top", [2.0, 2.9, 3.0, 4.5, 7.2, 12.0, 37.5])
def test_the_coverage_axis_shows_at_most_three_whole_numbers_apart_on_its_short_bar(qtbot, top):
    from gui.compare.coverage_bar import COVERAGE_HEIGHT, CoverageBar

    bar = CoverageBar()
    qtbot.addWidget(bar)
    bar.set_coverage([0.2, top, 1.0], 3)
    ticks = bar.getPlotItem().getAxis("left")._tickLevels[0]
    values = [value for value, _ in ticks]
    assert 2 <= len(values) <= 3 and values[0] == 0 and values[-1] <= top
    assert all(value == int(value) for value in values)
    pixels_apart = (values[1] - values[0]) / top * COVERAGE_HEIGHT
    assert pixels_apart >= 12  # room for one line of label text between neighbours
