"""The lesson in the real window with the shipped models (slow): every chapter's Show me reaches the
state its actions promise, through the window's own calls, and the Try it tasks of the chapters that
read the map are met by the learner's clicks — when done, and not before."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QWidget

import engine.records.catalog
from engine.files.paths import SHIPPED_MODELS
from gui.lesson.checks import same_word
from tests.gui.test_translate_support import (
    LOAD_MS,
    RUN_MS,
    open_window,
    type_and_translate,
    wait_for_model,
    wait_run_end,
)

pytestmark = pytest.mark.slow
TAB_OF = {"select_model": "translate", "translate": "translate", "select_step": "translate",
          "open_length_study": "translate", "open_layers": "translate", "set_attention_mode": "translate", "compare": "compare",
          "compare_shared_target": "compare", "open_training": "train"}


@pytest.fixture
def window(qtbot, monkeypatch):
    """The window with the shipped models (the GUI tests hide them by default), a model loaded."""
    monkeypatch.setattr(engine.records.catalog, "SHIPPED_MODELS", SHIPPED_MODELS)
    window = open_window(qtbot)
    window.confirm_stop_training = True
    wait_for_model(qtbot, window)
    window.lesson_button.click()
    qtbot.waitUntil(window.lesson_dock.isVisible)
    return window


def promised(actions) -> dict:
    """What the window's state must show after ``actions`` (later actions override earlier ones)."""
    state: dict = {}
    for action in actions:
        p = action.params
        if action.name in TAB_OF:
            state["tab"] = TAB_OF[action.name]
        if action.name == "open_tab":
            state["tab"] = p["tab"]
        elif action.name == "select_model":
            state["model"] = f"{p['direction']}-{p['scorer']}"
        elif action.name == "set_beam":
            state["beam"] = p["size"]
        elif action.name == "set_speed":
            state["speed"] = p["position"]
        elif action.name == "word_view":
            state["word_view"] = p["on"]
        elif action.name == "color_scale":
            state["color_scale"] = p["scale"]
        elif action.name == "translate":
            state.update(source=p["text"], step="", running=p.get("wait") == "started")
        elif action.name == "select_step":
            state["step"] = p["token"]
        elif action.name == "open_length_study":
            state["length_study"] = True
        elif action.name == "open_layers":
            state["layers"] = p.get("kind", "cross")
        elif action.name == "compare":
            state["compare_text"] = p["text"]
        elif action.name == "compare_shared_target":
            state["compare_target"] = "reference"
        elif action.name == "set_attention_mode":
            state["attention_mode"] = p["on"]
        elif action.name == "open_training":
            state["train_corpus"] = p["corpus"]
    return state


def show_me(qtbot, window, key: str) -> float:
    panel = window.lesson_panel
    panel.open_chapter(key)
    assert panel.show_button.isEnabled(), panel.problem.text()
    with qtbot.waitSignal(panel.runner.finished, timeout=LOAD_MS * 4) as shown:
        panel.show_button.click()
    return shown.args[0]


def test_every_chapters_show_me_reaches_the_state_it_promises(qtbot, window):
    panel = window.lesson_panel
    assert len(panel.chapters) >= 8 and not any(c.problem for c in panel.chapters)
    for chapter in list(panel.chapters):
        show_me(qtbot, window, chapter.key)
        state = window.lesson_host.state()
        for field, value in promised(chapter.show).items():
            if field == "step":
                assert same_word(value, state["step"]) or value == state["step"] == "", (chapter.key, state)
            else:
                assert state[field] == value, f"{chapter.key}: {field} is {state[field]!r}, not {value!r}"
        looked_at = [a.params["widget"] for a in chapter.show if a.name == "highlight"]
        outlines = [w.target_name for w in window.findChildren(QWidget, "lessonOutline")]
        assert not looked_at or looked_at[-1] in outlines, (chapter.key, outlines)
        window.translate_tab.controller.stop()  # a slow decode (chapter 3) ends before the next chapter
        qtbot.waitUntil(lambda: not window.translate_tab.controller.running, timeout=RUN_MS)
        dialog = window.translate_tab.length_study.dialog
        if dialog is not None:
            dialog.close()
        layers = window.translate_tab.model_view.window
        if layers is not None:
            layers.close()
    assert panel.trying.met == 0  # nothing Show me did counted as a try


