"""The schema of a model folder's ``config.json``, checked before any of it is used.

Every value the loader acts on — the architecture's sizes, the file names, the hashes, the storage
type, the decoding settings — is checked for type, range and allowed keys by a JSON Schema
(Draft 2020-12, validated by the ``jsonschema`` library); the descriptive sections (data, training,
metrics, command) must be objects or strings but are otherwise free, since the app only shows them.
The model section is derived from :class:`ModelConfig`'s field descriptions (engine/settings/settings_meta.py),
so it cannot disagree with the dataclass. The document's nesting depth is bounded before
validation, so a crafted file cannot exhaust the stack. The first violation is reported with its place in the document and the valid choices.
"""

from __future__ import annotations

from typing import Any

from jsonschema import Draft202012Validator

from engine.settings.config import ModelConfig
from engine.settings.settings_meta import schema_of

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
        "decoding": {
            "type": "object",
            "properties": {
                "length_penalty": {"type": "number", "minimum": 0, "maximum": 5},
                "coverage_penalty": {"type": "number", "minimum": 0, "maximum": 5},
                "no_repeat_ngram": _size(0, 20),
                "beam": _size(1, 64),
            },
        },
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
    return f"{where}: {error.message}"
