"""Each setting described once: the range checks, the model folder schema and the train flags all
follow the field's description, and the schema and the dataclass agree value for value."""

from __future__ import annotations

import argparse
from dataclasses import MISSING, dataclass, fields

import pytest

from engine.models.config_schema import MODEL_CONFIG_SCHEMA
from engine.settings.config import DecodeConfig, ModelConfig, ModelShape, TrainConfig
from engine.settings.errors import ConfigError
from engine.settings.settings_meta import Row, Setting, add_flags, described, schema_of, setting

DESCRIBED = (ModelShape, ModelConfig, TrainConfig, DecodeConfig)
MODEL_SECTION = MODEL_CONFIG_SCHEMA["properties"]["model"]
VOCABULARIES = {"src_vocab_size": 32, "tgt_vocab_size": 32}
COMPANIONS = {"concat_share": {"concat_max_group": 2}}  # what a field's other end needs to be valid


@pytest.mark.parametrize("settings_class", DESCRIBED, ids=lambda c: c.__name__)
def test_every_field_is_described(settings_class):
    assert set(described(settings_class)) == {f.name for f in fields(settings_class)}


def _outside(value: float, integer: bool, above: bool) -> float:
    step = 1 if integer else max(abs(value) * 1e-6, 1e-9)
    return value + step if above else value - step


def _ranged(settings_class):
    return [(name, s) for name, s in described(settings_class).items() if s.low is not None]


@pytest.mark.parametrize("settings_class", (ModelShape, TrainConfig, DecodeConfig), ids=lambda c: c.__name__)
def test_a_value_outside_a_fields_range_is_refused_naming_the_range(settings_class):
    for name, described_field in _ranged(settings_class):
        integer = isinstance(getattr(settings_class(), name), int)
        for bound, above in ((described_field.low, False), (described_field.high, True)):
            settings_class(**{name: bound, **COMPANIONS.get(name, {})})  # the ends are valid
            bad = _outside(bound, integer, above)
            with pytest.raises(ConfigError, match=f"^{name} must be between {described_field.low} and "
                               f"{described_field.high}; got "):
                settings_class(**{name: bad, **COMPANIONS.get(name, {})})


def test_a_choice_outside_a_fields_choices_is_refused_naming_them():
    with pytest.raises(ConfigError, match="cell must be one of gru, lstm, rnn; got 'transformer'"):
        ModelShape(cell="transformer")
    with pytest.raises(ConfigError, match="precision must be one of fp32, bf16, fp16"):
        TrainConfig(precision="int8")


def _model_info(**model) -> dict:
    return {"format": "attention-studio-model", "format_version": 1, "source_language": "zh",
            "target_language": "en", "model": {**VOCABULARIES, **model}, "weights": {"sha256": "0" * 64},
            "tokenizers": {"source": {"sha256": "0" * 64}, "target": {"sha256": "0" * 64}}}


def _schema_accepts(**model) -> bool:
    from engine.models.config_schema import config_problem

    return config_problem(_model_info(**model)) is None


def _dataclass_accepts(**model) -> bool:
    try:
        ModelConfig(**{**VOCABULARIES, **model})
    except (ConfigError, TypeError):
        return False
    return True


def test_the_schemas_model_section_and_the_model_dataclass_agree():
    assert set(MODEL_SECTION["properties"]) == {f.name for f in fields(ModelConfig)}
    assert MODEL_SECTION["additionalProperties"] is False
    assert set(MODEL_SECTION["required"]) == {f.name for f in fields(ModelConfig) if f.default is MISSING}
    assert _schema_accepts(**ModelShape().to_dict()) and _dataclass_accepts(**ModelShape().to_dict())
    for name, described_field in described(ModelConfig).items():
        default = getattr(ModelShape(), name, 32)
        if described_field.choices:
            for choice in described_field.choices:
                assert _schema_accepts(**{name: choice}) and _dataclass_accepts(**{name: choice})
            assert not _schema_accepts(**{name: "unheard-of"}) and not _dataclass_accepts(**{name: "unheard-of"})
        elif isinstance(default, bool):
            assert _schema_accepts(**{name: not default}) and _dataclass_accepts(**{name: not default})
        else:
            integer = isinstance(default, int)
            for bound, above in ((described_field.low, False), (described_field.high, True)):
                assert _schema_accepts(**{name: bound}) == _dataclass_accepts(**{name: bound}) is True, name
                bad = _outside(bound, integer, above)
                assert _schema_accepts(**{name: bad}) == _dataclass_accepts(**{name: bad}) is False, (name, bad)
            if integer:
                assert not _schema_accepts(**{name: default + 0.5})


def test_the_schema_accepts_every_model_key_it_accepted_before():
    before = {"src_vocab_size", "tgt_vocab_size", "scorer", "cell", "embedding_size", "encoder_hidden_size",
              "encoder_layers", "decoder_hidden_size", "attention_size", "dropout", "attention_dropout",
              "tie_embeddings"}
    assert before <= set(MODEL_SECTION["properties"])
    assert MODEL_SECTION["properties"]["dropout"] == {"type": "number", "minimum": 0.0, "maximum": 0.9}
    assert MODEL_SECTION["properties"]["encoder_layers"] == {"type": "integer", "minimum": 1, "maximum": 8}


@dataclass(frozen=True)
class _Extended(ModelShape):
    """A model setting added the way the next one will be: one described field."""

    layer_norm_eps: float = setting(1e-5, low=1e-9, high=0.1, help="ε of the layer norms",
                                    row=Row(label="Layer-norm ε", decimals=6))
    use_bias: bool = setting(False, help="add biases to the scorer")


def test_a_new_described_field_is_checked_offered_as_a_flag_and_in_the_schema():
    with pytest.raises(ConfigError, match="layer_norm_eps must be between 1e-09 and 0.1; got 0.5"):
        _Extended(layer_norm_eps=0.5)
    parser = argparse.ArgumentParser()
    add_flags(parser, _Extended)
    args = parser.parse_args(["--scorer", "dot", "--layer-norm-eps", "0.001", "--use-bias"])
    assert (args.scorer, args.layer_norm_eps, args.use_bias, args.cell) == ("dot", 0.001, True, "gru")
    assert not any(action.dest == "attention_size" for action in parser._actions)  # flag=None: none
    section = schema_of(_Extended)
    assert section["properties"]["layer_norm_eps"] == {"type": "number", "minimum": 1e-9, "maximum": 0.1}
    assert section["properties"]["use_bias"] == {"type": "boolean"}


def test_a_description_must_be_whole():
    with pytest.raises(ConfigError, match="needs both ends"):
        Setting(help="half a range", low=0)
    with pytest.raises(ConfigError, match="names each of the 2 choices"):
        Setting(help="labels", choices=("a", "b"), row=Row(choice_labels=("A",)))
    with pytest.raises(ConfigError, match="a form row needs a range"):
        Setting(help="no range", row=Row()).form_range()