def test_chapter_3_is_done_by_choosing_garden_and_then_its_strongest_source_word(qtbot, window):
    show_me(qtbot, window, "03-attention")
    tab = window.translate_tab
    qtbot.waitUntil(lambda: not tab.controller.running, timeout=RUN_MS)
    panel, trying = tab.view.attention_panel, window.lesson_panel.trying
    units = panel.units_cache.units(tuple(panel.source_tokens()), tuple(panel.target_tokens()), True)
    garden = next(i for i, word in enumerate(units.target.words) if same_word("garden", word))
    strongest = int(panel.word_attention()[garden].argmax())
    other = (strongest + 1) % len(units.source.words)
    panel.heatmap.cellClicked.emit(garden, strongest, False)  # the right cell, but the step is not chosen yet
    assert trying.met == 0
    tab.view.target_output.tokenClicked.emit(units.first_row_piece(garden))  # a click on the output word
    assert trying.met == 1 and not trying.done
    panel.heatmap.cellClicked.emit(garden, other, False)  # a weaker source word
    assert not trying.done
    panel.heatmap.cellClicked.emit(garden, strongest, False)
    assert trying.done and window.lesson_panel.list.currentItem().text().startswith("✓")


def test_chapter_7_is_done_when_moving_attention_makes_the_model_write_look(qtbot, window):
    show_me(qtbot, window, "07-does-output-follow")
    tab = window.translate_tab
    panel, trying = tab.view.attention_panel, window.lesson_panel.trying
    assert not panel.view_bar.words.isChecked()
    pieces = panel.source_tokens()  # Show me puts the map in pieces: 看 has a column of its own, apart from 书
    garden = next(i for i, piece in enumerate(panel.target_tokens()) if same_word("garden", piece))
    read = pieces.index("看")
    panel.heatmap.cellClicked.emit(garden, 0, False)  # 我在
    qtbot.waitUntil(lambda: not tab.controller.running and tab.whatif.active, timeout=RUN_MS)
    assert not trying.done, tab.view.target_output  # steered, but the output has no "look"
    tab.view.whatif_bar.undo_button.click()
    qtbot.waitUntil(lambda: not tab.controller.running and not tab.whatif.active, timeout=RUN_MS)
    attend = tab.view.whatif_bar.attend_button
    if not attend.isChecked():  # Undo ends the what-if: the learner turns Set attention on again
        attend.click()
    panel.heatmap.cellClicked.emit(garden, read, False)
    qtbot.waitUntil(lambda: not tab.controller.running and tab.whatif.active, timeout=RUN_MS)
    assert "look" in tab.last_translation.text
    qtbot.waitUntil(lambda: trying.done, timeout=RUN_MS)


def test_chapter_1_counts_the_learners_own_translations_with_the_fixed_c(qtbot, window):
    show_me(qtbot, window, "01-encoder-decoder")
    trying = window.lesson_panel.trying
    assert trying.met == 0  # Show me translated, the learner has not
    type_and_translate(qtbot, window, "我爱你。")
    qtbot.waitUntil(lambda: trying.met == 1, timeout=RUN_MS)
    type_and_translate(qtbot, window, "我爱你。")  # short again: the long one is still to do
    qtbot.waitUntil(lambda: not window.translate_tab.controller.running, timeout=RUN_MS)
    assert trying.met == 1
    type_and_translate(qtbot, window, "虽然这本书很长，但是我还是在一个星期内把它读完了，因为故事太有意思了。")
    qtbot.waitUntil(lambda: trying.done, timeout=RUN_MS)


