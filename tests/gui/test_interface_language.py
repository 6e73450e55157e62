"""The Chinese interface of the attention views, the Train tab, the Compare tab and their shared parts
(gui/attention, gui/training, gui/compare, gui/common): with their catalogs installed the widgets speak
Chinese — texts filled with values too — and without them English; the words the Train tab takes
from the engine (its form rows, a run's phase and how it ended) are all marked for translation, so a
setting or phase added to the engine is named here until it is; and the Chinese layouts still fit a
1280-pixel screen."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import QTranslator

from engine.records.runs import RunPhase
from engine.settings import SCORER_TABLE
from engine.settings.config import TrainConfig
from engine.settings.settings_meta import described
from engine.training.events import FinishReason, StepEvent
from gui.attention.inspector import StepInspector
from gui.compare.model import PanelNumbers
from gui.compare.tab_widgets import CompareWidgets
from gui.training.curves import CurvesView
from gui.training.form import SECTIONS, TrainingForm
from gui.training.progress import run_progress
from gui.training.records import STATUS_WORDS, status_word
from gui.training.setting_texts import SETTING_TEXTS
from scripts.i18n_update import catalog_path

PACKAGES = ("attention", "training", "compare", "common")
SCREEN_WIDTH = 1280 - 16  # the window's frame takes a few pixels of the screen's width


def _install(qapp, also: tuple[str, ...] = ()) -> list[QTranslator]:
    """The four packages' zh_CN catalogs (and ``also``'s), installed (Qt then sends every widget a LanguageChange)."""
    translators = []
    for package in (*PACKAGES, *also):
        translator = QTranslator()
        assert translator.load(str(catalog_path(package, ".qm"))), package
        qapp.installTranslator(translator)
        translators.append(translator)
    return translators


@pytest.fixture
def chinese(qapp):
    """The four packages' zh_CN catalogs installed for the test (removed after it)."""
    translators = _install(qapp)
    yield
    for translator in translators:
        qapp.removeTranslator(translator)


def _form_texts() -> set[str]:
    """Every text the Train form takes from the engine's setting descriptions."""
    texts = set()
    for settings_class in SECTIONS.values():
        for name, field in described(settings_class).items():
            row = field.row
            if not field.shown or row is None:
                continue
            texts |= {row.tip or field.help, row.special, *row.choice_labels}
            unit = f" ({field.unit})" if field.unit else ""
            texts.add(row.label or name.replace("_", " ").capitalize() + unit)
    return texts - {""}


def test_every_text_the_train_form_takes_from_the_engine_is_marked_for_translation():
    missing = sorted(_form_texts() - set(SETTING_TEXTS))
    assert not missing, f"add these to gui/training/setting_texts.py (and translate them): {missing}"


def test_every_phase_and_finish_reason_of_a_run_is_marked_for_translation():
    words = {phase.label for phase in RunPhase} | {str(reason) for reason in FinishReason}
    assert not words - set(STATUS_WORDS), sorted(words - set(STATUS_WORDS))


def _step(epoch: int, batch: int) -> StepEvent:
    return StepEvent(step=(epoch - 1) * 10 + batch, epoch=epoch, batch=batch, batches_per_epoch=10, loss=1.0,
                     tokens_per_second=100.0, learning_rate=1e-3, skipped_steps=0, elapsed_seconds=5.0,
                     eta_seconds=20.0)


def _numbers() -> PanelNumbers:
    return PanelNumbers(log_probability=-4.0, length=8, mean_entropy=1.5, mean_max_weight=0.5, bleu=20.0, chrf=40.0)


def test_without_the_catalogs_the_views_speak_english(qtbot):
    widgets = CompareWidgets()
    qtbot.addWidget(widgets)
    assert widgets.compare_button.text() == "Compare" and widgets.view_bar.words.text() == "Words"
    assert "8 tokens" in _numbers().text() and status_word("completed") == "completed"
    assert run_progress(TrainConfig(epochs=2), _step(1, 3), None, RunPhase.TRAINING).text.startswith("Epoch 1/2")


def test_with_the_catalogs_the_views_speak_chinese_values_included(qtbot, chinese):
    widgets = CompareWidgets()
    qtbot.addWidget(widgets)
    assert widgets.compare_button.text() == "对比" and widgets.view_bar.words.text() == "词"
    assert widgets.inspector_tabs.tabText(0) == "步骤检查器"
    assert widgets.view_bar.scale.itemText(1) == "按行"  # a colour scale's name, marked where it is defined
    numbers = _numbers().text()
    assert "8 个词元" in numbers and "熵 1.50 nats" in numbers and "BLEU 20.0" in numbers
    progress = run_progress(TrainConfig(epochs=2), _step(1, 3), None, RunPhase.TRAINING).text
    assert progress.startswith("第 1/2 轮") and "批次 3/10" in progress
    assert status_word("completed") == "已完成" and status_word("no such phase") == "no such phase"
    inspector = StepInspector()
    qtbot.addWidget(inspector)
    assert inspector.title.text().startswith("步骤检查器")
    assert inspector.weights.horizontalHeaderItem(2).text() == "得分 e_ij"  # the formula's symbols stay


