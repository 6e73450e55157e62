"""The Translate tab's attribution link's decisions (gui/translate/explain_link.py), driven through its parts
as mocks: a finished decode is attributed by the method the map names (not α, not when complete already), a
new decode or Cancel drops the job under way, and only the current job's steps reach the map."""

from __future__ import annotations

from types import SimpleNamespace
from unittest.mock import MagicMock

import pytest

from gui.attention.attribution_math import ALPHA
from gui.translate.explain_link import AttributionShown, DecodeRuns, ExplainLink
from gui.workers import Job, JobStarter


@pytest.fixture
def link():
    view = MagicMock(spec=AttributionShown)
    view.method = "ig"
    view.store.complete.return_value = False
    view.store.count.return_value = 1
    jobs = MagicMock(spec=JobStarter)
    jobs.start.side_effect = lambda factory, name, *rest: MagicMock(spec=Job, id=len(jobs.start.mock_calls))
    link = ExplainLink(view, MagicMock(spec=DecodeRuns), jobs, MagicMock())
    link._on_run_started(SimpleNamespace(bundle=SimpleNamespace(translator="translator")))
    return link


def finished(tokens=("▁I", "▁run")):
    return SimpleNamespace(empty=not tokens, tokens=tokens)


def test_a_finished_decode_is_attributed_by_the_maps_method(link):
    link._on_finished(finished())
    link.view.set_subject.assert_called_once_with(("▁I", "▁run"))
    assert link.jobs.start.call_count == 1 and link.job_method == "ig"
    assert link.jobs.start.call_args.args[1] == "explain"


def test_an_empty_decode_or_alpha_or_a_complete_store_starts_no_job(link):
    link._on_finished(finished(()))
    link.view.method = ALPHA
    link._on_finished(finished())
    link.view.method = "grad"
    link.view.store.complete.return_value = True
    link._on_finished(finished())
    link.jobs.start.assert_not_called()


def test_choosing_the_method_under_way_again_starts_nothing_and_another_restarts(link):
    link._on_finished(finished())
    first = link.job
    link._on_method("ig")
    assert link.jobs.start.call_count == 1
    link._on_method(ALPHA)  # α: the job goes on, its steps are there when the method comes back
    first.cancel.assert_not_called()
    link._on_method("occlusion")
    first.cancel.assert_called_once_with()
    assert link.jobs.start.call_count == 2 and link.job_method == "occlusion"


def test_a_new_decode_drops_the_job_and_its_late_steps(link):
    link._on_finished(finished())
    old = link.job
    link._on_run_started(SimpleNamespace(bundle=SimpleNamespace(translator="another")))
    old.cancel.assert_called_once_with()
    assert link.job is None and link.translation is None
    link._on_item(old.id, "a late step")
    link.view.add.assert_not_called()


def test_cancel_keeps_the_steps_and_says_where_it_stopped(link):
    link._on_finished(finished())
    job = link.job
    link._on_item(job.id, "step 0")
    link.view.add.assert_called_once_with("step 0")
    link.cancel()
    job.cancel.assert_called_once_with()
    text, = link.view.show_progress.call_args.args
    assert text == "stopped 1/2" and link.view.show_progress.call_args.kwargs["running"] is False


def test_a_contrast_asks_for_one_step_and_redraws_the_map_when_done(link):
    link.contrast(0, "▁walk")  # before the decode ended: nothing to explain
    link.jobs.start.assert_not_called()
    link._on_finished(finished())
    link.contrast(1, "▁walk")
    assert link.jobs.start.call_args.args[1] == "explain-contrast"
    link._on_contrast_done(link.contrast_job.id)
    link.redraw.assert_called_once_with()
    assert link.contrast_job is None
