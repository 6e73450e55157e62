"""Forced decoding: a given target scored by a model, step by step."""

import json

import numpy as np
import pytest

from engine.decoding.forced import ForcedTargetError, force_decode, force_decode_ids
from engine.models.bundle import load_model_folder

pytestmark = pytest.mark.slow  # trains a model, opens the real window, runs a subprocess or fuzzes many cases

SENTENCES = ["29 Nov 2026", "November 3, 1999", "二〇二六年十一月二十九日", "the 2nd of May 2030"]


@pytest.mark.parametrize("scorer", ["additive", "dot", "none"])
def test_forcing_a_models_own_greedy_output_reproduces_its_attention_and_log_probability(dates_models, scorer):
    bundle = load_model_folder(dates_models[scorer])
    for sentence in SENTENCES:
        free = bundle.translator.translate(sentence)
        forced = force_decode_ids(bundle.translator, sentence, [step.token_id for step in free.steps])
        assert forced.tokens == free.tokens and forced.target == free.text
        if free.attention is None:
            assert forced.attention is None and forced.scores is None
        else:
            assert np.array_equal(forced.attention, free.attention)
            assert np.array_equal(forced.scores, free.scores)
        assert forced.log_probability == free.score
        assert np.isclose(np.log(forced.probabilities).sum(), forced.log_probability, atol=1e-4)


def test_the_batched_output_layer_keeps_the_attention_exact_and_the_log_probability_to_rounding(dates_models):
    translator = load_model_folder(dates_models["additive"]).translator
    exact = force_decode(translator, "29 Nov 2026", "1999-01-01", "iso")
    batched = force_decode(translator, "29 Nov 2026", "1999-01-01", "iso", batched_output=True)
    assert batched.tokens == exact.tokens
    assert np.array_equal(batched.attention, exact.attention) and np.array_equal(batched.scores, exact.scores)
    assert np.allclose(batched.probabilities, exact.probabilities, rtol=1e-5, atol=1e-7)
    assert batched.log_probability == pytest.approx(exact.log_probability, rel=1e-5, abs=1e-5)


def test_forcing_a_target_on_the_sentence_just_decoded_reuses_its_encoder_output_to_the_same_numbers(
        dates_models, monkeypatch):
    translator = load_model_folder(dates_models["additive"]).translator
    fresh = force_decode(translator, "29 Nov 2026", "1999-01-01", "iso")  # nothing decoded yet: encoded now
    translator.translate("29 Nov 2026")
    encodings = []
    encode = translator.model.encode
    monkeypatch.setattr(translator.model, "encode", lambda *args: encodings.append(args) or encode(*args))
    reused = force_decode(translator, "29 Nov 2026", "1999-01-01", "iso")
    assert encodings == []  # the decode's own encoder output
    assert np.array_equal(reused.attention, fresh.attention) and reused.log_probability == fresh.log_probability
    force_decode(translator, "3 May 1999", "1999-01-01", "iso")
    assert len(encodings) == 1  # another sentence is encoded afresh


def test_any_target_gets_one_row_per_token_and_a_lower_score_than_the_models_choice(dates_models):
    translator = load_model_folder(dates_models["additive"]).translator
    free = translator.translate("29 Nov 2026")
    forced = force_decode(translator, "29 Nov 2026", "1999-01-01", "iso")
    assert forced.attention.shape == (len(forced.tokens), len(forced.source_tokens))
    assert np.allclose(forced.attention.sum(axis=1), 1.0, atol=1e-5)
    assert forced.log_probability < free.score
    result = json.loads(json.dumps(forced.to_json()))
    assert result["forced"] is True and len(result["probabilities"]) == len(result["tokens"])


def test_empty_long_and_out_of_vocabulary_targets_are_answered_clearly(dates_models):
    translator = load_model_folder(dates_models["additive"]).translator
    with pytest.raises(ForcedTargetError, match="target is empty"):
        force_decode(translator, "29 Nov 2026", " \u200b ", "iso")
    with pytest.raises(ForcedTargetError, match="at most 200"):
        force_decode(translator, "29 Nov 2026", "1999-01-01 " * 60, "iso")
    with pytest.raises(ForcedTargetError, match="source is empty"):
        force_decode(translator, "  ", "1999-01-01", "iso")
    emoji = force_decode(translator, "29 Nov 2026", "2026-11-29 🙂", "iso")
    assert "byte piece" in emoji.notice and any(t.startswith("<0x") for t in emoji.tokens)
