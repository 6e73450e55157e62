"""The Compare tab's map chooser: one choice makes every map show the same attribution, computed after the run
by the real engine.explain, on each map's own rows (own outputs or a forced shared target); back to α, the
maps are α's again; a new run ends the job under way."""

from __future__ import annotations

import numpy as np
import pytest

from engine.explain import explain_steps
from gui.compare.explain_link import ShownRows
from tests.gui.compare_support import run
from tests.gui.test_translate_support import RUN_MS

pytestmark = pytest.mark.slow  # trains the test models and opens the real window

SENTENCE = "29 Nov 2026"


def test_one_choice_draws_every_maps_attribution_and_back(qtbot, compare):
    tab = compare
    tab.view_bar.set_word_view(False)
    run(qtbot, tab, SENTENCE)
    mapped = {s: p for s, p in tab.panels.items() if p.heatmap is not None and p.isEnabled()}
    assert len(mapped) >= 2
    alpha = {s: p.heatmap._weights.copy() for s, p in mapped.items()}
    tab.explain.choice.set_method("ig")
    qtbot.waitUntil(lambda: not tab.explain.running, timeout=RUN_MS)
    tab.explain._throttle.flush()
    for scorer, panel in mapped.items():
        bundle = tab.controller.bundles[scorer]
        shown = ShownRows(SENTENCE, tuple(panel.source_tokens), tuple(panel.target_tokens), tuple(panel.rows.steps))
        expected = np.stack([item.source for item in explain_steps(bundle.translator, shown, "ig")])
        assert np.allclose(panel.heatmap._weights, expected, atol=1e-5), scorer
        assert panel.heatmap.bar_label.startswith("IG")
        assert panel.shown_matrix() is not None and np.allclose(panel.shown_matrix(), panel.rows.attention)  # α kept
    for scorer, panel in tab.panels.items():  # every panel's figures end with its share on the source
        if panel.isEnabled():
            share = tab.explain.share_on_source(scorer)
            assert share is not None and 0 <= share <= 1
            assert panel.numbers.text().endswith(f"IG on the source: {100 * share:.0f} %"), scorer
    assert tab.panels["none"].heatmap is None and tab.explain.share_on_source("none") is not None
    document = tab.document()  # the grid's JSON: every panel's attribution beside its α
    assert document["map"] == "ig"
    for entry in document["panels"]:
        if entry["scorer"] in mapped or entry["scorer"] == "none":
            steps = entry["attribution"]["steps"]
            assert entry["attribution"]["complete"] and len(steps) == len(entry["tokens"]), entry["scorer"]
    tab.explain.choice.set_method("alpha")
    for scorer, panel in mapped.items():
        assert np.allclose(panel.heatmap._weights, alpha[scorer]) and panel.heatmap.color_scale is not None
        assert panel.heatmap.color_bar.colorMap().name == "viridis"
        assert "on the source" not in panel.numbers.text()
    assert tab.document()["map"] == "alpha" and all("attribution" not in p for p in tab.document()["panels"])


def test_a_forced_target_is_attributed_on_every_map_and_a_new_run_ends_the_job(qtbot, compare):
    tab = compare
    tab.view_bar.set_word_view(False)
    tab.explain.choice.set_method("grad")
    run(qtbot, tab, SENTENCE, reference="2026-11-29")
    tab.select_target("reference")
    with qtbot.waitSignal(tab.controller.runFinished, timeout=RUN_MS):
        tab.controller.set_target(tab.target_choice())
    qtbot.waitUntil(lambda: not tab.scheduler.pending and not tab.explain.running, timeout=RUN_MS)
    tab.explain._throttle.flush()
    mapped = {s: p for s, p in tab.panels.items() if p.heatmap is not None and p.isEnabled()}
    rows = {tuple(p.target_tokens) for p in mapped.values()}
    assert len(rows) == 1  # one shared target
    for scorer, panel in mapped.items():
        assert not np.isnan(panel.heatmap._weights).any(), scorer
        assert tab.explain.stores[scorer].complete("grad", len(panel.target_tokens))
    tab.explain.choice.set_method("occlusion")  # a job of its own, under way ...
    old = tab.explain.job
    assert old is not None and tab.explain.choice.cancel.isEnabled()
    with qtbot.waitSignal(tab.controller.runStarted, timeout=RUN_MS):
        tab.set_sentence("3 Jan 1999", "")  # ... until a new run starts
    assert old.worker.aborted and tab.explain.job is not old
    assert all(not store.steps for store in tab.explain.stores.values())
    with qtbot.waitSignal(tab.controller.runFinished, timeout=RUN_MS):
        pass
    qtbot.waitUntil(lambda: not tab.explain.running, timeout=RUN_MS)
