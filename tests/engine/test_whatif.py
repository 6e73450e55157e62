"""What-if decoding: a forced prefix the model continues, and attention set by hand."""

import json

import numpy as np
import pytest

from engine.__main__ import main
from engine.decoding.forced import force_decode
from engine.decoding.whatif import SteeringError, make_steering, parse_override
from engine.models.bundle import load_model_folder
from engine.settings.config import DecodeConfig

pytestmark = pytest.mark.slow  # trains a model, opens the real window, runs a subprocess or fuzzes many cases

SENTENCE = "29 Nov 2026"


@pytest.fixture(scope="module")
def bundle(dates_models):
    return load_model_folder(dates_models["additive"])


def _steer(bundle, prefix="", overrides=None):
    prepared = bundle.translator.prepare(SENTENCE)
    return prepared, make_steering(bundle.translator, prepared, bundle.target_language, prefix, overrides)


@pytest.mark.parametrize("beam_size", [1, 3])
def test_a_prefix_of_the_models_own_output_changes_nothing_but_the_forced_marks(bundle, beam_size):
    config = DecodeConfig(beam_size=beam_size)
    free = bundle.translator.translate(SENTENCE, config)
    prefix_text = bundle.translator.target_tokenizer.decode(
        bundle.translator.target_tokenizer.encode(free.text)[:3])
    prepared, steering = _steer(bundle, prefix_text)
    steered = bundle.translator.translate(prepared, config, steering)
    assert steered.tokens == free.tokens
    assert [s.forced for s in steered.steps] == [i < len(steering.prefix) for i in range(len(steered.steps))]


def test_the_model_continues_from_a_corrected_prefix(bundle):
    prepared, steering = _steer(bundle, "1999-")
    steered = bundle.translator.translate(prepared, DecodeConfig(), steering)
    assert steered.text.startswith("1999-")
    assert tuple(s.token_id for s in steered.steps[: len(steering.prefix)]) == steering.prefix
    assert steered.score == pytest.approx(sum(np.log(s.probability) for s in steered.steps), abs=1e-4)
    # The model's own continuation is what forced decoding of the whole output gives, step for step.
    forced = force_decode(bundle.translator, SENTENCE, steered.text, bundle.target_language)
    if forced.tokens == steered.tokens:  # the same sub-word cut of the whole text
        assert steered.score == pytest.approx(forced.log_probability, abs=1e-4)
    assert json.loads(json.dumps(steered.to_json()))["forced_steps"] == list(range(len(steering.prefix)))


def test_overriding_attention_with_the_models_own_weights_changes_nothing(bundle):
    free = bundle.translator.translate(SENTENCE)
    prepared, steering = _steer(bundle, overrides={2: free.attention[2]})
    steered = bundle.translator.translate(prepared, DecodeConfig(), steering)
    assert steered.tokens == free.tokens
    assert np.allclose(steered.attention, free.attention, atol=1e-6)
    assert steered.steps[2].overridden and not steered.steps[1].overridden


def test_a_one_hot_override_sets_alpha_and_keeps_the_models_own_for_comparison(bundle):
    free = bundle.translator.translate(SENTENCE)
    last = len(bundle.translator.prepare(SENTENCE).ids) - 1
    prepared, steering = _steer(bundle, overrides={0: {last: 1.0}})
    steered = bundle.translator.translate(prepared, DecodeConfig(), steering)
    step = steered.steps[0]
    assert step.overridden and step.attention[last] == 1.0 and step.attention.sum() == pytest.approx(1.0)
    assert np.allclose(step.model_attention, free.attention[0], atol=1e-6)
    assert steered.to_json()["overridden_steps"] == [0]


def test_weights_over_several_tokens_are_renormalized_and_bad_ones_refused(bundle, dates_models):
    _, steering = _steer(bundle, overrides={1: {0: 2.0, 1: 2.0}})
    assert steering.overrides[1][:2].tolist() == [0.5, 0.5]
    for bad, reason in (({1: {99: 1.0}}, "outside"), ({1: {0: -1.0}}, "not negative"), ({1: {0: 0.0}}, "all be zero"),
                        ({1: [1.0]}, "needs")):
        with pytest.raises(SteeringError, match=reason):
            _steer(bundle, overrides=bad)
    none = load_model_folder(dates_models["none"])
    with pytest.raises(SteeringError, match="no attention to override"):
        make_steering(none.translator, none.translator.prepare(SENTENCE), none.target_language, "", {0: {0: 1.0}})
    assert parse_override("3:1=0.5,2=0.5") == (3, {1: 0.5, 2: 0.5})
    with pytest.raises(SteeringError, match="STEP:POSITION"):
        parse_override("three")


def test_the_command_line_marks_forced_and_overridden_steps(dates_models, capsys):
    model = str(dates_models["additive"])
    assert main(["translate", "--model", model, "--json", "--prefix", "1999", "--attend", "5:0", SENTENCE]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["text"].startswith("1999") and result["forced_steps"] and result["overridden_steps"] == [5]
    assert main(["translate", "--model", str(dates_models["none"]), "--attend", "0:0", SENTENCE]) == 2
    assert "no attention to override" in capsys.readouterr().err
