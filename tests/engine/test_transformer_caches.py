"""The Transformer's incremental step reads what encode computed once, laid out for its products: the cached
cross-attention keys and values equal the ones recomputed from the memory, a step gives bit for bit what it gives
with them laid out plainly, and selecting beam rows keeps the layout (engine.decoding.beam_search._select_rows)."""

from dataclasses import replace

import pytest
import torch

from engine.decoding.beam_search import _expand, _select_rows
from engine.networks.model import build_model
from engine.settings.config import ModelConfig


def _model():
    config = ModelConfig(scorer="transformer", embedding_size=32, feedforward_size=48, transformer_layers=2,
                         dropout=0.0, tie_embeddings=True, src_vocab_size=40, tgt_vocab_size=30)
    return build_model(config, seed=5).eval()


def _source(batch: int):
    source = torch.randint(4, 40, (batch, 7), generator=torch.Generator().manual_seed(batch))
    if batch > 1:
        source[1, 5:] = 0
    return source, (source != 0).sum(1)


@pytest.mark.parametrize("batch", [1, 3])
def test_the_cached_cross_attention_keys_and_values_equal_the_recomputed_ones(batch):
    model = _model()
    with torch.no_grad():
        encoded = model.encode(*_source(batch))
        for index, layer in enumerate(model.decoder.layers):
            keys, values = layer.cross_attention.keys_values(encoded.memory)  # B×H×S×d
            assert torch.equal(encoded.keys[:, index], keys)
            assert torch.equal(encoded.values[:, index], values)
            assert encoded.values[:, index].is_contiguous()  # one block a layer: α·V reads it as it is
            read = encoded.keys[:, index]
            assert (read if batch == 1 else read.transpose(-1, -2)).is_contiguous()  # q·Kᵀ reads it as it is


@pytest.mark.parametrize("batch", [1, 3])
def test_a_step_gives_bit_for_bit_what_it_gives_with_plainly_laid_out_keys(batch):
    model = _model()
    with torch.no_grad():
        encoded = model.encode(*_source(batch))
        plain = replace(encoded, keys=encoded.keys.contiguous(), values=encoded.values.contiguous())
        state, plain_state = encoded.initial_state, plain.initial_state
        previous = torch.full((batch,), 1)
        for _ in range(4):
            embedded = model.decoder.embedding(previous)
            out = model.decoder.step(embedded, state, encoded)
            expected = model.decoder.step(embedded, plain_state, plain)
            for name in ("context", "weights", "scores", "layer_weights", "self_weights"):
                assert torch.equal(getattr(out, name), getattr(expected, name)), name
            assert all(torch.equal(a, b) for a, b in zip(out.state, expected.state, strict=True))
            state, plain_state = out.state, expected.state
            previous = model.decoder.logits(out.state[0], out.context, embedded).argmax(-1)


def test_selecting_beam_rows_keeps_the_values_and_the_memory_layout():
    model = _model()
    with torch.no_grad():
        encoded = model.encode(*_source(3))
    rows = torch.tensor([2, 2, 0, 1, 2])
    expanded = _expand(encoded, rows)
    assert torch.equal(expanded.keys, encoded.keys.index_select(0, rows))
    assert torch.equal(expanded.values, encoded.values.index_select(0, rows))
    assert expanded.keys.stride() == encoded.keys.index_select(0, rows).permute(1, 0, 2, 4, 3).contiguous(
        ).permute(1, 0, 2, 4, 3).stride()  # layer first, the keys transposed, as encode laid them out
    assert expanded.keys[:, 1].transpose(-1, -2).is_contiguous() and expanded.values[:, 0].is_contiguous()
    plain = torch.arange(24.0).view(4, 3, 2)
    assert _select_rows(plain, rows[:2]).is_contiguous()  # a contiguous tensor: the plain selection
    assert torch.equal(_select_rows(plain, torch.tensor([3, 0])), plain[[3, 0]])
