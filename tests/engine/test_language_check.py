"""The language check before decoding (engine.text.language_check): Chinese, English, mixed input,
digits only and emoji, on the pieces the shipped tokenizers give; the ``warning`` of ``translate --json``."""

import json

import pytest

from engine.files.paths import SHIPPED_MODELS
from engine.text.language_check import (
    BYTE_SHARE_LIMIT,
    DOMINANT_SHARE,
    Verdict,
    check_language,
    script_counts,
    unknown_character_count,
)

# What the shipped models' source tokenizers make of each input (zh-en's Chinese one, en-zh's English one).
ZH_PIECES = {
    "我喜欢猫。": ["▁我喜欢", "猫", "。"],
    "I like cats very much.": ["▁", "I", "▁", "l", "i", "k", "e", "▁", "c", "a", "t", "s", "▁", "<0x76>", "e", "r",
                               "y", "▁", "m", "u", "c", "h", "."],
    "我用iPhone拍照": ["▁我", "用", "i", "P", "h", "o", "n", "e", "拍", "照"],
    "2026 123": ["▁", "20", "2", "6", "▁", "1", "2", "3"],
    "😀👍": ["▁", "<0xF0>", "<0x9F>", "<0x98>", "<0x80>", "<0xF0>", "<0x9F>", "<0x91>", "<0x8D>"],
}
EN_PIECES = {
    "I like cats very much.": ["▁I", "▁like", "▁cats", "▁very", "▁much", "."],
    "我喜欢猫。": ["▁", "<0xE6>", "<0x88>", "<0x91>", "<0xE5>", "<0x96>", "<0x9C>", "<0xE6>", "<0xAC>", "<0xA2>",
                  "<0xE7>", "<0x8C>", "<0xAB>", "<0xE3>", "<0x80>", "<0x82>"],
    "I love 北京": ["▁I", "▁love", "▁", "<0xE5>", "<0x8C>", "<0x97>", "<0xE4>", "<0xBA>", "<0xAC>"],
    "Tom is here 😀": ["▁Tom", "▁is", "▁here", "▁", "<0xF0>", "<0x9F>", "<0x98>", "<0x80>"],
    "2026 123": ["▁20", "2", "6", "▁1", "2", "3"],
    "😀👍": ["▁", "<0xF0>", "<0x9F>", "<0x98>", "<0x80>", "<0xF0>", "<0x9F>", "<0x91>", "<0x8D>"],
}


def test_chinese_passes_a_chinese_model_and_is_named_to_an_english_one():
    ok = check_language("我喜欢猫。", ZH_PIECES["我喜欢猫。"], "zh")
    assert ok.ok and ok.verdict is Verdict.OK and ok.detected == "zh" and ok.message == ""
    assert ok.to_json() is None
    wrong = check_language("我喜欢猫。", EN_PIECES["我喜欢猫。"], "en")
    assert wrong.verdict is Verdict.WRONG_LANGUAGE and wrong.detected == "zh" and not wrong.ok
    assert "Chinese" in wrong.message and "English" in wrong.message
    assert wrong.script_share == 0.0 and wrong.unknown_characters == 5 and wrong.byte_share == 1.0


def test_english_passes_an_english_model_and_is_named_to_a_chinese_one():
    text = "I like cats very much."
    assert check_language(text, EN_PIECES[text], "en").ok
    wrong = check_language(text, ZH_PIECES[text], "zh")
    assert wrong.verdict is Verdict.WRONG_LANGUAGE and wrong.detected == "en"
    assert wrong.to_json() == {"kind": "wrong_language", "message": wrong.message, "expected_language": "zh",
                               "detected_language": "en", "script_share": 0.0, "byte_share": round(1 / 18, 4)}


def test_mixed_input_is_judged_by_its_weighted_letters():
    # Four Han characters against six Latin letters (two Han characters' worth): Chinese with a brand name.
    brand = check_language("我用iPhone拍照", ZH_PIECES["我用iPhone拍照"], "zh")
    assert brand.ok and brand.detected == "zh" and brand.script_share == pytest.approx(4 / 6)
    assert check_language("我用iPhone拍照", None, "en").verdict is Verdict.WRONG_LANGUAGE
    # Five Latin letters and two Han characters: neither script dominates, and the two unknown characters are
    # half of what the English model reads (not more): it is decoded.
    both = check_language("I love 北京", EN_PIECES["I love 北京"], "en")
    assert both.ok and both.detected is None and both.byte_share == BYTE_SHARE_LIMIT
    assert DOMINANT_SHARE > both.script_share > 1 - DOMINANT_SHARE
    assert check_language("I love 北京", None, "zh").ok


