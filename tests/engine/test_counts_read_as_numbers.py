"""Counts shown to people read as numbers: a huge target-token count in the progress line is in billions,
and the long-input note separates thousands (\"of 2,934 sub-word tokens\")."""

from __future__ import annotations

from engine.files.paths import PROJECT_ROOT
from engine.models.bundle import load_model_folder
from engine.text.readable import format_tokens


def test_a_huge_token_count_is_given_in_billions() -> None:
    assert (format_tokens(740), format_tokens(950_400), format_tokens(38_240_000)) == ("740", "950 k", "38.2 M")
    assert format_tokens(2_500_000_000) == "2.5 G"
    assert format_tokens(10**15) == "1,000,000.0 G"


def test_the_long_input_note_separates_thousands() -> None:
    translator = load_model_folder(PROJECT_ROOT / "resources" / "models" / "zh-en-dot").translator
    prepared = translator.prepare("龘齉靐" * 333)  # rare characters: several byte pieces each
    tokens = len(translator.source_tokenizer.encode(prepared.normalized))
    assert tokens >= 1_000
    assert f"of {tokens:,} sub-word tokens" in prepared.notice and "first 200 of" in prepared.notice
