"""Input in another language than the model's: the controller refuses it (fake models, inline jobs),
and the Translate tab's status line says so with one click to switch direction, to translate it
anyway, or to stop asking (the shipped zh-en and en-zh models, the real window)."""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

import pytest
from PySide6.QtCore import QSettings, Qt

from engine.files import user_models_folder
from engine.records.catalog import ModelEntry
from engine.text.language_check import Verdict, check_language
from gui.translate.controller import TranslateController
from gui.translate.language_gate import ASK_LANGUAGE
from gui.translate.tab import TranslateTab
from tests.gui.test_translate_support import RUN_MS, open_window, type_and_translate, wait_for_model, wait_run_end
from tests.inline_jobs import InlineJobs

SHIPPED = Path(__file__).resolve().parents[2] / "resources" / "models"
PAIR = ("zh-en-additive", "en-zh-additive")
ENGLISH = "I like cats very much."
CHINESE = "我喜欢猫。"


# -- the controller's decisions (fast) ---------------------------------------------------------------
@dataclass(frozen=True)
class CharPrepared:
    """A source cut into characters: pieces as a tokenizer of one script would give (others as bytes)."""

    text: str
    normalized: str
    tokens: tuple[str, ...]

    @property
    def empty(self) -> bool:
        return not self.tokens


class ScriptTranslator:
    """Reads one language's script; one decoding step per character."""

    uses_attention = True

    def __init__(self, language: str) -> None:
        self.language = language

    def _piece(self, character: str) -> str:
        own = ("\u4e00" <= character <= "\u9fff") if self.language == "zh" else character.isascii()
        return character if own else f"<0x{character.encode()[0]:02X}>"

    def prepare(self, text: str) -> CharPrepared:
        return CharPrepared(text, text.strip(), tuple(self._piece(c) for c in text.strip()))

    def check_language(self, prepared: CharPrepared):
        return check_language(prepared.normalized, prepared.tokens, self.language)

    def steps(self, prepared, config, steering):
        for character in prepared.text:
            yield f"{self.language}:{character}"
        return f"{self.language} translation of {prepared.text}"


@dataclass(frozen=True)
class ScriptBundle:
    translator: ScriptTranslator
    source_language: str
    scorer: str = "additive"

    def decode_config(self, beam_size: int) -> int:
        return beam_size


def _entry(direction: str) -> ModelEntry:
    source, target = direction.split("-")
    return ModelEntry(folder=Path("models") / direction, source_language=source, target_language=target,
                      scorer="additive", shipped=False, test_bleu=None, modified=1.0)


def _controller() -> tuple[TranslateController, InlineJobs, list, list]:
    jobs = InlineJobs({f"load {d}": (lambda d=d: iter([ScriptBundle(ScriptTranslator(d[:2]), d[:2])]))
                       for d in ("zh-en", "en-zh")})
    controller = TranslateController(jobs=jobs)
    controller.ask_language = True
    refused, finished = [], []
    controller.languageRefused.connect(lambda text, check: refused.append((text, check)))
    controller.runFinished.connect(finished.append)
    controller.load(_entry("zh-en"))
    jobs.run_all()
    return controller, jobs, refused, finished


def test_input_in_another_language_is_refused_and_decoded_by_the_direction_switched_to():
    controller, jobs, refused, finished = _controller()
    assert not controller.translate("hello there")
    assert not jobs.named("decode") and not controller.running
    [(text, check)] = refused
    assert text == "hello there" and check.verdict is Verdict.WRONG_LANGUAGE and check.detected == "en"
    assert controller.translate(CHINESE) and not refused[1:]  # its own language: decoded
    jobs.run_all()
    assert finished == [f"zh translation of {CHINESE}"]
    assert not controller.translate("hello there")  # refused again: nothing decoded it meanwhile
    controller.load(_entry("en-zh"))  # the direction switched to decodes the waiting sentence once loaded
    jobs.run_all()
    assert controller.bundle.source_language == "en" and finished[-1] == "en translation of hello there"


def test_translate_anyway_decodes_it_and_the_same_input_is_not_asked_again_for_that_model():
    controller, jobs, refused, finished = _controller()
    assert controller.translate("hello there", check_language=False)
    jobs.run_all()
    assert finished == ["zh translation of hello there"] and not refused
    assert controller.translate("hello there")  # a re-decode (another beam, a what-if): accepted before
    assert not controller.translate("good bye") and len(refused) == 1  # another input is checked
    controller.ask_language = False
    assert controller.translate("good bye")  # the setting off: decoded without asking
    jobs.run_all()
    assert finished[-1] == "zh translation of good bye" and len(refused) == 1


def test_mostly_unknown_characters_are_refused_too_and_a_new_decode_drops_the_waiting_input():
    controller, jobs, refused, finished = _controller()
    assert not controller.translate("😀👍")
    assert refused[-1][1].verdict is Verdict.UNKNOWN_PIECES and refused[-1][1].detected is None
    assert controller.translate(CHINESE)  # decoded now: the refused input no longer waits for a model
    jobs.run_all()
    assert finished == [f"zh translation of {CHINESE}"]
    controller.load(_entry("en-zh"))  # a model change re-decodes the last decode: Chinese, now refused
    jobs.run_all()
    assert finished == [f"zh translation of {CHINESE}"] and not controller.running
    assert refused[-1][1].verdict is Verdict.WRONG_LANGUAGE and refused[-1][0] == CHINESE


