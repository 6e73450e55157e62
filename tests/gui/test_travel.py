"""Back through training from the Train tab's curves: the step under a click, the Translate controller
decoding with the run's earlier weights and going back in one click, and a real click on a curve
naming the snapshot nearest that step (gui/training/travel.py, gui/common/past.py)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest
from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtTest import QTest

from engine.records.travel import SNAPSHOT, WeightPoint, weight_points
from engine.training.events import StepEvent
from gui.common.catalog_jobs import LoadFailure
from gui.common.past import PastModel, past_items
from gui.training.panel import TrainingPanel
from gui.training.records import RunRecord
from gui.training.travel import step_at
from gui.translate.controller import TranslateController
from gui.translate.status import ModelStatus
from tests.gui.test_controllers import FakeTranslator, _entry
from tests.inline_jobs import InlineJobs
from tests.model_factory import train_tiny_model

pytestmark = pytest.mark.slow  # trains a model, opens the real window, runs a subprocess or fuzzes many cases


def record_with(steps: list[int], elapsed: list[float]) -> RunRecord:
    record = RunRecord("run", None, Path("run"), "#000000")
    record.add_steps([StepEvent(step=s, epoch=1, batch=s, batches_per_epoch=100, loss=1.0, tokens_per_second=1.0,
                                learning_rate=1e-3, skipped_steps=0, elapsed_seconds=t, eta_seconds=None)
                      for s, t in zip(steps, elapsed, strict=True)])
    return record


def test_the_step_under_a_click_on_either_x_axis():
    record = record_with([10, 20, 30], [1.0, 3.0, 7.0])
    assert step_at(record, 25.4, "step") == 25.4 and step_at(record, -3, "step") == 0.0
    assert step_at(record, 5.0, "elapsed") == pytest.approx(25.0)  # halfway from 3 s (step 20) to 7 s (step 30)
    assert step_at(record, 100.0, "elapsed") == 30.0
    assert step_at(record_with([], []), 5.0, "step") is None and step_at(record, float("nan"), "step") is None


@dataclass(frozen=True)
class FolderBundle:
    translator: FakeTranslator
    folder: Path
    scorer: str = "dot"
    target_language: str = "en"

    def decode_config(self, beam_size: int) -> tuple[str, int]:
        return ("greedy", beam_size)


def test_the_translate_controller_decodes_with_a_past_model_and_goes_back_in_one_click():
    final = FolderBundle(FakeTranslator(), Path("models") / "a")
    past = PastModel(FolderBundle(FakeTranslator(), Path("models") / "a"), WeightPoint(2000, SNAPSHOT, Path("s")), "a")
    outcomes = iter([past, LoadFailure(Path("models") / "a", "the snapshot step-00002000.safetensors is gone")])
    jobs = InlineJobs({"load a at step": lambda: iter([next(outcomes)]), "load a": lambda: iter([final])})
    controller = TranslateController(jobs=jobs)
    said, failed, shown = [], [], []
    controller.pastLoaded.connect(said.append)
    controller.modelFailed.connect(failed.append)
    controller.runFinished.connect(shown.append)
    controller.load(_entry("a"))
    jobs.run_all()
    controller.translate("ni hao")
    jobs.run_all()
    controller.load_past(Path("models") / "a", 1990.0)
    jobs.run_all()
    assert controller.bundle is past.bundle and controller.past is past
    assert said == ["model at step 2,000 of a"] and shown[-1] == "translation of ni hao"  # decoded again
    controller.load_past(Path("models") / "a", 5.0)  # the snapshot went meanwhile: the model in use stays
    jobs.run_all()
    assert controller.bundle is past.bundle and "is gone. The model in use stays." in failed[-1]
    controller.back_to_final()
    jobs.run_all()
    assert controller.bundle is final and controller.past is None


def test_the_status_line_names_the_past_model(qtbot):
    status = ModelStatus()  # Back is beside the map (tests/gui/test_travel_shared.py), never in the status bar
    qtbot.addWidget(status)
    status.show_model("Dot product · Chinese → English", "models/a")
    status.show_past("model at step 2,000 of a")
    assert status.label.text().startswith("model at step 2,000 of a (read-only) · Dot product")
    status.show_model("Dot product · Chinese → English", "models/a")
    assert status.label.text() == "Dot product · Chinese → English"


@pytest.fixture(scope="module")
def run_folder(tmp_path_factory):
    return train_tiny_model(tmp_path_factory.mktemp("travel-gui") / "run", epochs=4, train_size=1200,
                            keep_snapshots=3)


def test_a_click_on_a_curve_loads_the_snapshot_nearest_that_step(qtbot, run_folder):
    panel = TrainingPanel()
    qtbot.addWidget(panel)
    panel.resize(1200, 800)
    panel.show()
    qtbot.waitExposed(panel)
    record = panel.controller.watch_run(run_folder)
    qtbot.waitUntil(lambda: record.finished is not None and len(record.columns["step"].view()) > 0, timeout=60_000)
    panel._show_run(panel.table.records().index(record))
    snapshots = [p for p in weight_points(run_folder) if p.kind == SNAPSHOT]
    wanted = snapshots[1]
    plot = panel.curves.loss_plot
    view = plot.getPlotItem().getViewBox()
    view.setXRange(0, snapshots[-1].step * 1.1, padding=0)
    qtbot.waitUntil(lambda: view.viewRange()[0][1] > wanted.step, timeout=5000)
    y = float(np.mean(view.viewRange()[1]))
    scene = view.mapViewToScene(QPointF(wanted.step + 3, y))
    at = plot.mapFromScene(scene)
    with qtbot.waitSignal(panel.pointChosen, timeout=5000) as chosen:
        QTest.mouseClick(plot.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier,
                         QPoint(at.x(), at.y()))
    folder, step = chosen.args
    assert Path(folder) == run_folder and abs(step - (wanted.step + 3)) < 0.02 * snapshots[-1].step
    loaded = next(past_items(Path(folder), step))
    assert isinstance(loaded, PastModel) and loaded.point == wanted
    assert loaded.label == (f"model at step {wanted.step:,} of {run_folder.name} — the nearest kept to step "
                            f"{round(step):,}")  # said, never silently another
