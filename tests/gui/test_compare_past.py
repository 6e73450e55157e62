"""Compare with a run's earlier weights (a click on a training curve): its scorer's panel is backed by
them, read-only, in the run's direction, and one call brings every panel back to its direction's
model; the sentence on screen is decoded again each time. Controller decisions, with inline jobs."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from engine.records.catalog import ModelEntry
from engine.records.travel import SNAPSHOT, WeightPoint
from gui.common.catalog_jobs import CatalogSnapshot, LoadFailure
from gui.common.past import PastModel
from gui.compare.controller import CompareController
from tests.inline_jobs import InlineJobs


@dataclass(frozen=True)
class FakeBundle:
    """What the controller reads of a model before decoding."""

    name: str
    source_language: str
    target_language: str
    scorer: str
    translator: object = None  # never decoded with here: the decoding jobs are not run


def _entry(direction: str, scorer: str) -> ModelEntry:
    source, target = direction.split("-")
    return ModelEntry(Path(f"models/{direction}-{scorer}"), source, target, scorer, True, 30.0, 1.0)


ENTRIES = [_entry(d, s) for d in ("zh-en", "en-zh") for s in ("additive", "dot")]
RUN = Path("runs/my-dot-run")


def _past(direction: str = "en-zh", scorer: str = "dot") -> PastModel:
    source, target = direction.split("-")
    return PastModel(FakeBundle("past", source, target, scorer),  # type: ignore[arg-type]
                     WeightPoint(2000, SNAPSHOT, RUN / "step-00002000.safetensors"), RUN.name)


def _controller(past_result: object) -> tuple[CompareController, InlineJobs, list[str]]:
    scripts = {"compare catalog scan": lambda: iter([CatalogSnapshot(ENTRIES, [], None)]),
               "compare load my-dot-run": lambda: iter([past_result])}
    for entry in ENTRIES:
        scripts[f"compare load {entry.scorer}"] = lambda entry=entry: iter([FakeBundle(
            "final", entry.source_language, entry.target_language, entry.scorer)])
    jobs = InlineJobs(scripts)
    controller = CompareController(jobs=jobs)
    said: list[str] = []
    controller.pastChanged.connect(said.append)
    controller.pastFailed.connect(lambda text: said.append("failed: " + text))
    return controller, jobs, said


def _run_all(jobs: InlineJobs) -> None:
    while any(not job.ended for job in jobs.started):
        for job in list(jobs.started):
            job.run()


def test_the_runs_panel_is_backed_by_its_earlier_weights_in_the_runs_direction_and_comes_back():
    past = _past()
    controller, jobs, said = _controller(past)
    controller.start("zh-en")
    _run_all(jobs)
    assert controller.direction == "zh-en" and not controller.loading
    controller.use_past(RUN, 2000)
    _run_all(jobs)
    assert said == [past.label] and controller.direction == "en-zh"
    slots = {slot.scorer: slot for slot in controller.slots}
    assert slots["dot"].past == past.label and slots["dot"].usable and not slots["additive"].past
    assert controller.bundles["dot"] is past.bundle and "additive" in controller.bundles
    loads = [job.name for job in jobs.started]
    assert loads.count("compare load dot") == 1  # zh-en's dot at the start; en-zh's dot never loaded
    controller.back_to_final()
    _run_all(jobs)
    assert said[-1] == "" and controller.past is None and controller.direction == "zh-en"  # the one shown before
    assert all(not slot.past for slot in controller.slots) and controller.bundles["dot"] is not past.bundle


def test_a_click_before_the_catalog_is_scanned_plans_the_runs_direction_at_once():
    past = _past()
    controller, jobs, said = _controller(past)
    controller.use_past(RUN, 2000)
    jobs.started[0].run()
    controller.start("zh-en")
    _run_all(jobs)
    assert controller.direction == "en-zh" and controller.bundles["dot"] is past.bundle


def test_the_sentence_on_screen_is_decoded_again_with_the_earlier_weights():
    past = _past("zh-en")  # weights that read the sentence's language (another language: tests/gui/test_travel_shared.py)
    controller, jobs, _said = _controller(past)
    controller.start("zh-en")
    _run_all(jobs)
    runs = []
    controller.runStarted.connect(runs.append)
    assert controller.compare("你好。")
    controller.use_past(RUN, 2000)
    jobs.started[-1].run()  # the earlier weights arrive; the other zh-en models load next
    for job in list(jobs.started):
        if job.name.startswith("compare load"):
            job.run()
    assert [run.text for run in runs] == ["你好。", "你好。"]


def test_weights_that_cannot_be_loaded_leave_the_panels_as_they_were_and_say_why():
    controller, jobs, said = _controller(LoadFailure(RUN, "the snapshot step-00002000.safetensors is gone"))
    controller.start("zh-en")
    _run_all(jobs)
    before = list(controller.slots)
    controller.use_past(RUN, 2000)
    _run_all(jobs)
    assert controller.slots == before and controller.past is None
    assert said == ["failed: Cannot go back to that step of my-dot-run: the snapshot step-00002000.safetensors is gone"]
