"""The five scorers: shapes, masking, normalization, gradients, parameters."""

import pytest
import torch

from engine.attention import SCORERS, attend, build_scorer
from engine.errors import ConfigError

ATTENDING = [name for name, cls in SCORERS.items() if cls.uses_attention]


def _batch(batch=3, length=7, size=16):
    torch.manual_seed(0)
    memory = torch.randn(batch, length, size)
    lengths = torch.tensor([7, 4, 1])
    mask = torch.arange(length).unsqueeze(0) < lengths.unsqueeze(1)
    return memory, mask, torch.randn(batch, size)


@pytest.mark.parametrize("name", ATTENDING)
def test_scores_weights_and_context_have_the_documented_shapes(name):
    scorer = build_scorer(name, 16, 8)
    memory, mask, query = _batch()
    keys = scorer.precompute_keys(memory)
    scores = scorer.score(query, keys)
    weights, context = attend(scores, mask, memory)
    assert scores.shape == (3, 7)
    assert weights.shape == (3, 7)
    assert context.shape == (3, 16)


@pytest.mark.parametrize("name", ATTENDING)
def test_padding_gets_exactly_zero_weight_and_rows_sum_to_one(name):
    scorer = build_scorer(name, 16, 8)
    memory, mask, query = _batch()
    weights, _ = attend(scorer.score(query, scorer.precompute_keys(memory)), mask, memory)
    assert torch.all(weights[~mask] == 0.0)
    assert torch.allclose(weights.sum(dim=1), torch.ones(3), atol=1e-6)
    assert float(weights[2, 0].detach()) == pytest.approx(1.0)  # a one-token sentence attends only to it


@pytest.mark.parametrize("name", ATTENDING)
def test_context_is_the_weighted_sum_of_the_memory(name):
    scorer = build_scorer(name, 16, 8)
    memory, mask, query = _batch()
    weights, context = attend(scorer.score(query, scorer.precompute_keys(memory)), mask, memory)
    expected = (weights.unsqueeze(2) * memory).sum(dim=1)
    assert torch.allclose(context, expected, atol=1e-6)


@pytest.mark.parametrize("name", ATTENDING)
def test_gradients_reach_every_scorer_parameter(name):
    scorer = build_scorer(name, 16, 8)
    memory, mask, query = _batch()
    memory.requires_grad_(True)
    query.requires_grad_(True)
    _, context = attend(scorer.score(query, scorer.precompute_keys(memory)), mask, memory)
    context.pow(2).sum().backward()
    for parameter in scorer.parameters():
        assert parameter.grad is not None and parameter.grad.abs().sum() > 0
    assert query.grad.abs().sum() > 0


def test_dot_and_scaled_dot_have_no_parameters_and_differ_by_the_scale():
    memory, _, query = _batch()
    dot, scaled = build_scorer("dot", 16, 8), build_scorer("scaled_dot", 16, 8)
    assert list(dot.parameters()) == [] and list(scaled.parameters()) == []
    dot_scores = dot.score(query, dot.precompute_keys(memory))
    scaled_scores = scaled.score(query, scaled.precompute_keys(memory))
    assert torch.allclose(scaled_scores, dot_scores / 4.0, atol=1e-6)  # √16 = 4


def test_additive_and_bilinear_compute_their_formulas():
    memory, _, query = _batch()
    additive = build_scorer("additive", 16, 8)
    expected = torch.tanh(additive.query_layer(query).unsqueeze(1) + additive.key_layer(memory))
    expected = (expected @ additive.energy_layer.weight.squeeze(0))
    assert torch.allclose(additive.score(query, additive.precompute_keys(memory)), expected, atol=1e-6)
    bilinear = build_scorer("bilinear", 16, 8)
    expected = torch.einsum("bd,de,bse->bs", query, bilinear.key_layer.weight, memory)
    assert torch.allclose(bilinear.score(query, bilinear.precompute_keys(memory)), expected, atol=1e-5)


def test_fixed_context_scorer_has_no_scores():
    scorer = build_scorer("none", 16, 8)
    assert not scorer.uses_attention
    with pytest.raises(ConfigError):
        scorer.score(torch.zeros(1, 16), torch.zeros(1, 0, 16))


def test_unknown_scorer_names_the_valid_ones():
    with pytest.raises(ConfigError, match="additive, bilinear, dot, scaled_dot, none"):
        build_scorer("cosine", 16, 8)


@pytest.mark.parametrize("name", ATTENDING)
def test_a_training_temperature_softens_only_the_unscaled_scorers(name):
    scorer = build_scorer(name, 16, 8)
    memory, mask, query = _batch()
    keys = scorer.precompute_keys(memory)
    plain = scorer.score(query, keys).detach()
    scorer.set_training_temperature(4.0)
    warmed = scorer.score(query, keys).detach()
    if name in ("dot", "bilinear"):
        assert scorer.unscaled
        assert torch.allclose(warmed, plain / 4.0)
    else:
        assert not scorer.unscaled and torch.equal(warmed, plain)
    scorer.set_training_temperature(1.0)
    assert torch.equal(scorer.score(query, keys).detach(), plain)


def test_the_scaled_dot_scorer_is_the_dot_scorer_at_temperature_root_d():
    dot, scaled = build_scorer("dot", 16, 8), build_scorer("scaled_dot", 16, 8)
    memory, _, query = _batch()
    dot.set_training_temperature(4.0)  # √16
    assert torch.allclose(dot.score(query, dot.precompute_keys(memory)),
                          scaled.score(query, scaled.precompute_keys(memory)), atol=1e-6)


def test_the_scorer_classes_and_the_torch_free_table_agree():
    from engine.attention import SCORERS
    from engine.scorer_table import SCORER_TABLE

    assert list(SCORERS) == list(SCORER_TABLE)
    for name, scorer in SCORERS.items():
        info = SCORER_TABLE[name]
        assert (scorer.label, scorer.formula, scorer.unscaled, scorer.uses_attention) == (
            info.label, info.formula, info.unscaled, info.uses_attention)
