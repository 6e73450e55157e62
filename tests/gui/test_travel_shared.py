"""Travel that travels: runs in the app keep snapshots (the form shows their disk cost), the model loaded
says when it is the nearest kept to the step clicked, the travelled model is named over the map of the
view that decodes with it with Back beside it, and one Back leaves it in Translate and Compare alike
(gui/common/model_on_screen.py, gui/common/past.py, gui/training/snapshot_note.py)."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

from PySide6.QtWidgets import QSpinBox

from engine.records.travel import SAVED, SNAPSHOT, WeightPoint
from gui.common.model_on_screen import ModelOnScreen, PastBadge, link_travel
from gui.common.past import PastModel
from gui.compare.controller import CompareController
from gui.compare.model import plan_slots
from gui.compare.tab_widgets import CompareWidgets
from gui.training.form import TrainingForm
from gui.training.settings import APP_KEEP_SNAPSHOTS
from gui.translate.controller import TranslateController
from gui.translate.controls import ChoiceBar
from tests.gui.test_compare_past import ENTRIES, RUN, _controller, _past, _run_all
from tests.gui.test_controllers import _entry
from tests.gui.test_travel import FakeTranslator, FolderBundle
from tests.inline_jobs import InlineJobs


def test_a_run_started_in_the_app_keeps_snapshots_and_the_form_says_what_they_cost(qtbot):
    form = TrainingForm()
    qtbot.addWidget(form)
    keep = form.findChild(QSpinBox, "train_train_keep_snapshots")
    assert keep is not None and keep.value() == APP_KEEP_SNAPSHOTS
    assert all(run.train.keep_snapshots == APP_KEEP_SNAPSHOTS for run in form.settings())
    note = form.snapshot_note
    assert note.text().startswith(f"≤ {APP_KEEP_SNAPSHOTS} × ") and "on disk (float16)" in note.text()
    keep.setValue(3)
    qtbot.waitUntil(lambda: note.text().startswith("≤ 3 × "), timeout=2000)  # after its short pause
    assert form.settings()[0].train.keep_snapshots == 3
    keep.setValue(0)
    qtbot.waitUntil(lambda: note.text().startswith("No snapshots"), timeout=2000)


def test_the_model_loaded_says_when_it_is_the_nearest_kept_to_the_step_clicked():
    saved = PastModel(object(), WeightPoint(939, SAVED, RUN), "dates-run", asked=313.4)  # type: ignore[arg-type]
    assert saved.label == "saved model (step 939) of dates-run — the nearest kept to step 313"
    exact = PastModel(object(), WeightPoint(2000, SNAPSHOT, RUN), "dates-run", asked=2000.3)  # type: ignore[arg-type]
    assert exact.label == "model at step 2,000 of dates-run"


def test_the_direction_box_and_the_panels_messages_name_languages_not_internal_keys(qtbot):
    widgets = CompareWidgets()
    qtbot.addWidget(widgets)
    widgets.show_directions(["en-zh", "zh-en"], "dates-src-iso")  # a run's earlier weights: not in the catalog
    assert widgets.direction_combo.currentText() == "Dates → ISO 8601"
    assert widgets.direction_combo.currentData() == "dates-src-iso"
    reasons = [slot.reason for slot in plan_slots(ENTRIES, "dates-src-iso")]
    assert all("Dates → ISO 8601" in reason and "src" not in reason for reason in reasons)


def test_back_returns_compare_to_its_direction_and_sentence_with_every_panel_usable_never_decoding_another_language():
    past = _past("en-zh")
    controller, jobs, said = _controller(past)
    controller.start("zh-en")
    _run_all(jobs)
    runs = []
    controller.runStarted.connect(runs.append)
    assert controller.compare("你好。")
    _run_all(jobs)
    controller.use_past(RUN, 2000)
    _run_all(jobs)
    assert controller.direction == "en-zh" and [run.text for run in runs] == ["你好。"]  # not given to en→zh
    controller.back_to_final()
    _run_all(jobs)
    assert controller.direction == "zh-en" and said[-1] == ""
    assert [run.text for run in runs] == ["你好。", "你好。"]  # back in its language: decoded again
    assert {slot.scorer for slot in controller.slots if slot.usable} == {"additive", "dot"}  # zh-en's models
    assert not any(slot.past for slot in controller.slots)


def test_one_back_leaves_the_earlier_weights_in_translate_and_compare(qtbot):
    final = FolderBundle(FakeTranslator(), Path("models") / "a")
    past = PastModel(FolderBundle(FakeTranslator(), Path("models") / "a"),  # type: ignore[arg-type]
                     WeightPoint(2000, SNAPSHOT, Path("s")), "a", asked=1990)
    translate_jobs = InlineJobs({"load a at step": lambda: iter([past]), "load a": lambda: iter([final])})
    translate = TranslateController(jobs=translate_jobs)
    compare, compare_jobs, _said = _controller(_past("zh-en"))
    translate_badge, compare_badge, bar = PastBadge("translate"), PastBadge("compare"), ChoiceBar()
    for widget in (translate_badge, compare_badge, bar):
        qtbot.addWidget(widget)
    translate_tab = SimpleNamespace(controller=translate, view=SimpleNamespace(past_badge=translate_badge,
                                                                               choice_bar=bar),
                                    _fill_examples=lambda language: None)
    compare_tab = SimpleNamespace(controller=compare, past_badge=compare_badge, back_to_final=compare.back_to_final)
    compare.pastChanged.connect(compare_badge.show_past)  # as the Compare tab does (gui/compare/tab.py)
    on_screen = ModelOnScreen()
    link_travel(on_screen, translate_tab, compare_tab)
    translate.load(_entry("a"))
    translate_jobs.run_all()
    compare.start("zh-en")
    _run_all(compare_jobs)
    translate.load_past(Path("models") / "a", 1990.0)
    translate_jobs.run_all()
    compare.use_past(RUN, 2000)
    _run_all(compare_jobs)
    assert on_screen.travelled and not translate_badge.isHidden() and not compare_badge.isHidden()
    assert "model at step 2,000 of a — the nearest kept to step 1,990" in translate_badge.label.text()
    compare_badge.back_button.click()  # Back in Compare …
    translate_jobs.run_all()
    _run_all(compare_jobs)
    assert translate.past is None and translate.bundle is final and compare.past is None  # … leaves both
    assert translate_badge.isHidden() and compare_badge.isHidden() and not on_screen.travelled
    assert isinstance(compare, CompareController)
