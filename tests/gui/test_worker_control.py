"""gui.workers with a run control (engine.training.events.RunSteering): a job started with one pauses,
resumes and stops through it — its generator holds itself between two items and tells the worker when
the hold took — and a stop lets it end on its own (it returns) before anything is aborted."""

from __future__ import annotations

from engine.training import TrainControl
from gui.workers import JobSet


def _steps(control: TrainControl):
    """A generator that reads its control as the trainer does, before each item."""
    count = 0
    while not control.stop_requested:
        if control.paused:
            control.wait_while_paused()
            continue
        count += 1
        yield count
    return count


def test_a_job_with_a_control_pauses_and_stops_through_it(qtbot):
    jobs = JobSet()
    control = TrainControl()
    items, returned = [], []
    job = jobs.start(lambda: _steps(control), "steps", lambda worker: worker.set_delay(0.002), control=control)
    job.yielded.connect(lambda _id, item: items.append(item))
    job.returned.connect(lambda _id, value: returned.append(value))
    qtbot.waitUntil(lambda: len(items) >= 3, timeout=5000)
    with qtbot.waitSignal(job.held, timeout=5000):
        job.worker.pause()
    assert control.paused and not job.worker.paused  # held inside the generator, not at the worker's yield
    held_at = len(items)
    qtbot.waitUntil(lambda: len(items) == held_at, timeout=1000)  # everything sent before the hold has arrived
    job.worker.resume()
    qtbot.waitUntil(lambda: len(items) > held_at + 2, timeout=5000)
    assert jobs.stop_all(5000)
    assert control.stop_requested and not job.worker.aborted  # asked, and it ended on its own
    qtbot.waitUntil(lambda: returned != [], timeout=5000)
    assert returned[0] >= held_at + 2


def test_aborting_a_job_with_a_control_asks_it_to_stop_too(qtbot):
    jobs = JobSet()
    control = TrainControl()
    job = jobs.start(lambda: _steps(control), "steps", lambda worker: worker.set_delay(0.002), control=control)
    with qtbot.waitSignal(job.done, timeout=5000):
        job.cancel()
    assert control.stop_requested and job.worker.aborted
    assert jobs.stop_all(5000)