# -- the Translate tab's status line (the shipped models, the real window) --------------------------
@pytest.fixture
def window(qtbot):
    if not all((SHIPPED / name / "config.json").is_file() for name in PAIR):
        pytest.skip("the zh-en and en-zh additive models are not shipped")
    root = user_models_folder()
    root.mkdir(parents=True, exist_ok=True)
    for name in PAIR:
        shutil.copytree(SHIPPED / name, root / name)
    window = open_window(qtbot, ["--model", str(root / "zh-en-additive")])  # zh→en first; en→zh listed too
    wait_for_model(qtbot, window, "additive")
    assert window.translate_tab.controller.entry.direction == "zh-en"
    return window


@pytest.mark.slow  # a trained model, or the real window
def test_english_typed_into_zh_en_is_not_decoded_and_one_click_translates_it_en_zh(qtbot, window):
    tab = window.translate_tab
    view, controller, notice = tab.view, tab.controller, tab.view.language_notice
    type_and_translate(qtbot, window, ENGLISH)
    assert not controller.running and controller.last_run is None  # nothing decoded
    assert notice.isVisible() and notice.refused and view.target_output.text() == ""
    line = notice.label.text()
    assert line.startswith("⚠ Not translated") and "English" in line and "Chinese → English" in line
    assert notice.switch_button.isVisible() and notice.switch_button.text() == "Switch to English → Chinese"
    assert notice.anyway_button.isVisible() and notice.stop_button.isVisible() and not notice.ask_button.isVisible()
    qtbot.mouseClick(notice.switch_button, Qt.MouseButton.LeftButton)  # the one click
    qtbot.waitUntil(lambda: controller.last_run is not None and controller.last_run.prepared.text == ENGLISH
                    and not controller.running, timeout=RUN_MS)
    assert controller.bundle.source_language == "en" and view.choice_bar.current_direction() == "en-zh"
    assert view.choice_bar.current_scorer() == "additive"
    assert not notice.isVisible() and view.attention_panel.target_tokens()
    assert view.source_input.text() == ENGLISH
    type_and_translate(qtbot, window, "😀👍")  # nothing the English model reads: no direction to offer
    assert notice.refused and "vocabulary" in notice.label.text() and not notice.switch_button.isVisible()
    qtbot.keyClicks(view.source_input, "x")  # another input: the line spoke of the old one
    assert not notice.isVisible()


@pytest.mark.slow  # a trained model, or the real window
def test_translate_anyway_and_dont_ask_again_decode_it_and_the_setting_is_kept(qtbot, window):
    tab = window.translate_tab
    view, controller, notice = tab.view, tab.controller, tab.view.language_notice
    type_and_translate(qtbot, window, ENGLISH)
    qtbot.mouseClick(notice.anyway_button, Qt.MouseButton.LeftButton)
    wait_run_end(qtbot, window)
    assert controller.last_run.prepared.text == ENGLISH and controller.bundle.source_language == "zh"
    assert view.attention_panel.target_tokens() and not notice.isVisible() and controller.ask_language
    type_and_translate(qtbot, window, "Where is the station?")
    assert notice.refused
    qtbot.mouseClick(notice.stop_button, Qt.MouseButton.LeftButton)
    wait_run_end(qtbot, window)
    assert not controller.ask_language and QSettings().value(ASK_LANGUAGE) in (False, "false")
    assert controller.last_run.prepared.text == "Where is the station?"
    # Decoded without asking, the status line still says what the input looks like.
    assert notice.isVisible() and not notice.refused and notice.label.text().startswith("⚠ Translated as asked")
    assert notice.ask_button.isVisible() and notice.switch_button.isVisible() and not notice.anyway_button.isVisible()
    type_and_translate(qtbot, window, CHINESE)
    wait_run_end(qtbot, window)
    assert not notice.isVisible()  # its own language: nothing to say
    second = TranslateTab()  # the setting is remembered
    qtbot.addWidget(second)
    assert not second.controller.ask_language
    type_and_translate(qtbot, window, ENGLISH)
    wait_run_end(qtbot, window)
    qtbot.mouseClick(notice.ask_button, Qt.MouseButton.LeftButton)
    assert controller.ask_language and QSettings().value(ASK_LANGUAGE) in (True, "true") and not notice.isVisible()
    type_and_translate(qtbot, window, "Good morning")
    assert notice.refused and controller.last_run.prepared.text == ENGLISH


@pytest.mark.slow  # a trained model, or the real window
def test_a_refused_input_leaves_no_output_of_the_previous_sentence_on_screen(qtbot, window):
    tab = window.translate_tab
    view, notice = tab.view, tab.view.language_notice
    type_and_translate(qtbot, window, CHINESE)
    qtbot.waitUntil(lambda: bool(view.attention_panel.target_tokens()), timeout=RUN_MS)
    assert view.target_output.text() and view.source_tokens.text()
    type_and_translate(qtbot, window, ENGLISH)  # refused: the line is up
    assert notice.refused
    assert view.target_output.text() == "" and view.source_tokens.text() == ""  # not 我喜欢猫's, under "Chinese → English"
    assert not view.attention_panel.target_tokens()
