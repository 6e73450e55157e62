"""The Translate tab names the input's words the model never saw in training, and underlines their source
tokens; a model without a usable record still translates, with one clear note (gui/translate/unseen_words.py)."""

from __future__ import annotations

import pytest
from PySide6.QtGui import QTextCharFormat, QTextCursor

from engine.files import user_models_folder
from gui.translate.unseen_words import unseen_text
from tests.gui.test_translate_support import (
    install_models,
    open_window,
    type_and_translate,
    wait_for_model,
    wait_run_end,
)


def test_the_line_names_unseen_words_and_characters_or_says_why_it_cannot():
    assert unseen_text(["grandparents"]) == "never seen in training: grandparents"
    assert unseen_text(["饺子", "贡献"], ["饺", "贡"]) == ("never seen in training: 饺子, 贡献 · characters never seen: "
                                                      "饺 贡 (spelled as bytes)")
    assert unseen_text([], [], "no record") == "Unseen words are not checked: no record"
    assert unseen_text([]) == ""


def _underlined(strip, index: int) -> bool:
    start, end = strip._spans[index]
    cursor = QTextCursor(strip.document())
    cursor.setPosition(start + 1 if end > start + 1 else end)
    return cursor.charFormat().underlineStyle() == QTextCharFormat.UnderlineStyle.SpellCheckUnderline


@pytest.mark.slow  # a trained model, or the real window
def test_the_real_window_names_an_unseen_word_under_the_input_and_underlines_its_pieces(qtbot, dates_models):
    install_models(dates_models, ("additive",))
    window = open_window(qtbot)
    wait_for_model(qtbot, window, "additive")
    view = window.translate_tab.view
    type_and_translate(qtbot, window, "29 Grandparents 2026")
    wait_run_end(qtbot, window)
    assert not view.unseen_line.isHidden()
    assert view.unseen_line.text() == "never seen in training: Grandparents"
    strip = view.source_tokens
    marked = strip.marked()
    assert marked and "".join(strip.pieces()[i] for i in marked).replace("\u2581", "") == "Grandparents"
    assert all(_underlined(strip, i) for i in marked)
    assert not any(_underlined(strip, i) for i in range(len(strip.pieces())) if i not in marked)
    assert view.target_output.text()  # translated all the same
    type_and_translate(qtbot, window, "29 Nov 2026")
    wait_run_end(qtbot, window)
    assert view.unseen_line.isHidden() and strip.marked() == []


@pytest.mark.slow  # a trained model, or the real window
def test_a_damaged_record_gives_one_clear_note_and_the_app_still_translates(qtbot, dates_models):
    install_models(dates_models, ("additive",))
    words = user_models_folder() / "dates-additive" / "words.json"
    words.write_bytes(words.read_bytes().replace(b'"nov"', b'"nox"'))
    window = open_window(qtbot)
    wait_for_model(qtbot, window, "additive")
    view = window.translate_tab.view
    type_and_translate(qtbot, window, "29 Grandparents 2026")
    wait_run_end(qtbot, window)
    assert view.target_output.text()
    note = view.unseen_line.text()
    assert note.startswith("Unseen words are not checked: the record of this model's training words cannot be used")
    assert "sha256 differs" in note and not view.unseen_line.isHidden()
    type_and_translate(qtbot, window, "3 May 1999")
    wait_run_end(qtbot, window)
    assert view.unseen_line.isHidden() and view.target_output.text()  # said once: the next run is quiet