def test_digits_and_punctuation_alone_are_neutral():
    for pieces, language in ((ZH_PIECES["2026 123"], "zh"), (EN_PIECES["2026 123"], "en")):
        verdict = check_language("2026 123", pieces, language)
        assert verdict.ok and verdict.detected is None and verdict.script_share == 1.0 and verdict.byte_share == 0
    assert check_language("…!? 12:30 — ¥5", None, "zh").ok
    assert script_counts("2026-11-29, 12:30!") == script_counts("")


def test_emoji_count_for_no_script_but_alone_they_are_mostly_unknown_pieces():
    assert script_counts("😀👍") == script_counts("")
    for pieces, language in ((ZH_PIECES["😀👍"], "zh"), (EN_PIECES["😀👍"], "en")):
        verdict = check_language("😀👍", pieces, language)
        assert verdict.verdict is Verdict.UNKNOWN_PIECES and verdict.detected is None
        assert verdict.unknown_characters == 2 and verdict.byte_share == 1.0  # two characters, not eight bytes
        assert "every input token" in verdict.message
    # One emoji in an English sentence: one unknown character of four units, not four bytes of eight pieces.
    sentence = check_language("Tom is here 😀", EN_PIECES["Tom is here 😀"], "en")
    assert sentence.ok and sentence.unknown_characters == 1 and sentence.byte_share == 0.25


def test_unknown_characters_count_each_character_once_and_skip_the_bare_word_start():
    assert unknown_character_count(["▁", "<0xE4>", "<0xBA>", "<0xAC>", "▁ok"]) == (1, 2)
    assert unknown_character_count(["<0x41>", "<0x42>"]) == (2, 2)  # ASCII byte pieces are one character each
    assert unknown_character_count(["<0xZZ>", "▁"]) == (0, 1)  # not a byte piece: a unit like any other
    assert unknown_character_count([]) == (0, 0)


def test_other_sources_get_the_unknown_character_rule_only():
    assert check_language("29 Nov 2026", ["▁29", "▁Nov", "▁2026"], "dates-src").ok
    assert check_language("二〇二六年十一月", None, "dates-src").ok  # no script rule for the dates task
    emoji = check_language("😀", ["▁", "<0xF0>", "<0x9F>", "<0x98>", "<0x80>"], "dates-src")
    assert emoji.verdict is Verdict.UNKNOWN_PIECES and "model's vocabulary" in emoji.message


SHIPPED_PAIR = all((SHIPPED_MODELS / name).is_dir() for name in ("zh-en-additive", "en-zh-additive"))


@pytest.mark.skipif(not SHIPPED_PAIR, reason="the zh-en and en-zh additive models are not shipped")
def test_the_shipped_tokenizers_give_the_pieces_above():
    from engine.text.tokenizer import Tokenizer

    for folder, table in (("zh-en-additive", ZH_PIECES), ("en-zh-additive", EN_PIECES)):
        tokenizer = Tokenizer((SHIPPED_MODELS / folder / "src.model").read_bytes())
        for text, pieces in table.items():
            assert tokenizer.pieces(tokenizer.encode(text)) == pieces, (folder, text)


@pytest.mark.slow  # loads a model and decodes
@pytest.mark.skipif(not SHIPPED_PAIR, reason="the zh-en model is not shipped")
def test_translate_json_carries_a_warning_for_the_wrong_language_and_null_otherwise(capsys):
    from engine.__main__ import main

    model = str(SHIPPED_MODELS / "zh-en-additive")
    assert main(["translate", "--model", model, "--json", "我喜欢猫。", "I like cats very much.", "😀👍"]) == 0
    chinese, english, emoji = (json.loads(line) for line in capsys.readouterr().out.splitlines())
    assert chinese["warning"] is None and chinese["text"]
    assert english["warning"]["kind"] == "wrong_language" and english["warning"]["detected_language"] == "en"
    assert english["text"] and english["attention"]  # decoded all the same: the warning says what it is worth
    assert emoji["warning"]["kind"] == "unknown_pieces" and emoji["warning"]["byte_share"] == 1.0
    for result in (chinese, english, emoji):  # every field of the contract is still there
        assert {"source", "source_tokens", "tokens", "text", "attention", "score", "empty", "truncated", "notice",
                "forced_steps", "overridden_steps"} <= set(result)
    assert main(["translate", "--model", model, "I like cats"]) == 0
    assert "[warning] the input looks like English" in capsys.readouterr().err
