"""Encoder–decoder: packing invariance, gradients, cells, config validation."""

import pytest
import torch

from engine.networks.model import build_model
from engine.settings.config import ModelConfig, TrainConfig
from engine.settings.errors import ConfigError
from engine.settings.scorer_table import SCORER_TABLE

# The RNN's single-head mechanisms, from the registry (the sizes below suit one head).
SINGLE_HEAD_RNN = [name for name, info in SCORER_TABLE.items() if info.family == "rnn" and info.heads == 1]


def _config(**options):
    settings = dict(src_vocab_size=50, tgt_vocab_size=40, embedding_size=8, encoder_hidden_size=12,
                    decoder_hidden_size=10, attention_size=6, dropout=0.0)
    return ModelConfig(**{**settings, **options})


@pytest.mark.parametrize("cell", ["gru", "lstm", "rnn"])
def test_padding_never_changes_a_real_tokens_encoding(cell):
    model = build_model(_config(cell=cell), seed=0).eval()
    sentence = torch.tensor([[5, 6, 7, 8]])
    alone = model.encode(sentence, torch.tensor([4]))
    batch = torch.tensor([[5, 6, 7, 8, 0, 0, 0], [9, 10, 11, 12, 13, 14, 15]])
    together = model.encode(batch, torch.tensor([4, 7]))
    assert torch.allclose(alone.memory[0], together.memory[0, :4], atol=1e-6)
    assert torch.allclose(alone.summary[0], together.summary[0], atol=1e-6)
    assert torch.allclose(alone.initial_state[0][0], together.initial_state[0][0], atol=1e-6)


@pytest.mark.parametrize("scorer", SINGLE_HEAD_RNN)
def test_teacher_forced_forward_shapes_and_gradients_reach_every_parameter(scorer):
    model = build_model(_config(scorer=scorer), seed=0)
    source = torch.tensor([[5, 6, 7, 0], [8, 9, 10, 11]])
    target_in = torch.tensor([[2, 5, 6], [2, 7, 0]])
    logits = model(source, torch.tensor([3, 4]), target_in)
    assert logits.shape == (2, 3, 40)
    logits.logsumexp(-1).sum().backward()
    for name, parameter in model.named_parameters():
        assert parameter.grad is not None, name
        if "embedding" not in name:  # padding rows of embeddings stay zero by design
            assert parameter.grad.abs().sum() > 0, name


def test_same_seed_same_initialization():
    first, second = build_model(_config(), seed=3), build_model(_config(), seed=3)
    for a, b in zip(first.parameters(), second.parameters(), strict=True):
        assert torch.equal(a, b)


def test_config_errors_name_the_valid_choices():
    with pytest.raises(ConfigError, match="gru, lstm, rnn"):
        _config(cell="transformer")
    with pytest.raises(ConfigError, match="dropout"):
        _config(dropout=1.5)
    with pytest.raises(ConfigError, match="unknown ModelConfig keys: colour"):
        ModelConfig.from_dict({"src_vocab_size": 50, "tgt_vocab_size": 40, "colour": "red"})
    with pytest.raises(ConfigError, match="batch_size"):
        TrainConfig(batch_size=0)


def test_config_round_trips_through_a_dict():
    config = _config(scorer="bilinear", cell="lstm")
    assert ModelConfig.from_dict(config.to_dict()) == config
