"""Greedy and beam search on a real (small) dates model."""

import numpy as np
import pytest

from engine.models.bundle import load_model_folder
from engine.settings.config import DecodeConfig

SENTENCES = ["29 Nov 2026", "November 3, 1999", "二〇二六年十一月二十九日", "12/01/75", "the 2nd of May 2030"]


@pytest.fixture(scope="module")
def translator(dates_models):
    return load_model_folder(dates_models["additive"]).translator


@pytest.mark.slow  # a trained model, or the real window
def test_greedy_yields_one_step_per_token_with_a_normalized_attention_row(translator):
    steps = list(translator.steps("29 Nov 2026"))
    prepared = translator.prepare("29 Nov 2026")
    assert steps and steps[-1].is_eos
    for index, step in enumerate(steps):
        assert step.index == index
        assert step.attention.shape == (len(prepared.tokens),)
        assert step.attention.sum() == pytest.approx(1.0, abs=1e-5)
        assert step.scores.shape == step.attention.shape
        # the weights are the softmax of the raw scores
        expected = np.exp(step.scores - step.scores.max())
        assert np.allclose(step.attention, expected / expected.sum(), atol=1e-5)
        assert step.hypothesis_attention.shape == (index + 1, len(prepared.tokens))
        assert step.alternatives[0].token_id == step.token_id
        assert step.alternatives[0].probability == pytest.approx(step.probability, rel=1e-5)
        probabilities = [a.probability for a in step.alternatives]
        assert probabilities == sorted(probabilities, reverse=True)


@pytest.mark.slow  # a trained model, or the real window
def test_translation_attention_has_one_row_per_output_token(translator):
    translation = translator.translate("November 3, 1999")
    assert translation.tokens[-1] == "</s>"
    assert translation.attention.shape == (len(translation.tokens), len(translation.source_tokens))
    assert np.allclose(translation.attention.sum(axis=1), 1.0, atol=1e-5)


@pytest.mark.slow  # a trained model, or the real window
@pytest.mark.parametrize("sentence", SENTENCES)
def test_beam_of_one_is_exactly_greedy(translator, sentence):
    greedy = translator.translate(sentence, DecodeConfig(beam_size=1))
    beam = translator._finish(translator.prepare(sentence), _run_beam(translator, sentence, 1))
    assert beam.tokens == greedy.tokens
    assert np.allclose(beam.attention, greedy.attention, atol=1e-6)
    assert beam.score == pytest.approx(greedy.score, abs=1e-4)


def _run_beam(translator, sentence, size, length_penalty=0.0):
    import torch

    from engine.decoding.beam_search import beam

    prepared = translator.prepare(sentence)
    with torch.no_grad():
        encoded = translator.model.encode(torch.tensor([prepared.ids]), torch.tensor([len(prepared.ids)]))
    generator = beam(translator.model, encoded, 40, translator.target_tokenizer.pieces, size, length_penalty)
    while True:
        try:
            next(generator)
        except StopIteration as stop:
            return stop.value


@pytest.mark.slow  # a trained model, or the real window
@pytest.mark.parametrize("sentence", SENTENCES)
def test_beam_finds_a_score_at_least_as_good_as_greedy(translator, sentence):
    greedy = translator.translate(sentence)
    best = _run_beam(translator, sentence, 5, length_penalty=0.0)
    assert best.log_probability >= greedy.score - 1e-4
    assert best.attention.shape[0] == len(best.token_ids)  # the whole matrix of the chosen hypothesis


@pytest.mark.slow  # a trained model, or the real window
def test_beam_steps_carry_the_current_best_hypothesis(translator):
    steps = list(translator.steps("29 Nov 2026", DecodeConfig(beam_size=4)))
    for index, step in enumerate(steps):
        assert step.index == index
        assert len(step.hypothesis_tokens) == index + 1
        assert step.hypothesis_attention.shape[0] == index + 1


