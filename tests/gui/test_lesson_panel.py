"""The Lesson panel with a scripted host (gui/lesson/panel.py, runner.py): Show me runs the chapter's
actions in order, each waiting for its effect; a damaged chapter or one naming a missing model says why
on its own line and the others still work; Try it progress is remembered and can be reset; what Show
me itself does never counts as the learner's try."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtWidgets import QLabel, QWidget

from gui.lesson.chapter import Action
from gui.lesson.host import ActionError, LessonEvents, Settled
from gui.lesson.panel import LessonPanel

SELECT = '[[show]]\ndo = "select_model"\ndirection = "zh-en"\nscorer = "{scorer}"\n'
TRANSLATE = '[[show]]\ndo = "translate"\ntext = "我爱你。"\n'
TRIES = ('[[try]]\ncheck = "step_selected"\ntoken = "love"\nsay = "Pick love."\n'
         '[[try]]\ncheck = "length_study_opened"\nsay = "Open the study."\n')


class ScriptedHost:
    """A LessonHost whose actions take effect when the test says so."""

    def __init__(self, models: set[str] | None) -> None:
        self.events = LessonEvents()
        self.models = models
        self.done: list[Action] = []
        self.pending: list[list[bool]] = []  # one flag per action that waits
        self.target = QLabel("look here")
        self.target.setObjectName("lookHere")

    def perform(self, action: Action) -> Settled:
        if action.name == "highlight" and action.params["widget"] != "lookHere":
            raise ActionError(f"no widget {action.params['widget']!r} on screen")
        self.done.append(action)
        if action.name in ("select_model", "translate"):
            flag = [False]
            self.pending.append(flag)
            if action.name == "translate":  # what the window reports while Show me decodes
                self.events.happened.emit("step_selected", {"word": "love"})
            return lambda: flag[0]
        return None

    def has_model(self, name: str) -> bool | None:
        return None if self.models is None else name in self.models

    def widget(self, name: str) -> QWidget | None:
        return self.target if name == "lookHere" else None

    def state(self) -> dict[str, Any]:
        return {}


def lessons(tmp_path: Path) -> Path:
    root = tmp_path / "lessons"
    (root / "en").mkdir(parents=True)
    (root / "en" / "01-first.md").write_text(
        f'+++\ntitle = "First"\n{SELECT.format(scorer="none")}{TRANSLATE}{TRIES}+++\nC is **one** vector.\n',
        encoding="utf-8")
    (root / "en" / "02-broken.md").write_text('+++\ntitle = "Broken"\n[[show]]\ndo = "fly"\n+++\n', encoding="utf-8")
    (root / "en" / "03-multihead.md").write_text(
        f'+++\ntitle = "Heads"\n{SELECT.format(scorer="multihead")}+++\nHeads.\n', encoding="utf-8")
    return root


def panel_for(qtbot, tmp_path, models={"zh-en-none"}) -> tuple[LessonPanel, ScriptedHost]:  # noqa: B006
    host = ScriptedHost(models)
    panel = LessonPanel(host, lessons(tmp_path) if not (tmp_path / "lessons").exists() else tmp_path / "lessons",
                        language=lambda: "en")
    qtbot.addWidget(panel)
    qtbot.addWidget(host.target)
    return panel, host


def test_show_me_runs_the_actions_in_order_each_waiting_for_its_effect(qtbot, tmp_path):
    panel, host = panel_for(qtbot, tmp_path)
    assert panel.chapter.key == "01-first" and "one" in panel.text.toPlainText()
    panel.show_button.click()
    assert [a.name for a in host.done] == ["select_model"]  # the model loads first
    host.pending[0][0] = True
    qtbot.waitUntil(lambda: len(host.done) == 2)
    assert host.done[1] == Action("translate", {"text": "我爱你。"})
    assert panel.runner.running
    with qtbot.waitSignal(panel.runner.finished):
        host.pending[1][0] = True
    assert panel.show_me_ms is not None and panel.trying.met == 0  # Show me's own step is not the learner's


def test_try_it_is_done_when_done_remembered_and_reset(qtbot, tmp_path):
    panel, host = panel_for(qtbot, tmp_path)
    host.events.happened.emit("length_study_opened", {})  # out of order: not yet
    host.events.happened.emit("step_selected", {"word": "like"})
    assert panel.trying.met == 0 and not panel.reset_button.isEnabled()
    host.events.happened.emit("step_selected", {"word": "▁love"})
    assert panel.trying.met == 1 and "✓ Pick love." in panel.tasks.text()
    with qtbot.waitSignal(panel.tryDone) as done:
        host.events.happened.emit("length_study_opened", {})
    assert done.args == ["01-first"] and panel.list.item(0).text().startswith("✓")
    again, _host = panel_for(qtbot, tmp_path)  # a new session: the progress is remembered
    assert again.chapter.key == "01-first" and again.trying.done
    again.reset_button.click()
    assert again.trying.met == 0 and not again.list.item(0).text().startswith("✓")
    assert panel_for(qtbot, tmp_path)[0].trying.met == 0


def test_a_damaged_chapter_and_a_missing_model_each_say_why_and_the_rest_work(qtbot, tmp_path):
    panel, host = panel_for(qtbot, tmp_path)
    panel.open_chapter("02-broken")
    assert "unknown action 'fly'" in panel.problem.text() and "02-broken.md" in panel.problem.text()
    assert not panel.show_button.isEnabled() and panel.list.item(1).text().startswith("⚠")
    panel.open_chapter("03-multihead")
    assert "zh-en-multihead" in panel.problem.text() and "not installed" in panel.problem.text()
    assert not panel.show_button.isEnabled()
    host.models.add("zh-en-multihead")  # the model arrives (a training run saved it)
    host.events.modelsChanged.emit()
    assert panel.show_button.isEnabled() and panel.problem.isHidden()
    panel.open_chapter("01-first")
    assert panel.show_button.isEnabled() and not panel.problem.text()


def test_models_not_yet_listed_are_not_called_missing(qtbot, tmp_path):
    panel, _host = panel_for(qtbot, tmp_path, models=None)
    panel.open_chapter("03-multihead")
    assert panel.show_button.isEnabled() and not panel.problem.text()


def test_an_action_that_cannot_be_done_stops_show_me_with_one_line(qtbot, tmp_path):
    root = lessons(tmp_path)
    (root / "en" / "04-look.md").write_text(
        '+++\ntitle = "Look"\n[[show]]\ndo = "highlight"\nwidget = "nowhere"\n+++\nLook.\n', encoding="utf-8")
    panel, _host = panel_for(qtbot, tmp_path)
    panel.open_chapter("04-look")
    with qtbot.waitSignal(panel.runner.failed) as failed:
        panel.show_button.click()
    assert failed.args == ["highlight: no widget 'nowhere' on screen"]
    assert "nowhere" in panel.status.text() and not panel.runner.running


def test_one_outline_at_a_time_and_none_over_a_hidden_widget(qtbot):
    from PySide6.QtWidgets import QVBoxLayout

    from gui.lesson.flash import Outline

    window = QWidget()
    layout = QVBoxLayout(window)
    first, second = QLabel("first"), QLabel("second")
    first.setObjectName("first")
    layout.addWidget(first)
    layout.addWidget(second)
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    Outline(first)
    outline = Outline(second)
    assert Outline.current is outline and outline.isVisible() and outline.parent() is window
    assert outline.geometry().contains(second.geometry()) and not outline.geometry().contains(first.geometry())
    assert [o for o in window.findChildren(QWidget, "lessonOutline") if o.isVisible()] == [outline]
    second.hide()  # another tab chosen: nothing is outlined where the widget was
    assert Outline.current is None and not outline.isVisible()
