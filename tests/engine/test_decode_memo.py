"""Continuing a what-if decode from the last decode of the same sentence (engine.decoding.decode_memo)."""

import numpy as np
import pytest

from engine.decoding.search import Steering
from engine.models.bundle import load_model_folder

SENTENCE = "29 Nov 2026"


def _counting(translator, monkeypatch) -> dict[str, int]:
    """Count the encoder runs and the decoder steps of ``translator``'s model."""
    calls = {"encode": 0, "step": 0}
    model = translator.model
    encode, step = model.encode, model.decoder.step

    def counted_encode(*args, **kwargs):
        calls["encode"] += 1
        return encode(*args, **kwargs)

    def counted_step(*args, **kwargs):
        calls["step"] += 1
        return step(*args, **kwargs)

    monkeypatch.setattr(model, "encode", counted_encode)
    monkeypatch.setattr(model.decoder, "step", counted_step)
    return calls


def _assert_same_decode(first, second) -> None:
    assert first.tokens == second.tokens
    assert first.score == second.score  # the same operations on the same values
    assert [s.forced for s in first.steps] == [s.forced for s in second.steps]
    if first.attention is None:
        assert second.attention is None
    else:
        assert np.array_equal(first.attention, second.attention)


@pytest.mark.slow  # a trained model, or the real window
@pytest.mark.parametrize("scorer", ["additive", "none"])
def test_an_alternative_at_step_i_costs_the_steps_from_i_on_and_gives_what_a_fresh_decode_gives(
        dates_models, scorer, monkeypatch):
    translator = load_model_folder(dates_models[scorer]).translator
    fresh = load_model_folder(dates_models[scorer]).translator  # no memo: everything recomputed
    free = translator.translate(SENTENCE)
    cut = len(free.steps) // 2
    alternative = next(a.token_id for a in free.steps[cut].alternatives if a.token_id != free.steps[cut].token_id)
    steering = Steering(prefix=tuple(s.token_id for s in free.steps[:cut]) + (alternative,))
    calls = _counting(translator, monkeypatch)
    steered = translator.translate(SENTENCE, steering=steering)
    assert calls["encode"] == 0  # the encoder output of the same sentence is reused
    assert calls["step"] == len(steered.steps) - cut  # the first ``cut`` steps come from the memo
    _assert_same_decode(steered, fresh.translate(SENTENCE, steering=steering))
    assert steered.steps[cut].token_id == alternative and all(s.forced for s in steered.steps[: cut + 1])
    assert steered.steps[cut - 1].previous_steps == steered.steps[: cut - 1]


@pytest.mark.slow  # a trained model, or the real window
def test_an_override_is_never_taken_from_a_decode_that_did_not_have_it(dates_models, monkeypatch):
    translator = load_model_folder(dates_models["additive"]).translator
    fresh = load_model_folder(dates_models["additive"]).translator
    free = translator.translate(SENTENCE)
    own = tuple(s.token_id for s in free.steps)
    one_hot = np.zeros(len(free.source_tokens), dtype=np.float32)
    one_hot[0] = 1.0
    # Attention set by hand at step 1 of a prefix that repeats the free decode: steps from 1 on are recomputed.
    steering = Steering(prefix=own[:3], overrides={1: one_hot})
    calls = _counting(translator, monkeypatch)
    steered = translator.translate(SENTENCE, steering=steering)
    assert calls["step"] == len(steered.steps) - 1
    assert steered.steps[1].overridden and steered.steps[1].attention[0] == 1.0
    _assert_same_decode(steered, fresh.translate(SENTENCE, steering=steering))
    # The same question again reuses the override's decode (it is now the memo), the override included.
    calls["step"] = 0
    again = translator.translate(SENTENCE, steering=steering)
    assert calls["step"] == len(again.steps) - 3
    _assert_same_decode(again, steered)


@pytest.mark.slow  # a trained model, or the real window
def test_another_sentence_or_a_beam_search_starts_afresh(dates_models, monkeypatch):
    translator = load_model_folder(dates_models["additive"]).translator
    free = translator.translate(SENTENCE)
    calls = _counting(translator, monkeypatch)
    translator.translate("3 May 1999", steering=Steering(prefix=(free.steps[0].token_id,)))
    assert calls["encode"] == 1
    from engine.settings.config import DecodeConfig

    beamed = translator.translate(SENTENCE, DecodeConfig(beam_size=3), Steering(prefix=(free.steps[0].token_id,)))
    assert beamed.steps[0].forced and calls["encode"] == 2
