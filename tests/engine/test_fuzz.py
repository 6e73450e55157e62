"""Property-based tests of the text path: whatever a user can type, paste or put in a file —
arbitrary Unicode, lone surrogates, raw bytes — gives a result or a one-line engine error, never an
exception of another kind."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.corpus import preview, read_tsv
from engine.models.bundle import load_model_folder
from engine.settings.errors import EngineError
from engine.text.normalization import normalize

pytestmark = pytest.mark.slow  # trains a model, opens the real window, runs a subprocess or fuzzes many cases

# Every code point, lone surrogates included (Hypothesis leaves category Cs out by default).
ANY_TEXT = st.text(alphabet=st.characters(min_codepoint=0, max_codepoint=0x10FFFF, exclude_categories=()),
                   max_size=300)
FUZZ = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


@FUZZ
@given(text=ANY_TEXT, language=st.sampled_from(["en", "zh"]))
def test_normalization_returns_encodable_text_for_any_input(text, language):
    normalized = normalize(text, language)
    normalized.encode("utf-8")  # no lone surrogate survives
    assert normalized == normalized.strip() and "  " not in normalized


@pytest.fixture(scope="module")
def translator(dates_models):
    return load_model_folder(dates_models["additive"]).translator


@FUZZ
@given(text=ANY_TEXT)
def test_tokenizing_and_translating_any_text_gives_a_result(translator, text):
    prepared = translator.prepare(text)
    assert len(prepared.ids) == len(prepared.tokens)
    if len(text) < 60:  # decoding is the slow part: a shorter sample of it
        translation = translator.translate(text)
        assert translation.empty == prepared.empty
        translation.text.encode("utf-8")


@FUZZ
@given(data=st.binary(max_size=2000))
def test_reading_any_bytes_as_a_corpus_gives_pairs_or_a_one_line_reason(tmp_path_factory, data):
    path: Path = tmp_path_factory.mktemp("fuzz") / "corpus.tsv"
    path.write_bytes(data)
    try:
        pairs, report = read_tsv(path)
    except EngineError as error:
        assert "\n" not in str(error)
    else:
        assert report.lines_read >= len(pairs)
    try:
        preview(path)
    except EngineError as error:
        assert "\n" not in str(error)


@FUZZ
@given(lines=st.lists(st.tuples(ANY_TEXT, ANY_TEXT), max_size=20))
def test_reading_any_text_lines_as_a_corpus_never_raises_anything_else(tmp_path_factory, lines):
    path: Path = tmp_path_factory.mktemp("fuzz") / "corpus.tsv"
    raw = "".join(f"{a}\t{b}\n" for a, b in lines).encode("utf-8", "surrogatepass")
    path.write_bytes(raw)
    try:
        read_tsv(path)
    except EngineError as error:
        assert "\n" not in str(error)
