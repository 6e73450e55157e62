"""The language check reads English's letters as the ASCII ones: accented Latin letters are neutral,
so "é" × 5000 does not "look like English" to a zh→en model, while English with a loanword still does."""

from __future__ import annotations

from engine.text.language_check import Verdict, check_language, script_counts


def test_accented_letters_alone_are_no_english() -> None:
    assert script_counts("é" * 5000) == script_counts("")
    check = check_language("é" * 5000, None, "zh")
    assert check.verdict is Verdict.OK and check.detected is None


def test_english_with_an_accented_loanword_still_reads_as_english() -> None:
    check = check_language("We met at the café near the station yesterday.", None, "zh")
    assert check.verdict is Verdict.WRONG_LANGUAGE and check.detected == "en"
    assert check_language("我们昨天在车站附近的咖啡馆见面。", None, "zh").ok
