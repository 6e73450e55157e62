"""The loop measure: an output loops when one word 3-gram occurs three or more times."""

import pytest

from engine.decoding.repetition import looping_share, loops, most_repeated, words


def test_english_words_are_whitespace_tokens_as_written():
    assert words("I'm  here. I'm\there.", "en") == ["I'm", "here.", "I'm", "here."]


def test_chinese_words_are_its_characters_without_whitespace():
    assert words("我 很好。", "zh") == ["我", "很", "好", "。"]


def test_the_most_repeated_trigram_and_its_count():
    text = "made a mistake for her. made a mistake again. I made a mistake"
    assert most_repeated(text, "en") == (("made", "a", "mistake"), 3)
    assert most_repeated("two words", "en") == ((), 0)


def test_three_occurrences_loop_two_do_not():
    assert loops("I go home. I go home. I go home.", "en")
    assert not loops("I go home. I go home.", "en")
    assert not loops("I go home, I go home. I go home.", "en")  # "home," is not "home."


def test_occurrences_may_overlap():
    assert most_repeated("ha ha ha ha ha", "en") == (("ha", "ha", "ha"), 3)
    assert loops("ha ha ha ha ha", "en") and not loops("ha ha ha ha", "en")


def test_chinese_loops_on_characters():
    assert loops("我很好。我很好。我很好。", "zh")
    assert loops("我很好。你很好。他很好。", "zh")  # "很好。" three times: characters, not words
    assert most_repeated("我很好。你很好。他很好。", "zh") == (("很", "好", "。"), 3)
    assert not loops("我很好。你很好。", "zh")
    assert not loops("我很好。我很好。我很好。", "en")  # one whitespace token: no 3-gram at all


def test_the_looping_share_of_a_list():
    texts = ["a b c a b c a b c", "a b c", "x y z x y z x y z x", "", "p q"]
    assert looping_share(texts, "en") == pytest.approx(2 / 5)
    assert looping_share([], "en") == 0.0
    assert looping_share(texts, "en", n=3, count=4) == 0.0
