"""The schema of a model folder's ``config.json``, checked before any of it is used.

Every value the loader acts on — the architecture's sizes, the file names, the hashes, the storage
type, the decoding settings — is checked for type, range and allowed keys by a JSON Schema
(Draft 2020-12, validated by the ``jsonschema`` library); the descriptive sections (data, training,
metrics, command) must be objects or strings but are otherwise free, since the app only shows them.
The model section is derived from :class:`ModelConfig`'s field descriptions (engine/settings/settings_meta.py),
and the decoding section from :class:`DecodeConfig`'s, so neither can disagree with its dataclass. The document's nesting depth is bounded before
validation, so a crafted file cannot exhaust the stack. The first violation is reported with its place in the document and the valid choices.
"""

from __future__ import annotations

from typing import Any

from jsonschema import Draft202012Validator

from engine.settings.config import DecodeConfig, ModelConfig
from engine.settings.errors import ConfigError
from engine.settings.settings_meta import check_range, described, schema_of

MAX_DEPTH = 64  # config.json nests 5 deep; metrics a few more
SHA256 = {"type": "string", "pattern": "^[0-9a-f]{64}$"}


def _size(low: int, high: int) -> dict[str, Any]:
    return {"type": "integer", "minimum": low, "maximum": high}


def _tokenizer(file_name: str) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {"file": {"const": file_name}, "sha256": SHA256, "vocab_size": _size(8, 1_000_000)},
        "required": ["sha256"],
        "additionalProperties": False,
    }


# config.json's ``decoding`` keys and the DecodeConfig settings they store (scripts/tune_decoding.py writes
# them; the section's other keys — what was tried, on what — are descriptive).
DECODING_KEYS = {"length_penalty": "length_penalty", "coverage_penalty": "coverage_penalty",
                 "no_repeat_ngram": "no_repeat_ngram", "beam": "beam_size"}


def decoding_schema() -> dict[str, Any]:
    """The ``decoding`` section: each stored key typed and ranged by its DecodeConfig setting."""
    settings = schema_of(DecodeConfig)["properties"]
    return {"type": "object", "properties": {key: settings[name] for key, name in DECODING_KEYS.items()}}


_DECODING_TYPES = {name: entry["type"] for name, entry in schema_of(DecodeConfig)["properties"].items()}


def stored_decoding(info: Any, name: str) -> float | int | None:
    """config.json's stored value of DecodeConfig setting ``name`` (None when absent); ConfigError naming
    the setting's valid range when it is not a number within it."""
    key = next(key for key, setting_name in DECODING_KEYS.items() if setting_name == name)
    value = (info.get("decoding") or {}).get(key) if isinstance(info, dict) else None
    if value is None:
        return None
    described_setting = described(DecodeConfig)[name]
    low, high = described_setting.low, described_setting.high
    assert low is not None and high is not None  # every stored decoding setting has a range
    whole = _DECODING_TYPES[name] == "integer"
    if isinstance(value, bool) or not isinstance(value, int if whole else int | float):
        kind = "a whole number" if whole else "a number"
        raise ConfigError(f"decoding.{key} must be {kind} between {low:g} and {high:g}; got {value!r}")
    check_range(f"decoding.{key}", value, low, high)
    return value


MODEL_CONFIG_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "properties": {
        "format": {"const": "attention-studio-model"},
        "format_version": {"const": 1},
        "source_language": {"type": "string", "minLength": 1, "maxLength": 32},
        "target_language": {"type": "string", "minLength": 1, "maxLength": 32},
        "simplify_chinese": {"type": "boolean"},
        "task": {"type": ["string", "null"]},
        "command": {"type": "string"},
        "parameter_count": _size(0, 10**10),
        "model": schema_of(ModelConfig),  # types, ranges and choices from the fields (engine/settings/settings_meta.py)
        "weights": {
            "type": "object",
            "properties": {
                "file": {"const": "model.safetensors"},
                "dtype": {"enum": ["float32", "float16"]},
                "sha256": SHA256,
            },
            "required": ["sha256"],
            "additionalProperties": False,
        },
        "tokenizers": {
            "type": "object",
            "properties": {"source": _tokenizer("src.model"), "target": _tokenizer("tgt.model")},
            "required": ["source", "target"],
            "additionalProperties": False,
        },
        "training_words": {  # words.json: the words of the training sources (engine.text.training_words)
            "type": "object",
            "properties": {
                "file": {"const": "words.json"},
                "sha256": SHA256,
                "words": _size(0, 2_000_000),
                "characters": _size(0, 100_000),
            },
            "required": ["sha256"],
            "additionalProperties": False,
        },
        "decoding": decoding_schema(),  # from DecodeConfig's field descriptions, as config.json names them
        # Descriptive sections: shown, never acted on.
        "data": {"type": "object"},
        "training": {"type": "object"},
        "metrics": {"type": "object"},
        "tokenizer_settings": {"type": "object"},
        "averaged": {"type": "object"},
        "notes": {"type": "string"},
    },
    "required": ["format", "format_version", "source_language", "target_language", "model", "weights",
                 "tokenizers"],
    "additionalProperties": False,
}

_VALIDATOR = Draft202012Validator(MODEL_CONFIG_SCHEMA)


def nesting_depth_exceeds(value: Any, limit: int = MAX_DEPTH) -> bool:
    """True when ``value`` nests lists/objects deeper than ``limit`` (checked without recursion)."""
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict | list):
            if depth > limit:
                return True
            children = item.values() if isinstance(item, dict) else item
            stack.extend((child, depth + 1) for child in children)
    return False


def config_problem(info: Any) -> str | None:
    """Why ``info`` is not a valid model config.json, in one line; None when it is valid."""
    if nesting_depth_exceeds(info):
        return f"it nests deeper than {MAX_DEPTH} levels"
    error = next(iter(sorted(_VALIDATOR.iter_errors(info), key=lambda e: (len(e.absolute_path), e.path))), None)
    if error is None:
        return None
    where = "/".join(str(part) for part in error.absolute_path) or "the top level"
    if error.validator == "additionalProperties":
        allowed = ", ".join(sorted(error.schema.get("properties", {})))
        return f"{where}: {error.message} (allowed: {allowed})"
    if error.validator in ("minimum", "maximum") and {"minimum", "maximum"} <= error.schema.keys():
        return f"{where}: {error.message} (valid: {error.schema['minimum']:g} to {error.schema['maximum']:g})"
    return f"{where}: {error.message}"
