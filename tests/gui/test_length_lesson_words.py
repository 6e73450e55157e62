"""The Length study's lesson in the interface's language (gui/translate/length_study/lesson_words.py): in
English, word for word the engine's sentence (engine.studies.length_reading) for every case of its rule —
the rule has one owner — and in Chinese, the same figures in Chinese words."""

from __future__ import annotations

import re

import pytest

from engine.studies.length_reading import LengthLesson
from gui.i18n import install_language
from gui.translate.length_study.lesson_words import lesson_sentence

LABELS = {"additive": "Additive (Bahdanau)"}
CASES = [  # best, best_short, best_long, fixed_short, fixed_long, all_fall
    ("additive", 30.6, 29.0, 20.1, 4.7, False),  # attention holds up, C falls
    ("additive", 30.6, 29.0, 20.1, 0.0, False),  # C scores nothing on long inputs
    ("additive", 30.0, 12.0, 20.0, 6.0, True),  # every line falls, attention less
    ("additive", 30.0, 6.0, 20.0, 5.0, True),  # every line falls, attention as far
    ("additive", 30.0, 20.0, 20.0, 5.0, False),  # harder, not every line falls
    ("additive", 30.0, 5.0, 20.0, 6.0, True),  # C not behind
    ("additive", 30.0, 29.0, None, None, False),  # no C: holds
    ("additive", 30.0, 10.0, None, None, True),  # no C: every line falls
    ("additive", 30.0, 20.0, None, None, False),  # no C: harder
    ("additive", 30.0, 20.0, 0.0, 0.0, False),  # C with nothing at all
]


@pytest.fixture(autouse=True)
def english_afterwards(qapp):
    yield
    install_language("en")


@pytest.mark.parametrize("case", CASES)
def test_in_english_the_lesson_is_the_engines_sentence_and_in_chinese_its_figures_in_chinese(case):
    lesson = LengthLesson(*case)
    install_language("en")
    assert lesson_sentence(lesson, LABELS) == lesson.sentence(LABELS)
    install_language("zh_CN")
    chinese = lesson_sentence(lesson, LABELS)
    assert re.search(r"[\u4e00-\u9fff]", chinese)
    words = set(re.findall(r"[A-Za-z]{3,}", chinese.replace(LABELS["additive"], "")))
    assert words <= {"BLEU"}, words  # nothing left in English but the labels and BLEU
    for figure in re.findall(r"\d+(?:\.\d+)?%?", lesson.sentence(LABELS)):
        assert figure in chinese  # the same figures
