"""The attention contract and every mechanism of the registry: shapes, masking, normalization,
the context, gradients, parameters, and the registry itself."""

import math

import pytest
import torch

from engine.networks.attention import SCORERS, Attention, build_scorer, masked_softmax
from engine.networks.model import Encoded
from engine.settings.config import ModelShape
from engine.settings.errors import ConfigError
from engine.settings.scorer_table import RNN_SCORER_NAMES, SCORER_TABLE

ATTENDING = [name for name, cls in SCORERS.items() if cls.uses_attention]
MULTI_HEAD = [name for name in ATTENDING if SCORER_TABLE[name].heads > 1]


def _batch(batch=3, length=7, size=16):
    torch.manual_seed(0)
    memory = torch.randn(batch, length, size)
    lengths = torch.tensor([7, 4, 1])
    mask = torch.arange(length).unsqueeze(0) < lengths.unsqueeze(1)
    return memory, mask, torch.randn(batch, size)


def _source(scorer, memory, mask) -> Encoded:
    """What a decoder step reads: the memory, its mask, the scorer's keys and a summary C."""
    return Encoded(memory, mask, scorer.precompute_keys(memory), scorer.precompute_values(memory),
                   memory.mean(dim=1), ())


@pytest.mark.parametrize("name", ATTENDING)
def test_weights_scores_and_context_have_the_documented_shapes(name):
    scorer = build_scorer(name, 16, 8)
    memory, mask, query = _batch()
    attention = scorer.attend(query, _source(scorer, memory, mask))
    heads = SCORER_TABLE[name].heads
    assert attention.weights.shape == attention.scores.shape == (3, heads, 7) and attention.heads == heads
    assert attention.context.shape == (3, 16)
    assert attention.row_weights().shape == attention.row_scores().shape == (3, 7)


@pytest.mark.parametrize("name", ATTENDING)
def test_padding_gets_exactly_zero_weight_and_every_row_sums_to_one(name):
    scorer = build_scorer(name, 16, 8)
    memory, mask, query = _batch()
    attention = scorer.attend(query, _source(scorer, memory, mask))
    for weights in (attention.weights, attention.row_weights().unsqueeze(1)):  # each head's, and the shown row
        assert torch.all(weights.masked_select(~mask.unsqueeze(1)) == 0.0)
        assert torch.allclose(weights.sum(dim=2), torch.ones(3, weights.size(1)), atol=1e-6)
        assert torch.allclose(weights[2, :, 0], torch.ones(weights.size(1)))  # a one-token sentence attends only to it


@pytest.mark.parametrize("name", ATTENDING)
def test_the_shown_scores_give_the_shown_row_through_the_softmax(name):
    scorer = build_scorer(name, 16, 8)
    memory, mask, query = _batch()
    attention = scorer.attend(query, _source(scorer, memory, mask))
    shown, _ = masked_softmax(attention.row_scores().unsqueeze(1), mask)
    assert torch.allclose(shown.squeeze(1), attention.row_weights(), atol=1e-6)
    if SCORER_TABLE[name].heads == 1:
        assert torch.equal(attention.row_scores(), attention.scores[:, 0])  # the raw e_ij themselves


@pytest.mark.parametrize("name", [n for n in ATTENDING if SCORER_TABLE[n].heads == 1])
def test_a_one_head_context_is_the_weighted_sum_of_the_memory(name):
    scorer = build_scorer(name, 16, 8)
    memory, mask, query = _batch()
    attention = scorer.attend(query, _source(scorer, memory, mask))
    expected = (attention.row_weights().unsqueeze(2) * memory).sum(dim=1)
    assert torch.allclose(attention.context, expected, atol=1e-6)


@pytest.mark.parametrize("name", ATTENDING)
def test_mixing_the_mechanisms_own_weights_gives_its_context(name):
    scorer = build_scorer(name, 16, 8)
    memory, mask, query = _batch()
    source = _source(scorer, memory, mask)
    attention = scorer.attend(query, source)
    assert torch.allclose(scorer.mix(attention.weights, source), attention.context, atol=1e-6)


@pytest.mark.parametrize("name", ATTENDING)
def test_gradients_reach_every_scorer_parameter(name):
    scorer = build_scorer(name, 16, 8)
    memory, mask, query = _batch()
    memory.requires_grad_(True)
    query.requires_grad_(True)
    scorer.attend(query, _source(scorer, memory, mask)).context.pow(2).sum().backward()
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


