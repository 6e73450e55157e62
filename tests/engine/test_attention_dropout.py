"""Attention dropout: drops attention weights from each context in training only; shown weights stay whole."""

import pytest
import torch
from torch import nn

from engine.networks.attention import masked_softmax
from engine.networks.model import build_model
from engine.settings.config import ModelConfig
from engine.settings.errors import ConfigError
from engine.settings.scorer_table import ATTENTION_SCORER_NAMES

SMALL = dict(src_vocab_size=40, tgt_vocab_size=50, embedding_size=16, encoder_hidden_size=16,
             decoder_hidden_size=16, attention_size=16)


def _batch():
    generator = torch.Generator().manual_seed(3)
    source = torch.randint(4, 40, (4, 9), generator=generator)
    lengths = torch.tensor([9, 7, 4, 2])
    for row, length in enumerate(lengths.tolist()):
        source[row, length:] = 0  # padding
    return source, lengths, torch.randint(4, 50, (4, 6), generator=generator)


def test_the_softmax_mixes_from_dropped_weights_but_returns_the_weights_as_computed():
    scores = torch.randn(3, 2, 5)  # two heads
    mask = torch.tensor([[True] * 5, [True] * 3 + [False] * 2, [True] * 1 + [False] * 4])
    plain_weights, plain_mixing = masked_softmax(scores, mask)
    assert plain_mixing is plain_weights  # without dropout the context is mixed from the weights shown
    dropout = nn.Dropout(0.5).train()
    torch.manual_seed(0)
    weights, mixing = masked_softmax(scores, mask, dropout)
    assert torch.equal(weights, plain_weights)  # what the heatmap and the statistics see
    assert torch.allclose(weights.sum(dim=2), torch.ones(3, 2)) and weights[1, :, 3:].eq(0).all()
    torch.manual_seed(0)
    assert torch.equal(mixing, dropout(plain_weights))  # the same draw: zeros where dropped, the rest scaled by 1/(1 - p)
    assert not torch.equal(mixing, plain_weights)
    assert torch.equal(masked_softmax(scores, mask, dropout.eval())[1], plain_weights)  # identity in eval mode


@pytest.mark.parametrize("scorer", ATTENTION_SCORER_NAMES)
def test_an_attention_model_is_unchanged_when_translating_and_regularized_in_training(scorer):
    source, lengths, target = _batch()
    plain = build_model(ModelConfig(scorer=scorer, dropout=0.0, **SMALL), seed=1)
    dropped = build_model(ModelConfig(scorer=scorer, dropout=0.0, attention_dropout=0.3, **SMALL), seed=1)
    dropped.load_state_dict(plain.state_dict())  # no parameters of its own
    plain.eval(), dropped.eval()
    assert torch.equal(plain(source, lengths, target), dropped(source, lengths, target))
    plain.train(), dropped.train()
    assert torch.equal(plain(source, lengths, target), plain(source, lengths, target))  # nothing else drops
    assert not torch.allclose(plain(source, lengths, target), dropped(source, lengths, target))


def test_the_fixed_context_baseline_trains_exactly_as_without_it():
    source, lengths, target = _batch()
    plain = build_model(ModelConfig(scorer="none", dropout=0.2, **SMALL), seed=1).train()
    dropped = build_model(ModelConfig(scorer="none", dropout=0.2, attention_dropout=0.5, **SMALL), seed=1).train()
    dropped.load_state_dict(plain.state_dict())
    torch.manual_seed(7)
    expected = plain(source, lengths, target)
    torch.manual_seed(7)
    assert torch.equal(dropped(source, lengths, target), expected)  # same draws: no attention to drop


def test_the_rate_is_checked_and_older_model_configs_without_it_load_with_it_off():
    with pytest.raises(ConfigError, match="attention_dropout"):
        ModelConfig(attention_dropout=1.2, **SMALL)
    assert ModelConfig.from_dict(dict(SMALL, scorer="dot")).attention_dropout == 0.0
