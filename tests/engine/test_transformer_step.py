"""The Transformer decoder's inference step (TransformerDecoder._inference_step, DecoderLayer.step: W_Q, W_K, W_V as
one product, the padding mask inverted once a sentence) computes what the layers' general forward computes, and
its fused projection follows every change of the parameters (an optimizer's step, loading other weights) from
the next sentence on."""

import pytest
import torch

from engine.networks.model import build_model
from engine.settings.config import ModelConfig


def _model(seed: int = 5):
    config = ModelConfig(scorer="transformer", embedding_size=32, feedforward_size=48, transformer_layers=2,
                         dropout=0.0, attention_dropout=0.0, activation_dropout=0.0, tie_embeddings=True,
                         src_vocab_size=40, tgt_vocab_size=30)
    return build_model(config, seed=seed).eval()


def _source(batch: int):
    source = torch.randint(4, 40, (batch, 7), generator=torch.Generator().manual_seed(batch))
    if batch > 1:
        source[1, 5:] = 0  # padding: row 1 has 5 real tokens
    return source, (source != 0).sum(1)


def _decode(model, encoded, steps: int = 5):
    """Greedy steps through decoder.step (eval: the inference step; train with no dropout: the general path)."""
    outs, state = [], encoded.initial_state
    previous = torch.full((encoded.memory.size(0),), 1)
    for _ in range(steps):
        embedded = model.decoder.embedding(previous)
        out = model.decoder.step(embedded, state, encoded)
        outs.append(out)
        state = out.state
        previous = model.decoder.logits(out.state[0], out.context, embedded).argmax(-1)
    return outs


def _assert_close(outs, expected):
    for out, reference in zip(outs, expected, strict=True):
        for name in ("context", "weights", "scores", "head_weights", "layer_weights", "self_weights"):
            torch.testing.assert_close(getattr(out, name), getattr(reference, name), rtol=0, atol=1e-6, msg=name)
        for part, reference_part in zip(out.state, reference.state, strict=True):
            torch.testing.assert_close(part, reference_part, rtol=0, atol=1e-6)


def _general_path(model, encoded):
    model.train()  # no dropout in this model: the layers' forward, the same arithmetic
    try:
        return _decode(model, encoded)
    finally:
        model.eval()


@pytest.mark.parametrize("batch", [1, 3])
def test_the_inference_step_computes_what_the_layers_forward_computes(batch):
    model = _model()
    with torch.no_grad():
        encoded = model.encode(*_source(batch))
        outs = _decode(model, encoded)
        _assert_close(outs, _general_path(model, encoded))
    if batch > 1:  # the padded row never attends to its padding
        assert all(float(out.layer_weights[1, :, :, 5:].abs().max()) == 0.0 for out in outs)


def test_the_fused_projection_follows_changed_and_loaded_parameters():
    model = _model()
    with torch.no_grad():
        encoded = model.encode(*_source(1))
        before = _decode(model, encoded)
        model.decoder.layers[0].self_attention.key_layer.weight.add_(0.5)  # in place, as an optimizer steps
        encoded = model.encode(*_source(1))  # the next sentence (a sentence's steps read its encoding's weights)
        changed = _decode(model, encoded)
        assert not torch.equal(changed[1].self_weights, before[1].self_weights)
        _assert_close(changed, _general_path(model, encoded))
        model.load_state_dict(_model(seed=9).state_dict())  # other weights copied in
        encoded = model.encode(*_source(1))
        loaded = _decode(model, encoded)
        _assert_close(loaded, _general_path(model, encoded))
        other = _model(seed=9)
        _assert_close(loaded, _decode(other, other.encode(*_source(1))))
