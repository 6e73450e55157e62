"""The Transformer family (engine.networks.transformer): one layer against a reference computation, causal
masking, incremental decoding against full recomputation, what a step reports, set attention, and a
tiny trained model through the same folder, search and refusal contracts as the RNN's."""

import hashlib
import json
import math
import shutil

import numpy as np
import pytest
import torch
import torch.nn.functional as functional
from safetensors.torch import load_file, save_file

from engine.models.bundle import _NoInitialization, load_model_folder
from engine.networks.layer_maps import attention_layers
from engine.networks.model import build_model
from engine.networks.transformer import TransformerSeq2Seq
from engine.networks.transformer_layers import EncoderLayer, MultiHeadAttention
from engine.settings.config import DecodeConfig, ModelConfig, ModelShape, TrainConfig
from engine.settings.errors import ConfigError, ModelFileError
from tests.model_factory import train_tiny_model

HEADS = 4


def _config(**changes) -> ModelConfig:
    settings = dict(scorer="transformer", embedding_size=32, feedforward_size=48, transformer_layers=2,
                    dropout=0.0, tie_embeddings=True, src_vocab_size=40, tgt_vocab_size=30)
    settings.update(changes)
    return ModelConfig(**settings)


def _batch():
    """Two sources (the second padded after 4 tokens) and targets of 6 tokens."""
    generator = torch.Generator().manual_seed(3)
    source = torch.randint(4, 40, (2, 7), generator=generator)
    source[1, 4:] = 0
    target = torch.randint(4, 30, (2, 6), generator=generator)
    return source, (source != 0).sum(1), target


def _reference_attention(layer: MultiHeadAttention, queries, memory, allowed):
    """The seed's formulas per head, written out: e = QKᵀ/√d, α = softmax_j(e), out = W_O [Σ_j α_ij v_j]."""
    d = layer.head_size
    outputs, weights = [], []
    for h in range(layer.heads):
        block = slice(h * d, (h + 1) * d)
        q = queries @ layer.query_layer.weight[block].T + layer.query_layer.bias[block]  # B×T×d
        k = memory @ layer.key_layer.weight[block].T + layer.key_layer.bias[block]  # B×S×d
        v = memory @ layer.value_layer.weight[block].T + layer.value_layer.bias[block]
        e = q @ k.transpose(1, 2) / math.sqrt(d)  # B×T×S
        e = e.masked_fill(~allowed, float("-inf"))
        alpha = torch.softmax(e, dim=-1)
        weights.append(alpha)
        outputs.append(alpha @ v)
    joined = torch.cat(outputs, dim=-1)
    return layer.output_layer(joined), torch.stack(weights, dim=1)


def test_one_encoder_layer_matches_a_reference_computation():
    torch.manual_seed(0)
    layer = EncoderLayer(32, HEADS, 48, 0.0, 0.0, 0.0).eval()
    x = torch.randn(2, 5, 32)
    mask = torch.tensor([[True] * 5, [True, True, True, False, False]])
    allowed = mask[:, None, None, :]
    with torch.no_grad():
        out, weights = layer(x, allowed, need_weights=True)
        fused, none = layer(x, allowed, need_weights=False)
        normed = layer.attention_norm(x)
        attended, expected_weights = _reference_attention(layer.attention, normed, normed, mask[:, None, :])
        middle = x + attended
        inner = torch.relu(layer.feed_forward_norm(middle) @ layer.feed_forward.inner.weight.T
                           + layer.feed_forward.inner.bias)
        expected = middle + inner @ layer.feed_forward.outer.weight.T + layer.feed_forward.outer.bias
    assert none is None
    assert torch.allclose(weights, expected_weights, atol=1e-6)
    assert torch.allclose(out, expected, atol=1e-5)
    assert torch.allclose(fused, expected, atol=1e-5)  # the fused kernel of training computes the same
    assert torch.equal(weights[1, :, :, 3:], torch.zeros(HEADS, 5, 2))  # padding gets exactly 0
    assert torch.allclose(weights.sum(-1), torch.ones(2, HEADS, 5))


def test_a_later_target_token_never_changes_an_earlier_position():
    model = build_model(_config(), seed=1).eval()
    source, lengths, target = _batch()
    changed = target.clone()
    changed[:, 4] = (changed[:, 4] + 1 - 4) % 26 + 4
    with torch.no_grad():
        before, after = model(source, lengths, target), model(source, lengths, changed)
    assert torch.equal(before[:, :4], after[:, :4])
    assert not torch.allclose(before[:, 4:], after[:, 4:])


