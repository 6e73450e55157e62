"""Watching a long run's log without holding the window: the reader and the window take turns, the
plots redraw one a turn, and the x axis takes the backlog's whole extent at once."""

from __future__ import annotations

import threading
from pathlib import Path

from PySide6.QtCore import QCoreApplication

from engine.settings.config import TrainConfig
from engine.training.events import StepEvent
from engine.training.metrics_log import MetricsLog
from gui.training.records import RunRecord
from gui.training.settings import RunSettings
from tests.inline_jobs import InlineJobs


def _log(tmp_path: Path, steps: int) -> Path:
    from tests.gui.test_training_units import _description  # what a run's start line holds

    run = tmp_path / "run"
    run.mkdir()
    log = MetricsLog(run)
    log.start(_description(RunSettings(train=TrainConfig(epochs=5))))
    for step in range(1, steps + 1):
        log.append(_step(step))
    return run


def _step(step: int) -> StepEvent:
    return StepEvent(step=step, epoch=1, batch=step, batches_per_epoch=1000, loss=3.0 - step / 1000,
                     tokens_per_second=1000.0 + step, learning_rate=1e-3, skipped_steps=0,
                     elapsed_seconds=float(step), eta_seconds=None)


def _record(steps: int = 0) -> RunRecord:
    record = RunRecord("run", RunSettings(), Path("run"), "#1f77b4")
    record.add_steps([_step(step) for step in range(1, steps + 1)])
    return record


def test_a_redraw_takes_the_loss_plot_now_and_the_other_plots_one_a_turn(qtbot):
    from gui.training.curves import LATER_PLOTS, CurvesView

    view = CurvesView()
    qtbot.addWidget(view)
    record = _record(300)
    view.add_run(record)
    curves = view._runs[id(record)][1]
    assert view.point_count(record) == 300 and view.has_pending()
    assert curves.later == {}  # the other plots wait for their turns
    drawn: list[set[str]] = []
    view._later_timer.timeout.connect(lambda: drawn.append(set(curves.later)))
    qtbot.waitUntil(lambda: not view.has_pending(), timeout=2000)
    assert drawn == [{"bleu"}, {"bleu", "learning_rate"}, {"bleu", "learning_rate", "speed"}]  # one a turn
    x, y = curves.later["speed"].getData()
    assert len(x) == 300 and y[-1] == 1300.0
    record.add_steps([_step(301)])
    view.update_run(record)
    view.flush()  # what an export does: everything at once
    assert not view.has_pending() and len(curves.later["learning_rate"].getData()[0]) == 301
    assert set(LATER_PLOTS.values()) == set(curves.later)


def test_the_plots_follow_the_loss_plots_x_range_in_their_turn(qtbot):
    from gui.training.curves import CurvesView

    view = CurvesView()
    qtbot.addWidget(view)
    view.add_run(_record(5000))
    view.flush()
    low, high = view.loss_plot.getPlotItem().vb.viewRange()[0]
    for plot in (view.bleu_plot, view.lr_plot, view.speed_plot):
        assert plot.getPlotItem().vb.viewRange()[0] == [low, high]
    assert high >= 5000


def test_a_backlog_sets_the_x_axis_to_the_whole_log_at_once(tmp_path, qtbot, monkeypatch):
    import gui.training.watch as watch
    from gui.training.curves import CurvesView
    from gui.training.watch import read_more

    run = _log(tmp_path, 1000)
    monkeypatch.setattr(watch, "READ_CHUNK", 100)
    first = next(read_more(run, 0, None))
    assert 800 <= first.steps_ahead <= 1000  # estimated from the size of the lines read so far
    assert list(read_more(run, 0, None))[-1].steps_ahead == 0
    record = _record(99)
    record.steps_ahead = first.steps_ahead
    view = CurvesView()
    qtbot.addWidget(view)
    view.add_run(record)
    assert view.loss_plot.getPlotItem().vb.viewRange()[0][1] >= 900  # not 99: no re-ranging as it fills


def test_after_a_redraw_the_reader_waits_until_the_window_has_drawn_everything(tmp_path, qtbot, monkeypatch):
    import gui.training.watch as watch
    from gui.training.watch import RunWatcher

    run = _log(tmp_path, 50)
    monkeypatch.setattr(watch, "READ_CHUNK", 10)
    busy, asked = [True], []
    watcher = RunWatcher(run, _record(), InlineJobs(), window_busy=lambda: asked.append(1) or busy[0])
    released = threading.Event()
    watcher._reader_may_go_on = released
    watcher._release_reader(redrawn=True)
    qtbot.waitUntil(lambda: len(asked) >= 3, timeout=1000)  # the watcher has asked the window several turns
    assert not released.is_set()  # the plots still have turns to take
    busy[0] = False
    qtbot.waitUntil(released.is_set, timeout=1000)
    released.clear()
    watcher._release_reader(redrawn=False)
    assert released.is_set()  # nothing drawn: the reader goes on at once