def test_multi_head_attention_computes_vaswanis_formulas_head_by_head():
    memory, mask, query = _batch()
    scorer = build_scorer("multihead", 16, 8)
    attention = scorer.attend(query, _source(scorer, memory, mask))
    heads, size = 4, 4  # 16 = 4 heads of 4
    w_q, w_k, w_v, w_o = (layer.weight for layer in (scorer.query_layer, scorer.key_layer, scorer.value_layer,
                                                       scorer.output_layer))
    per_head = []
    for h in range(heads):
        rows = slice(h * size, (h + 1) * size)
        q = query @ w_q[rows].T  # B×d
        k = memory @ w_k[rows].T  # B×S×d
        v = memory @ w_v[rows].T  # B×S×d
        scores = torch.einsum("bd,bsd->bs", q, k) / math.sqrt(size)
        assert torch.allclose(attention.scores[:, h], scores, atol=1e-5)
        alpha = torch.softmax(scores.masked_fill(~mask, float("-inf")), dim=1)
        assert torch.allclose(attention.weights[:, h], alpha, atol=1e-6)
        per_head.append(torch.einsum("bs,bsd->bd", alpha, v))
    assert torch.allclose(attention.context, torch.cat(per_head, dim=1) @ w_o.T, atol=1e-5)
    assert torch.allclose(attention.row_weights(), attention.weights.mean(dim=1))
    assert not torch.allclose(attention.weights[:, 0], attention.weights[:, 1])  # the heads attend differently


def test_a_multi_head_decoder_size_must_split_into_its_heads():
    with pytest.raises(ConfigError, match="multiple of 4"):
        build_scorer("multihead", 18, 8)
    with pytest.raises(ConfigError, match="decoder_hidden_size must be a multiple of 4"):
        ModelShape(scorer="multihead", decoder_hidden_size=18)
    assert ModelShape(scorer="additive", decoder_hidden_size=18).decoder_hidden_size == 18  # one head: any size


def test_fixed_context_scorer_has_no_scores_and_attends_to_the_summary():
    scorer = build_scorer("none", 16, 8)
    assert not scorer.uses_attention
    with pytest.raises(ConfigError):
        scorer.score(torch.zeros(1, 16), torch.zeros(1, 0, 16))
    memory, mask, query = _batch()
    source = _source(scorer, memory, mask)
    attention = scorer.attend(query, source)
    assert attention == Attention(None, source.summary, None) and attention.heads == 0
    assert attention.row_weights() is None and attention.row_scores() is None


def test_unknown_scorer_names_the_valid_ones():
    valid = ", ".join(RNN_SCORER_NAMES)
    with pytest.raises(ConfigError, match=f"unknown scorer 'no-such-scorer'; valid: {valid}$"):
        build_scorer("no-such-scorer", 16, 8)
    assert "transformer" not in RNN_SCORER_NAMES  # a model family of its own, not a scorer to build
    with pytest.raises(ConfigError, match="transformer.* is a model of its own"):
        build_scorer("transformer", 16, 8)


@pytest.mark.parametrize("name", ATTENDING)
def test_a_training_temperature_softens_only_the_unscaled_scorers(name):
    scorer = build_scorer(name, 16, 8)
    memory, mask, query = _batch()
    source = _source(scorer, memory, mask)
    plain = scorer.attend(query, source).scores.detach()
    scorer.set_training_temperature(4.0)
    warmed = scorer.attend(query, source).scores.detach()
    if name in ("dot", "bilinear"):
        assert scorer.unscaled
        assert torch.allclose(warmed, plain / 4.0)
    else:
        assert not scorer.unscaled and torch.equal(warmed, plain)
    scorer.set_training_temperature(1.0)
    assert torch.equal(scorer.attend(query, source).scores.detach(), plain)


def test_the_scaled_dot_scorer_is_the_dot_scorer_at_temperature_root_d():
    dot, scaled = build_scorer("dot", 16, 8), build_scorer("scaled_dot", 16, 8)
    memory, _, query = _batch()
    dot.set_training_temperature(4.0)  # √16
    assert torch.allclose(dot.score(query, dot.precompute_keys(memory)),
                          scaled.score(query, scaled.precompute_keys(memory)), atol=1e-6)


def test_the_scorer_classes_and_the_torch_free_table_agree():
    assert list(SCORERS) == list(RNN_SCORER_NAMES) and len(SCORERS) == len(RNN_SCORER_NAMES)
    assert set(SCORER_TABLE) - set(RNN_SCORER_NAMES) == {"transformer"}  # a model family of its own
    assert SCORER_TABLE["transformer"].implementation == "engine.networks.transformer:TransformerSeq2Seq"
    for name, scorer in SCORERS.items():
        info = SCORER_TABLE[name]
        assert (scorer.name, scorer.label, scorer.formula, scorer.unscaled, scorer.uses_attention, scorer.heads) == (
            info.name, info.label, info.formula, info.unscaled, info.uses_attention, info.heads)
        assert info.implementation == f"{scorer.__module__}:{scorer.__qualname__}"


def test_a_registry_row_that_names_the_wrong_class_is_refused(monkeypatch):
    import dataclasses

    from engine.settings import scorer_table

    wrong = dataclasses.replace(SCORER_TABLE["dot"], implementation="engine.networks.attention:AdditiveScorer")
    monkeypatch.setitem(scorer_table.SCORER_TABLE, "dot", wrong)
    with pytest.raises(ConfigError, match="not a Scorer declared with entry='dot'"):
        build_scorer("dot", 16, 8)