@pytest.mark.parametrize("positions", ["sinusoidal", "learned"])
@pytest.mark.parametrize("tied", [True, False])
def test_incremental_decoding_equals_full_recomputation(positions, tied):
    model = build_model(_config(positions=positions, tie_embeddings=tied), seed=2).eval()
    source, lengths, target = _batch()
    with torch.no_grad():
        full = torch.log_softmax(model(source, lengths, target), dim=-1)  # B×T×V
        encoded = model.encode(source, lengths)
        state, rows = encoded.initial_state, []
        for i in range(target.size(1)):
            embedded = model.decoder.embedding(target[:, i])
            out = model.decoder.step(embedded, state, encoded)
            state = out.state
            rows.append(torch.log_softmax(model.decoder.logits(out.state[0], out.context, embedded), dim=-1))
    assert torch.allclose(torch.stack(rows, dim=1), full, atol=1e-5)
    assert len(state) == 1 + 2 * 2  # x_i, then each layer's keys and values
    assert all(cache.shape == (2, HEADS, target.size(1), 8) for cache in state[1:])  # B×H×t×d: a position a step


def test_a_step_reports_every_layer_and_head_and_its_causal_self_attention():
    model = build_model(_config(), seed=3).eval()
    source, lengths, target = _batch()
    with torch.no_grad():
        encoded = model.encode(source, lengths)
        state = encoded.initial_state
        for i in range(3):
            out = model.decoder.step(model.decoder.embedding(target[:, i]), state, encoded)
            state = out.state
    assert encoded.self_attention.shape == (2, 2, HEADS, 7, 7)
    assert out.layer_weights.shape == (2, 2, HEADS, 7) and out.head_weights.shape == (2, HEADS, 7)
    assert torch.equal(out.head_weights, out.layer_weights[:, -1])
    assert torch.allclose(out.weights, out.head_weights.mean(1))
    assert torch.allclose(out.scores.exp(), out.weights, atol=1e-6)  # log of the shown mean row
    assert torch.equal(out.layer_weights[1, :, :, 4:], torch.zeros(2, HEADS, 3))  # source padding: exactly 0
    assert out.self_weights.shape == (2, 2, HEADS, 3)  # over y_0..y_2: nothing later exists to attend to
    assert torch.allclose(out.self_weights.sum(-1), torch.ones(2, 2, HEADS))


def test_attention_set_by_hand_replaces_every_head_of_the_last_layer():
    model = build_model(_config(), seed=4).eval()
    source, lengths, _ = _batch()
    override = torch.zeros(2, 7)
    override[:, 2] = 1.0
    with torch.no_grad():
        encoded = model.encode(source, lengths)
        embedded = model.decoder.embedding(torch.tensor([1, 1]))
        own = model.decoder.step(embedded, encoded.initial_state, encoded)
        steered = model.decoder.step(embedded, encoded.initial_state, encoded, override)
        last = model.decoder.layers[-1].cross_attention
        values = encoded.values[:, -1, :, 2]  # B×H×d: every head's value at source position 2
        expected_context = last.output_layer(values.reshape(2, -1))
    assert torch.equal(steered.weights, override)
    assert torch.allclose(steered.model_weights, own.weights)
    assert torch.allclose(steered.context, expected_context, atol=1e-6)
    assert torch.equal(steered.layer_weights[:, 0], own.layer_weights[:, 0])  # the earlier layer is untouched


def test_the_model_size_must_split_into_the_heads_and_the_size_check_counts_it_exactly():
    with pytest.raises(ConfigError, match="embedding_size must be a multiple of 4"):
        ModelShape(scorer="transformer", embedding_size=30)
    config = _config(positions="learned", tie_embeddings=False)
    with torch.device("meta"), _NoInitialization():
        counted = build_model(config).parameter_count()
    assert counted == build_model(config).parameter_count()
    assert isinstance(build_model(config), TransformerSeq2Seq)


def test_the_learning_rate_warms_up_linearly_then_leaves_it_to_the_schedule():
    config = TrainConfig(learning_rate=0.001, warmup_steps=4)
    assert [config.warmup_learning_rate(step) for step in range(5)] == [0.00025, 0.0005, 0.00075, 0.001, None]
    assert TrainConfig().warmup_learning_rate(0) is None  # off by default: the RNN recipe is unchanged


@pytest.fixture(scope="module")
def tiny_transformer(tmp_path_factory):
    return train_tiny_model(tmp_path_factory.mktemp("dates-transformer") / "model", "transformer", epochs=4)