def test_the_first_read_waits_for_the_runs_first_appearance(tmp_path, qtbot):
    from gui.training.watch import RunWatcher

    run = _log(tmp_path, 5)
    jobs = InlineJobs()
    busy, asked = [True], []
    watcher = RunWatcher(run, _record(), jobs, window_busy=lambda: asked.append(1) or busy[0])
    watcher.start()
    qtbot.waitUntil(lambda: len(asked) >= 3, timeout=1000)  # the watcher has asked the window several turns
    assert not jobs.started  # the window is still drawing the run
    busy[0] = False
    qtbot.waitUntil(lambda: bool(jobs.started), timeout=1000)
    assert watcher.timer.isActive()
    watcher.stop()


def test_the_reader_offers_the_interpreter_lock_between_small_batches_of_lines(tmp_path, monkeypatch):
    import gui.training.watch as watch
    from gui.training.watch import read_more

    run = _log(tmp_path, 450)
    offers = []
    monkeypatch.setattr(watch.time, "sleep", offers.append)
    monkeypatch.setattr(watch, "LINES_PER_TURN", 100)
    chunks = list(read_more(run, 0, None))
    assert sum(len(chunk.steps) for chunk in chunks) == 450
    assert len(offers) >= 4 and set(offers) == {0}


def test_a_watcher_stopped_before_its_first_read_never_reads(tmp_path, qtbot):
    from gui.training.watch import RunWatcher

    jobs, asked = InlineJobs(), []
    watcher = RunWatcher(_log(tmp_path, 5), _record(), jobs, window_busy=lambda: asked.append(1) or False)
    watcher.start()
    watcher.stop()  # the window closes at once
    QCoreApplication.processEvents()  # the turns its idle check would have taken
    assert not asked and not jobs.started and not watcher.timer.isActive()


def test_a_run_that_validates_on_long_inputs_draws_that_bleu_dashed_beside_the_valid_bleu(qtbot, tmp_path):
    import csv

    from engine.training.events import ValidationEvent
    from gui.training.curves import LONG_BLEU_TITLE, CurvesView
    from gui.training.records import write_metrics_csv

    view = CurvesView()
    qtbot.addWidget(view)
    plain, both = _record(300), _record(300)
    for step, bleu in ((100, 10.0), (200, 14.0), (300, 17.0)):
        plain.add_validation(ValidationEvent(step=step, epoch=1, valid_loss=2.0, bleu=bleu, chrf=30.0,
                                             exact_match=0.0, samples=(), is_best=True, best_bleu=bleu,
                                             learning_rate=1e-3, elapsed_seconds=float(step)))
        both.add_validation(ValidationEvent(step=step, epoch=1, valid_loss=2.0, bleu=bleu, chrf=30.0, exact_match=0.0,
                                            samples=(), is_best=True, best_bleu=bleu, learning_rate=1e-3,
                                            elapsed_seconds=float(step), long_bleu=bleu / 2))
    both.add_validation(ValidationEvent(step=400, epoch=2, valid_loss=1.9, bleu=18.0, chrf=30.0, exact_match=0.0,
                                        samples=(), is_best=True, best_bleu=18.0, learning_rate=1e-3,
                                        elapsed_seconds=400.0, long_bleu=11.0))
    view.add_run(plain)
    view.flush()
    assert view._runs[id(plain)][1].long_bleu is None  # no long validation: no dashed curve, the plain title
    assert view.bleu_plot.getPlotItem().titleLabel.text == "Validation BLEU"
    view.add_run(both)
    view.flush()
    x, y = view._runs[id(both)][1].long_bleu.getData()
    assert list(x) == [100, 200, 300, 400] and list(y) == [5.0, 7.0, 8.5, 11.0]
    assert view.bleu_plot.getPlotItem().titleLabel.text == LONG_BLEU_TITLE and "joined" in view.bleu_plot.toolTip()
    view.set_run_visible(both, False)
    assert not view._runs[id(both)][1].long_bleu.isVisible()
    path = tmp_path / "metrics.csv"
    write_metrics_csv(path, [plain, both])
    rows = [row for row in csv.DictReader(path.read_text(encoding="utf-8").splitlines()) if row["kind"] == "valid"]
    assert [row["long_bleu"] for row in rows] == ["", "", "", "5", "7", "8.5", "11"]
