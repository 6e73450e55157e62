"""Bad input never crashes: empty, huge, odd scripts, control characters."""

import time

import pytest

from engine.models.bundle import load_model_folder
from engine.settings.config import MAX_INPUT_CHARS, MAX_SOURCE_TOKENS


@pytest.fixture(scope="module")
def translator(dates_models):
    return load_model_folder(dates_models["additive"]).translator


@pytest.mark.slow  # a trained model, or the real window
@pytest.mark.parametrize("text", ["", "   \t  ", "\u200b\u200c\u200d\ufeff", "\n\r\n"])
def test_empty_input_is_a_typed_result_not_an_exception(translator, text):
    translation = translator.translate(text)
    assert translation.empty
    assert translation.tokens == () and translation.text == ""
    assert "empty" in translation.notice
    assert list(translator.steps(text)) == []


@pytest.mark.slow  # a trained model, or the real window
def test_ten_thousand_characters_are_truncated_and_finish_in_bounded_time(translator):
    started = time.perf_counter()
    translation = translator.translate("29 Nov 2026 " * 900)
    assert time.perf_counter() - started < 20
    assert translation.truncated and "truncated" in translation.notice
    assert len(translation.source_tokens) <= MAX_SOURCE_TOKENS
    assert translator.prepare("x" * 10_000).normalized == "x" * MAX_INPUT_CHARS or translator.prepare(
        "x" * 10_000).truncated


@pytest.mark.slow  # a trained model, or the real window
@pytest.mark.parametrize("text", ["😀🎉 29 Nov", "مرحبا بالعالم", "a\x00b\x07c", "\u202e2026\u202c 11 29",
                                  "Ωμέγα ∑ ∫", "\U0001F600" * 5])
def test_odd_scripts_and_control_characters_translate_without_crashing(translator, text):
    translation = translator.translate(text)
    assert not translation.empty
    assert translation.tokens
    assert translation.attention.shape == (len(translation.tokens), len(translation.source_tokens))
    assert "\x00" not in "".join(translation.source_tokens)


@pytest.mark.slow  # a trained model, or the real window
def test_unknown_characters_become_visible_byte_pieces(translator):
    prepared = translator.prepare("😀")
    assert any(token.startswith("<0x") for token in prepared.tokens)
