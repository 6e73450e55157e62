"""An unusable Chinese word list (engine/text/segment.py falls back to characters) is said once in the
Translate tab — a passing status line, a mark and the reason on the Words box — not on every decode,
and never in a dialog."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QApplication, QMessageBox

from engine.settings import SCORER_TABLE
from engine.text import segment, words
from gui.attention.view_bar import WORD_VIEW_TIP
from gui.translate.tab import TranslateTab
from tests.gui.test_recording import SOURCE, greedy_steps


@pytest.fixture
def fresh_segmenter(monkeypatch: pytest.MonkeyPatch):
    """The segmenter as if not loaded yet (restored after the test), once a load under way has ended (an
    earlier panel's warm-up thread holds the segmenter's lock while it loads); no word boundaries kept
    from an earlier segmenter's cuts."""
    words._han_boundaries.cache_clear()
    with segment._lock:
        monkeypatch.setattr(segment, "_cut", None)
        monkeypatch.setattr(segment, "_name", "")
        monkeypatch.setattr(segment, "_notice", "")
    return segment


def decode_three_times(qtbot) -> tuple[TranslateTab, list[str]]:
    tab = TranslateTab()
    qtbot.addWidget(tab)
    said: list[str] = []
    tab.statusMessage.connect(said.append)
    tab.errorReported.connect(lambda *error: said.append(f"dialog: {error}"))  # the window's error dialog
    panel = tab.view.attention_panel
    panel.set_word_view(True)
    for _ in range(3):
        panel.begin(SOURCE, True, SCORER_TABLE["additive"])
        for step in greedy_steps():
            panel.show_step(step)
        panel.render_now()
    return tab, said


def test_an_unusable_word_list_is_said_once_and_never_in_a_dialog(qtbot, fresh_segmenter, tmp_path, monkeypatch):
    empty = tmp_path / "zh-words.txt"
    empty.write_bytes(b"")
    monkeypatch.setattr(segment, "WORDS_FILE", empty)
    dialogs_before = {id(w) for w in QApplication.topLevelWidgets() if isinstance(w, QMessageBox)}  # other tests'
    tab, said = decode_three_times(qtbot)
    panel = tab.view.attention_panel
    assert panel.source_words() == ["我们", "走", "吧", "。"]  # characters: no piece joins the next
    assert not [text for text in said if text.startswith("dialog: ")]
    notices = [text for text in said if "zh-words.txt" in text]
    assert len(notices) == 1 and "shown as characters" in notices[0]
    words_box = panel.view_bar.words
    assert words_box.toolTip().startswith(notices[0]) and WORD_VIEW_TIP in words_box.toolTip()
    assert not words_box.icon().isNull()
    assert not [w for w in QApplication.topLevelWidgets() if isinstance(w, QMessageBox) and id(w) not in dialogs_before]


def test_the_shipped_word_list_says_nothing(qtbot, fresh_segmenter):
    tab, said = decode_three_times(qtbot)
    words_box = tab.view.attention_panel.view_bar.words
    assert said == [] and words_box.toolTip() == WORD_VIEW_TIP and words_box.icon().isNull()