def test_the_train_form_shows_the_engines_settings_in_chinese(qtbot, chinese):
    form = TrainingForm()
    qtbot.addWidget(form)
    assert form._label("train", "epochs") == "轮数" and form._label("train", "batch_size") == "批大小"
    assert form.lr_schedule.itemText(0) == "BLEU 停滞时减半" and form.lr_schedule.itemData(0) == "plateau"
    assert form.attention_dropout.specialValueText() == "关闭"
    assert "随机种子" in form.seed.toolTip()


def test_the_chinese_layouts_fit_a_1280_pixel_screen(qtbot, chinese):
    for widget in (CompareWidgets(), TrainingForm(), CurvesView()):
        qtbot.addWidget(widget)
        assert widget.minimumSizeHint().width() <= SCREEN_WIDTH, type(widget).__name__


def test_what_is_on_screen_follows_a_switch_of_language_both_ways(qtbot, qapp):
    """Texts made of several messages (a step's title, the plots' titles) are made again on LanguageChange."""
    inspector, curves = StepInspector(), CurvesView()
    for widget in (inspector, curves):
        qtbot.addWidget(widget)
    inspector.show_step(2, "book", None, np.array([0.2, 0.8]), ["我", "书"], SCORER_TABLE["additive"], True,
                        probability=0.5)
    assert "Step i = 2" in inspector.title.text() and "Score:" in inspector.formula.text()
    title = curves.loss_plot.getPlotItem().titleLabel
    translators = _install(qapp)
    try:
        qtbot.waitUntil(lambda: "第 i = 2 步" in inspector.title.text())
        assert "得分：" in inspector.formula.text() and inspector.weights.rowCount() == 2
        qtbot.waitUntil(lambda: "每个目标词元的损失" in title.text)
        assert curves.x_combo.itemText(0) == "步数"
    finally:
        for translator in translators:
            qapp.removeTranslator(translator)
    qtbot.waitUntil(lambda: "Step i = 2" in inspector.title.text() and "Loss per target token" in title.text)


def test_an_inspector_before_any_step_keeps_its_hint_across_a_switch_and_back(qtbot, qapp):
    """Before any translation the hint says to translate first; a switch made it the title of a cleared inspector
    ("hover or click an output token or a heatmap row", with nothing to hover)."""
    inspector = StepInspector()
    qtbot.addWidget(inspector)
    hint = inspector.title.text()
    assert "translate a sentence" in hint
    translators = _install(qapp)
    try:
        qtbot.waitUntil(lambda: inspector.title.text() not in ("", hint))
        assert "翻译" in inspector.title.text()
    finally:
        for translator in translators:
            qapp.removeTranslator(translator)
    qtbot.waitUntil(lambda: inspector.title.text() == hint)
    inspector.clear()  # a translation under way: nothing chosen yet, the title says how to choose
    cleared = inspector.title.text()
    assert cleared != hint and "heatmap row" in cleared


def test_the_compare_tab_names_its_panels_and_direction_again_after_a_switch(qtbot, qapp):
    """A panel's title and a disabled panel's reason hold a scorer's label and a direction: made again."""
    from gui.compare.model import plan_slots
    from gui.compare.tab import CompareTab

    tab = CompareTab()
    qtbot.addWidget(tab)
    tab.controller.slots = plan_slots([], "zh-en")
    tab.controller.slotsChanged.emit(tab.controller.slots)
    panel = tab.panels["additive"]
    assert "Additive (Bahdanau)" in panel.title.text()
    assert panel.output_text == "no Additive (Bahdanau) model for Chinese → English: train one in the Train tab"
    translators = _install(qapp, also=("app",))  # the scorers' labels are the app catalog's (gui/scorer_labels.py)
    try:
        qtbot.waitUntil(lambda: "加性" in panel.title.text())
        assert "vᵀ tanh" in panel.title.text()  # the formula stays
        assert "中文 → 英文" in panel.output_text and "加性" in panel.output_text
        assert tab.direction_combo.itemText(0) == "中文 → 英文" and tab.direction_combo.itemData(0) == "zh-en"
        assert tab.difference.message.text() == ""  # nothing compared yet: no advice on targets
    finally:
        for translator in translators:
            qapp.removeTranslator(translator)
    qtbot.waitUntil(lambda: "Additive (Bahdanau)" in panel.title.text())
