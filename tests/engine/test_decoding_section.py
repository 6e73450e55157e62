"""config.json's decoding section is DecodeConfig's description: the schema's ranges are the settings'
ranges, every shipped model still validates, and a value out of range is refused naming the range."""

import json
import shutil
from pathlib import Path

import pytest

from engine.models.bundle import ModelBundle
from engine.models.config_file import read_config
from engine.models.config_schema import DECODING_KEYS, MODEL_CONFIG_SCHEMA, config_problem
from engine.settings.config import DecodeConfig
from engine.settings.errors import ConfigError, ModelFileError
from engine.settings.settings_meta import described

SHIPPED = sorted(Path(__file__).resolve().parents[2].glob("resources/models/*/config.json"))


def test_the_decoding_sections_ranges_are_decode_configs():
    section = MODEL_CONFIG_SCHEMA["properties"]["decoding"]["properties"]
    settings = described(DecodeConfig)
    assert set(section) == set(DECODING_KEYS)
    for key, name in DECODING_KEYS.items():
        assert (section[key]["minimum"], section[key]["maximum"]) == (settings[name].low, settings[name].high)
    assert section["beam"]["maximum"] == 10  # once 64, while DecodeConfig allowed 10


@pytest.mark.parametrize("path", SHIPPED, ids=lambda path: path.parent.name)
def test_every_shipped_config_still_validates(path):
    assert config_problem(json.loads(path.read_text(encoding="utf-8"))) is None


def _tampered(key, value):
    info = json.loads(SHIPPED[0].read_text(encoding="utf-8"))
    info["decoding"] = {**info.get("decoding", {}), key: value}
    return info


@pytest.mark.parametrize(("key", "value", "valid"), [
    ("beam", 11, "1 to 10"), ("beam", 0, "1 to 10"), ("length_penalty", 5.5, "0 to 5"),
    ("coverage_penalty", -0.1, "0 to 5"), ("no_repeat_ngram", 21, "0 to 20")])
def test_a_tampered_value_is_refused_by_the_schema_naming_the_range(key, value, valid):
    problem = config_problem(_tampered(key, value))
    assert problem is not None and f"decoding/{key}" in problem and f"(valid: {valid})" in problem


def test_a_tampered_config_json_is_refused_on_reading(tmp_path):
    folder = tmp_path / "model"
    folder.mkdir()
    shutil.copy(SHIPPED[0], folder / "config.json")
    (folder / "config.json").write_text(json.dumps(_tampered("beam", 64)), encoding="utf-8")
    with pytest.raises(ModelFileError, match=r"decoding/beam: 64 is greater than the maximum of 10 \(valid: 1 to 10\)"):
        read_config(folder)


def _bundle(info) -> ModelBundle:
    return ModelBundle(folder=Path("model"), translator=None, model_config=None, info=info)  # type: ignore[arg-type]


def test_the_bundle_reads_the_stored_values_and_defaults():
    stored = json.loads(SHIPPED[0].read_text(encoding="utf-8"))["decoding"]
    bundle = _bundle({"decoding": stored})
    assert bundle.length_penalty == stored["length_penalty"]
    assert bundle.coverage_penalty == stored["coverage_penalty"]
    assert bundle.no_repeat_ngram == stored["no_repeat_ngram"]
    bare = _bundle({})
    assert (bare.length_penalty, bare.coverage_penalty, bare.no_repeat_ngram) == (
        DecodeConfig.length_penalty, DecodeConfig.coverage_penalty, DecodeConfig.no_repeat_ngram)


@pytest.mark.parametrize(("key", "value", "message"), [
    ("length_penalty", 7.0, "decoding.length_penalty must be between 0.0 and 5.0; got 7.0"),
    ("coverage_penalty", "0.2", "decoding.coverage_penalty must be a number between 0 and 5; got '0.2'"),
    ("no_repeat_ngram", 21, "decoding.no_repeat_ngram must be between 0 and 20; got 21"),
    ("no_repeat_ngram", 2.5, "decoding.no_repeat_ngram must be a whole number between 0 and 20; got 2.5")])
def test_the_bundle_refuses_a_value_out_of_range_naming_it(key, value, message):
    bundle = _bundle({"decoding": {key: value}})
    with pytest.raises(ConfigError) as caught:
        getattr(bundle, key)
    assert str(caught.value) == message