@pytest.mark.slow
def test_a_tiny_trained_transformer_translates_greedily_and_by_beam(tiny_transformer):
    bundle = load_model_folder(tiny_transformer)
    translator = bundle.translator
    greedy = translator.translate("March 3, 1999")
    assert greedy.text == "1999-03-03"
    assert greedy.attention.shape[0] == len(greedy.tokens)
    assert np.allclose(greedy.attention.sum(1), 1.0, atol=1e-5)
    beam = translator.translate("March 3, 1999", DecodeConfig(beam_size=4))
    assert beam.text == "1999-03-03"


@pytest.mark.slow
def test_a_tampered_transformer_folder_is_refused_with_the_reason(tiny_transformer, tmp_path):
    flipped = tmp_path / "flipped"
    shutil.copytree(tiny_transformer, flipped)
    data = bytearray((flipped / "model.safetensors").read_bytes())
    data[-5] ^= 0x10
    (flipped / "model.safetensors").write_bytes(bytes(data))
    with pytest.raises(ModelFileError, match="sha256"):
        load_model_folder(flipped)

    missing = tmp_path / "missing-layer"
    shutil.copytree(tiny_transformer, missing)
    tensors = load_file(missing / "model.safetensors")
    dropped = next(name for name in tensors if name.startswith("decoder.layers.1.cross_attention.key_layer"))
    del tensors[dropped]
    save_file(tensors, missing / "model.safetensors")
    info = json.loads((missing / "config.json").read_text())
    info["weights"]["sha256"] = hashlib.sha256((missing / "model.safetensors").read_bytes()).hexdigest()
    (missing / "config.json").write_text(json.dumps(info))
    with pytest.raises(ModelFileError, match=dropped.replace(".", r"\.")):
        load_model_folder(missing)


def test_fused_and_explicit_attention_agree_with_a_causal_mask():
    torch.manual_seed(5)
    attention = MultiHeadAttention(32, HEADS, 0.0).eval()
    x = torch.randn(2, 6, 32)
    keys, values = attention.keys_values(x)
    causal = torch.ones(6, 6, dtype=torch.bool).tril()
    with torch.no_grad():
        fused, _, _ = attention(x, keys, values, causal)
        explicit, weights, _ = attention(x, keys, values, causal, need_weights=True)
        reference = functional.scaled_dot_product_attention(
            attention.split(attention.query_layer(x)), keys, values, is_causal=True)
    assert torch.allclose(fused, explicit, atol=1e-6)
    assert torch.equal(weights.triu(1), torch.zeros_like(weights))  # no weight on a later position
    assert torch.allclose(attention.output_layer(reference.transpose(1, 2).reshape(2, 6, 32)), fused, atol=1e-6)


@pytest.mark.slow
@pytest.mark.parametrize("beam_size", [1, 3])
def test_a_translation_carries_every_layer_and_head_for_the_model_view(tiny_transformer, beam_size):
    translator = load_model_folder(tiny_transformer).translator
    translation = translator.translate("12 February 1987", DecodeConfig(beam_size=beam_size))
    maps = attention_layers(translation.source_tokens, translation.tokens, translation.encoder_attention,
                            translation.steps)
    source, output = len(translation.source_tokens), len(translation.tokens)
    assert (maps.layers, maps.heads) == (2, HEADS)
    assert maps.encoder.shape == (2, HEADS, source, source) and maps.cross.shape == (2, HEADS, output, source)
    assert maps.decoder.shape == (2, HEADS, output, output)
    assert np.allclose(maps.map("cross", 1, None), translation.attention, atol=1e-6)  # the main map: last, mean
    assert np.allclose(np.triu(maps.decoder, 1), 0.0)  # causal: no step reads a later input
    assert np.allclose(maps.decoder.sum(-1), 1.0, atol=1e-5) and np.allclose(maps.encoder.sum(-1), 1.0, atol=1e-5)
    assert maps.axes("decoder") == (translation.tokens, ("<s>", *translation.tokens[:-1]))
    with pytest.raises(ValueError, match="encoder, decoder, cross"):
        maps.map("self", 0, None)


@pytest.mark.slow
def test_an_rnn_translation_has_no_layer_maps(dates_models):
    translation = load_model_folder(dates_models["additive"]).translator.translate("12 February 1987")
    assert translation.encoder_attention is None
    assert attention_layers(translation.source_tokens, translation.tokens, None, translation.steps) is None