@pytest.mark.slow  # a trained model, or the real window
def test_output_length_is_capped_relative_to_the_input(translator):
    config = DecodeConfig(max_length_ratio=0.5, max_length_extra=1)
    translation = translator.translate("29 Nov 2026", config)
    prepared = translator.prepare("29 Nov 2026")
    assert len(translation.tokens) <= config.max_output_length(len(prepared.ids))


@pytest.mark.slow  # a trained model, or the real window
def test_batched_greedy_matches_one_by_one(translator):
    batched = translator.translate_many(SENTENCES, DecodeConfig(), batch_size=2)
    for sentence, result in zip(SENTENCES, batched, strict=True):
        single = translator.translate(sentence)
        assert result.tokens == single.tokens
        assert np.allclose(result.attention, single.attention, atol=1e-5)


@pytest.mark.slow  # a trained model, or the real window
def test_fixed_context_model_has_no_attention(dates_models):
    translator = load_model_folder(dates_models["none"]).translator
    translation = translator.translate("29 Nov 2026")
    assert translation.attention is None and translation.tokens
    assert all(step.attention is None for step in translation.steps)
    assert translation.to_json()["attention"] is None


@pytest.mark.slow  # a trained model, or the real window
def test_every_step_carries_its_hypothesis_earlier_steps(translator):
    for config in (DecodeConfig(beam_size=1), DecodeConfig(beam_size=4)):
        for step in translator.steps("29 Nov 2026", config):
            assert len(step.previous_steps) == step.index
            assert tuple(s.token for s in step.previous_steps) + (step.token,) == step.hypothesis_tokens
            if step.previous_steps:
                rows = np.stack([s.attention for s in step.previous_steps] + [step.attention])
                assert np.allclose(rows, step.hypothesis_attention)


def test_the_length_penalty_is_gnmts():
    from engine.decoding.search import length_penalty_factor

    assert length_penalty_factor(1, 1.0) == pytest.approx(1.0)
    assert length_penalty_factor(7, 1.0) == pytest.approx(2.0)
    assert length_penalty_factor(7, 0.0) == 1.0
    assert length_penalty_factor(19, 0.5) == pytest.approx(2.0)


def test_beam_search_goes_on_while_a_live_hypothesis_beats_the_finished_ones():
    from engine.decoding.beam_search import _Beam, _search_is_over

    short = _Beam((5, 2), -3.0, 0, ())  # finished early, poor score
    good_live = _Beam((5, 6, 7), -1.0, 0, ())
    poor_live = _Beam((5, 6, 7), -9.0, 0, ())
    assert not _search_is_over([short], [good_live, poor_live], 0.0)
    assert _search_is_over([short], [poor_live], 0.0)
    # With a strong penalty a long live hypothesis is judged by its normalized score.
    assert _search_is_over([_Beam((5, 2), -1.0, 0, ())], [_Beam((5, 6, 7), -1.2, 0, ())], 2.0) is False


@pytest.mark.slow  # a trained model, or the real window
@pytest.mark.parametrize("scorer", ["additive", "none"])
@pytest.mark.parametrize("beam_size, alpha", [(2, 0.0), (5, 1.0), (5, 2.0)])
def test_batched_beam_search_gives_the_one_by_one_outputs(dates_models, scorer, beam_size, alpha):
    from engine.corpus.tasks import dates

    model = load_model_folder(dates_models[scorer]).translator
    sentences = SENTENCES + [p.source for p in dates.dates_split(seed=3, train_size=80, valid_size=1,
                                                                  test_size=1).train[:60]] + ["", "   "]
    config = DecodeConfig(beam_size=beam_size, length_penalty=alpha)
    batched = model.translate_many(sentences, config, batch_size=24)
    for sentence, result in zip(sentences, batched, strict=True):
        single = model.translate(sentence, config)
        assert (result.tokens, result.text, result.empty) == (single.tokens, single.text, single.empty), sentence
        if single.attention is None:
            assert result.attention is None
        else:
            assert np.allclose(result.attention, single.attention, atol=1e-5)
        if not single.empty:
            assert result.score == pytest.approx(single.score, abs=1e-4)
