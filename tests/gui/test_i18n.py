"""The interface's language (gui/i18n.py, gui/retranslate.py): the Chinese catalog loaded through the
resource lookup, a missing or damaged catalog said in one English line, and a switch that rewrites the
texts on screen in place — known messages and filled-in templates — leaving everything else alone."""

from __future__ import annotations

import shutil

import pytest
from PySide6.QtCore import QCoreApplication, QEvent, QObject
from PySide6.QtWidgets import QComboBox, QGroupBox, QLabel, QLineEdit, QPushButton, QTabWidget, QVBoxLayout, QWidget

from engine.files.paths import I18N_FOLDER
from gui import i18n
from gui.i18n import current_language, install_language, language_hub, load_catalog, set_language


@pytest.fixture(autouse=True)
def english_afterwards():
    """Every test leaves the application in English, its catalog from the shipped folder."""
    yield
    set_language("en", remember=False)
    install_language("en")


def test_the_shipped_chinese_catalog_loads_and_answers(qapp):
    catalog, problem = load_catalog("zh_CN")
    assert problem == "" and catalog, problem
    assert install_language("zh_CN") == ""
    assert current_language() == "zh_CN"
    assert QCoreApplication.translate("MainWindow", "Quit") == "退出"
    install_language("en")
    assert current_language() == "en"
    assert QCoreApplication.translate("MainWindow", "Quit") == "Quit"


@pytest.mark.parametrize("damage", ["missing", "damaged"])
def test_a_missing_or_damaged_catalog_is_one_english_line_and_the_interface_stays_english(qapp, tmp_path, damage):
    folder = tmp_path / "i18n"
    folder.mkdir()
    if damage == "damaged":
        for path in I18N_FOLDER.glob("*.qm"):
            shutil.copy(path, folder / path.name)
        (folder / "app_zh_CN.qm").write_bytes(b"not a catalog" * 10)
    problem = install_language("zh_CN", folder)
    assert problem and "\n" not in problem and "English" in problem
    assert ("app_zh_CN.qm" in problem) if damage == "damaged" else ("missing" in problem)
    assert current_language() == "en"
    assert language_hub().problem == problem
    assert QCoreApplication.translate("MainWindow", "Quit") == "Quit"