def test_a_chapter_naming_a_missing_model_says_so_and_the_others_work(qtbot, window, tmp_path):
    from gui.lesson.panel import LessonPanel

    (tmp_path / "en").mkdir()
    (tmp_path / "en" / "01-missing.md").write_text(
        '+++\ntitle = "Missing"\nmodels = ["en-zh-multihead"]\n[[show]]\ndo = "set_beam"\nsize = 2\n+++\nText.\n',
        encoding="utf-8")
    (tmp_path / "en" / "02-there.md").write_text(
        '+++\ntitle = "There"\n[[show]]\ndo = "select_model"\ndirection = "zh-en"\nscorer = "dot"\n+++\nText.\n',
        encoding="utf-8")
    panel = LessonPanel(window.lesson_host, tmp_path, language=lambda: "en")
    qtbot.addWidget(panel)
    panel.open_chapter("01-missing")
    assert "en-zh-multihead" in panel.problem.text() and not panel.show_button.isEnabled()
    panel.open_chapter("02-there")
    assert not panel.problem.text()
    with qtbot.waitSignal(panel.runner.finished, timeout=LOAD_MS):
        panel.show_button.click()
    assert window.lesson_host.state()["model"] == "zh-en-dot"


def test_the_chapters_follow_the_interfaces_language_switched_live(qtbot, window):
    from gui.i18n import set_language

    panel = window.lesson_panel
    panel.open_chapter("03-attention")
    assert panel.chapter.language == "en"
    try:
        set_language("zh_CN", remember=False)
        assert panel.chapter.key == "03-attention" and panel.chapter.language == "zh_CN"
        assert panel.show_button.text() == "演示" and "注意力" in panel.text.toPlainText()
    finally:
        set_language("en", remember=False)
    assert panel.chapter.language == "en" and panel.show_button.text() == "Show me"


def test_chapter_8_hears_the_training_runs_validations(qtbot, window):
    show_me(qtbot, window, "08-train-your-own")
    trying = window.lesson_panel.trying
    assert window.lesson_host.state()["train_corpus"] == "dates" and trying.met == 0
    assert window.lesson_host._validated_panel is window.training_panel  # its validations are heard
    window.lesson_host.events.happened.emit("validated", {})  # what the host says of one
    assert trying.met == 1


def test_chapter_6_waits_for_the_aligner_and_counts_only_the_learners_pair(qtbot, window):
    show_me(qtbot, window, "06-alignment")  # its Show me ends once the aligner has drawn its links
    compare, trying = window.compare_tab, window.lesson_panel.trying
    assert compare.aligner.isVisibleTo(window) or compare.inspector_tabs.currentWidget() is compare.aligner
    assert trying.met == 0
    compare.input.setText("汤姆在花园里站着。")
    compare.reference.setText("Tom is standing in the garden.")
    compare.reference.editingFinished.emit()
    compare.compare_button.click()
    qtbot.waitUntil(lambda: trying.met == 1, timeout=RUN_MS)


def test_chapter_9_opens_the_transformers_layers_and_is_done_by_a_long_input_and_the_learners_own_click(qtbot, window):
    tab = window.translate_tab
    show_me(qtbot, window, "09-transformer")
    layers, trying = tab.model_view.window, window.lesson_panel.trying
    assert layers is not None and layers.isVisible() and layers.kind == "encoder"
    assert window.lesson_host.state()["model"] == "zh-en-transformer" and trying.met == 0
    layers.close()
    type_and_translate(qtbot, window, "我今天很忙。")  # too short: not the long input asked for
    wait_run_end(qtbot, window)
    assert trying.met == 0
    type_and_translate(qtbot, window, "我今天很忙。我明天有空。我们后天一起去看电影吧。汤姆昨晚没睡好。")
    qtbot.waitUntil(lambda: trying.met == 1, timeout=RUN_MS)
    tab.view.layers_button.click()
    qtbot.waitUntil(lambda: trying.met == 2)
    assert tab.model_view.window.isVisible()


def test_chapter_9_says_why_when_no_transformer_translation_has_finished(qtbot, window):
    from gui.lesson.chapter import Action
    from gui.lesson.host import ActionError

    assert not window.translate_tab.view.layers_button.isEnabled()  # the default model is an RNN
    with pytest.raises(ActionError, match="for a Transformer model"):
        window.lesson_host.perform(Action("open_layers", {"kind": "decoder"}))