class Panel(QWidget):
    """A widget whose texts are catalog messages (the MainWindow context's), one of them a template."""

    def __init__(self) -> None:
        super().__init__()
        layout = QVBoxLayout(self)
        self.plain = QLabel(QCoreApplication.translate("MainWindow", "Quit"))
        self.filled = QLabel(QCoreApplication.translate(
            "MainWindow", "New model saved: %1 (pick its scorer to use it)").replace("%1", "run-7"))
        self.user = QLabel("Quit now")  # not a message: left alone
        self.button = QPushButton(QCoreApplication.translate("ErrorReporter", "Unexpected error"))
        self.combo = QComboBox()
        self.combo.addItems([QCoreApplication.translate("MainWindow", "Quit"), "zh-en-additive"])
        self.typed = QLineEdit("Quit")  # the user's text is never rewritten
        self.changes = 0
        for widget in (self.plain, self.filled, self.user, self.button, self.combo, self.typed):
            layout.addWidget(widget)

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 (Qt's name)
        if event.type() == QEvent.Type.LanguageChange:
            self.changes += 1
        super().changeEvent(event)


def test_switching_rewrites_known_messages_in_place_and_leaves_the_rest(qtbot):
    install_language("en")
    panel = Panel()
    qtbot.addWidget(panel)
    panel.show()
    changed: list[str] = []
    language_hub().languageChanged.connect(changed.append)
    picked: list[int] = []
    panel.combo.currentIndexChanged.connect(picked.append)
    assert set_language("zh_CN", remember=False) == ""
    assert current_language() == "zh_CN" and changed == ["zh_CN"]
    assert panel.plain.text() == "退出"
    assert panel.filled.text() == "新模型已保存：run-7（选择它的打分函数即可使用）"
    assert panel.button.text() == "意外错误"
    assert [panel.combo.itemText(i) for i in range(2)] == ["退出", "zh-en-additive"]
    assert panel.user.text() == "Quit now" and panel.typed.text() == "Quit"
    assert picked == []  # an item renamed is not a new choice
    qtbot.waitUntil(lambda: panel.changes >= 1)  # widgets that assemble their own text hear of it
    set_language("en", remember=False)
    assert changed == ["zh_CN", "en"]
    assert panel.plain.text() == "Quit"
    assert panel.filled.text() == "New model saved: run-7 (pick its scorer to use it)"
    assert panel.button.text() == "Unexpected error"


def test_the_choice_is_remembered_and_system_follows_the_locale(qapp, monkeypatch):
    set_language("zh_CN")
    assert i18n.stored_choice() == "zh_CN"
    set_language("system")
    assert i18n.stored_choice() == "system"
    monkeypatch.setattr(i18n, "system_language", lambda: "zh_CN")
    assert i18n.resolve("system") == "zh_CN"
    with pytest.raises(ValueError, match="system, en, zh_CN"):
        install_language("fr")


def test_the_hub_is_the_applications_and_a_lesson_can_ask_it(qapp):
    hub = language_hub()
    assert isinstance(hub, QObject) and hub.parent() is qapp and language_hub() is hub
    assert current_language() in ("en", "zh_CN")


def test_every_scorer_of_the_table_has_a_translatable_label(qapp):
    from engine.settings.scorer_table import SCORER_TABLE, scorer_row
    from gui.scorer_labels import LABELS, scorer_label

    assert {info.label for info in SCORER_TABLE.values()} == set(LABELS)
    install_language("zh_CN")
    assert all(scorer_label(info) != info.label for info in SCORER_TABLE.values() if info.name != "transformer")
    assert scorer_label(scorer_row("additive-7")) == "additive-7"  # a row the registry does not hold: its name


def test_fill_replaces_each_argument_once():
    assert i18n.fill("%1 of %2", "%2", 5) == "%2 of 5"
    assert i18n.fill("step %1", 3, "unused") == "step 3" and i18n.fill("%3", 1) == "%3"


def test_a_template_is_matched_by_its_literal_pieces_and_its_values_carried_over(qapp):
    from gui.retranslate import Rewriter

    install_language("en")
    translator = language_hub().translator
    QCoreApplication.translate("MapUnits", "step %1")  # a shorter template the text below also fills
    QCoreApplication.translate("ModelStatus", "%1 (read-only) · %2")  # shown once: recorded
    rewrite = Rewriter(translator, "en", "zh_CN")
    assert rewrite("step 9 (read-only) · Additive · 3 parameters") == "step 9（只读）· Additive · 3 parameters"
    assert rewrite(" (read-only) · x") == " (read-only) · x"  # an empty value is no match
    assert rewrite("unrelated text") == "unrelated text" and rewrite("") == ""


class TrainTab(QWidget):  # named as the app's classes are: their names are the catalog's contexts
    pass


class TrainingForm(QWidget):
    pass


def test_a_text_two_messages_share_goes_back_to_its_own_widgets_message(qtbot):
    """"训练" is TrainTab's "Train" (the tab) and TrainingForm's "Training" (a group box of the form on that tab):
    back in English each is its own message again, whichever was shown first."""
    install_language("zh_CN")
    tabs = QTabWidget()
    qtbot.addWidget(tabs)
    page = TrainTab()
    box = QGroupBox(QCoreApplication.translate("TrainingForm", "Training"), TrainingForm(page))  # met first
    tabs.addTab(page, QCoreApplication.translate("TrainTab", "Train"))
    assert tabs.tabText(0) == box.title() == "训练"
    set_language("en", remember=False)
    assert (tabs.tabText(0), box.title()) == ("Train", "Training")
    set_language("zh_CN", remember=False)
    assert tabs.tabText(0) == box.title() == "训练"
