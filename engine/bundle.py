"""The model folder (design §3): ``config.json``, ``model.safetensors``, ``src.model``, ``tgt.model``.

Saving writes every file atomically, ``config.json`` last: it records the sha256 of the three
other files, so a folder whose files do not belong together is detected on load.

Loading never unpickles. It verifies, in order: the folder and its files exist; ``config.json``
parses and names a known format; the weights are a safetensors file (a planted pickle is named
as such) whose sha256 matches the config; the tokenizers' hashes and vocabulary sizes match; the
tensor names, shapes and dtypes are the ones the architecture expects; every value is finite.
Anything else raises :class:`ModelFileError` with a one-line reason.

A tied matrix (the output layer that reuses the target embedding) is one tensor in memory and is
stored once, under the name of its first occurrence in the state dict; loading restores the tie.
Files written before that, which hold the tied matrix twice, still load when both copies agree.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch
from safetensors import SafetensorError
from safetensors.torch import load as load_safetensors
from safetensors.torch import save as save_safetensors

from engine.atomic import write_bytes_atomic, write_json_atomic
from engine.config import DecodeConfig, ModelConfig
from engine.errors import ConfigError, EngineError, ModelFileError, TokenizerError
from engine.model import Seq2Seq, build_model
from engine.tokenizer import Tokenizer
from engine.translator import Translator

FORMAT = "attention-studio-model"
FORMAT_VERSION = 1
CONFIG_FILE, WEIGHTS_FILE, SOURCE_TOKENIZER_FILE, TARGET_TOKENIZER_FILE = (
    "config.json",
    "model.safetensors",
    "src.model",
    "tgt.model",
)
STORAGE_DTYPES = {"float32": torch.float32, "float16": torch.float16}


@dataclass(frozen=True)
class ModelBundle:
    """A loaded, verified model folder."""

    folder: Path
    translator: Translator
    model_config: ModelConfig
    info: dict[str, Any]  # the whole config.json

    @property
    def source_language(self) -> str:
        return self.info["source_language"]

    @property
    def target_language(self) -> str:
        return self.info["target_language"]

    @property
    def scorer(self) -> str:
        return self.model_config.scorer

    @property
    def parameter_count(self) -> int:
        return self.translator.model.parameter_count()

    @property
    def test_bleu(self) -> float | None:
        return (self.info.get("metrics") or {}).get("test", {}).get("bleu")

    @property
    def length_penalty(self) -> float:
        """The beam length penalty α chosen for this model (``decoding.length_penalty`` in config.json,
        set by ``scripts/tune_decoding.py`` on the validation pairs), else the engine's default."""
        value = (self.info.get("decoding") or {}).get("length_penalty") if isinstance(self.info, dict) else None
        if isinstance(value, int | float) and not isinstance(value, bool) and 0.0 <= value <= 5.0:
            return float(value)
        return DecodeConfig.length_penalty

    def decode_config(self, beam_size: int = 1, length_penalty: float | None = None) -> DecodeConfig:
        """How to decode with this model: ``beam_size``, and the model's own length penalty unless one
        is given (raises ConfigError for values out of range)."""
        alpha = self.length_penalty if length_penalty is None else length_penalty
        return DecodeConfig(beam_size=beam_size, length_penalty=alpha)

    @property
    def attribution(self) -> str:
        return (self.info.get("data") or {}).get("attribution", "")


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def tied_aliases(state: dict[str, torch.Tensor]) -> dict[str, str]:
    """{alias: name} for state-dict entries that are the same tensor as an earlier entry (a tied
    weight appears under both names)."""
    first: dict[tuple[int, tuple[int, ...], tuple[int, ...]], str] = {}
    aliases = {}
    for name, tensor in state.items():
        key = (tensor.data_ptr(), tuple(tensor.shape), tuple(tensor.stride()))
        if key in first:
            aliases[name] = first[key]
        else:
            first[key] = name
    return aliases


def save_model_folder(
    folder: Path,
    model: Seq2Seq,
    source_tokenizer: Tokenizer,
    target_tokenizer: Tokenizer,
    metadata: dict[str, Any],
    storage_dtype: str = "float32",
) -> Path:
    """Write the model folder. ``metadata`` must hold source_language and target_language and may
    hold anything else JSON-serializable (training, data, metrics, command)."""
    if storage_dtype not in STORAGE_DTYPES:
        raise ConfigError(f"storage dtype must be one of {', '.join(STORAGE_DTYPES)}; got {storage_dtype!r}")
    folder = Path(folder)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        state = model.state_dict()
        aliases = tied_aliases(state)
        tensors = {
            name: tensor.detach().to(STORAGE_DTYPES[storage_dtype]).contiguous().clone()
            for name, tensor in state.items() if name not in aliases
        }
        weights = save_safetensors(tensors)
        write_bytes_atomic(folder / WEIGHTS_FILE, weights)
        write_bytes_atomic(folder / SOURCE_TOKENIZER_FILE, source_tokenizer.model_bytes)
        write_bytes_atomic(folder / TARGET_TOKENIZER_FILE, target_tokenizer.model_bytes)
        config = {
            "format": FORMAT,
            "format_version": FORMAT_VERSION,
            **metadata,
            "model": model.config.to_dict(),
            "parameter_count": model.parameter_count(),
            "weights": {"file": WEIGHTS_FILE, "dtype": storage_dtype, "sha256": _sha256(weights)},
            "tokenizers": {
                "source": {"file": SOURCE_TOKENIZER_FILE, "sha256": source_tokenizer.sha256,
                           "vocab_size": source_tokenizer.vocab_size},
                "target": {"file": TARGET_TOKENIZER_FILE, "sha256": target_tokenizer.sha256,
                           "vocab_size": target_tokenizer.vocab_size},
            },
        }
        write_json_atomic(folder / CONFIG_FILE, config)
    except OSError as error:
        raise ModelFileError(f"cannot write the model folder {folder}: {error.strerror or error}") from None
    return folder


def read_config(folder: Path) -> dict[str, Any]:
    """config.json of a model folder, checked for format (cheap: no weights are read)."""
    folder = Path(folder)
    if not folder.is_dir():
        raise ModelFileError(f"{folder} is not a model folder (no such directory)")
    path = folder / CONFIG_FILE
    if not path.is_file():
        raise ModelFileError(f"{folder} is not a model folder: {CONFIG_FILE} is missing")
    try:
        info = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise ModelFileError(f"{path} is not valid JSON ({error})") from None
    if not isinstance(info, dict) or info.get("format") != FORMAT:
        raise ModelFileError(f"{path} is not an Attention Studio model config (format is not {FORMAT!r})")
    if info.get("format_version") != FORMAT_VERSION:
        raise ModelFileError(f"{path} has format version {info.get('format_version')}; this app reads {FORMAT_VERSION}")
    return info


def _read_file(folder: Path, name: str) -> bytes:
    path = folder / name
    if not path.is_file():
        raise ModelFileError(f"{folder} is incomplete: {name} is missing")
    try:
        return path.read_bytes()
    except OSError as error:
        raise ModelFileError(f"cannot read {path}: {error.strerror or error}") from None


def _looks_like_pickle(data: bytes) -> bool:
    return data[:2] in (b"\x80\x02", b"\x80\x03", b"\x80\x04", b"\x80\x05") or data[:2] == b"PK"


def _load_tokenizer(folder: Path, info: dict[str, Any], role: str, expected_vocab: int) -> Tokenizer:
    entry = (info.get("tokenizers") or {}).get(role) or {}
    name = entry.get("file", SOURCE_TOKENIZER_FILE if role == "source" else TARGET_TOKENIZER_FILE)
    data = _read_file(folder, name)
    if _sha256(data) != entry.get("sha256"):
        raise ModelFileError(f"{name} does not match config.json (sha256 differs): a tokenizer from another model?")
    try:
        tokenizer = Tokenizer(data)
    except TokenizerError as error:
        raise ModelFileError(f"{name}: {error}") from None
    if tokenizer.vocab_size != expected_vocab:
        raise ModelFileError(
            f"{name} has {tokenizer.vocab_size} pieces but the model expects {expected_vocab}"
        )
    return tokenizer


def _load_weights(folder: Path, info: dict[str, Any], model: Seq2Seq) -> None:
    entry = info.get("weights") or {}
    data = _read_file(folder, WEIGHTS_FILE)
    if _looks_like_pickle(data):
        raise ModelFileError(f"{WEIGHTS_FILE} is a pickle/PyTorch file, not safetensors; refusing to load it")
    if _sha256(data) != entry.get("sha256"):
        raise ModelFileError(f"{WEIGHTS_FILE} does not match config.json (sha256 differs): corrupted or replaced")
    try:
        tensors = load_safetensors(data)
    except (SafetensorError, ValueError, RuntimeError) as error:
        raise ModelFileError(f"{WEIGHTS_FILE} is not a valid safetensors file ({error})") from None
    storage = STORAGE_DTYPES.get(entry.get("dtype", "float32"))
    expected = model.state_dict()
    aliases = tied_aliases(expected)
    missing = sorted(set(expected) - set(aliases) - set(tensors))
    extra = sorted(set(tensors) - set(expected))
    if missing or extra:
        raise ModelFileError(f"{WEIGHTS_FILE} does not fit the architecture (missing: {missing[:3]}, unexpected: {extra[:3]})")
    for name, tensor in tensors.items():
        if tuple(tensor.shape) != tuple(expected[name].shape):
            raise ModelFileError(f"{WEIGHTS_FILE}: {name} has shape {tuple(tensor.shape)}, expected {tuple(expected[name].shape)}")
        if tensor.dtype != storage:
            raise ModelFileError(f"{WEIGHTS_FILE}: {name} is {tensor.dtype}, config.json says {entry.get('dtype')}")
        if tensor.is_floating_point() and not bool(torch.isfinite(tensor).all()):
            raise ModelFileError(f"{WEIGHTS_FILE}: {name} contains NaN or infinite values")
    for alias, name in aliases.items():  # a tied matrix: stored once, or twice by older files
        if alias in tensors and not torch.equal(tensors[alias], tensors[name]):
            raise ModelFileError(f"{WEIGHTS_FILE}: {alias} must equal {name} (the model ties them) but differs")
        tensors[alias] = tensors[name]
    model.load_state_dict({name: t.to(expected[name].dtype) for name, t in tensors.items()})


def load_model_folder(folder: Path) -> ModelBundle:
    """Load and verify a model folder; raises :class:`ModelFileError` with the reason."""
    folder = Path(folder)
    info = read_config(folder)
    try:
        model_config = ModelConfig.from_dict(info.get("model") or {})
        source_language = str(info["source_language"])
        if not isinstance(info["target_language"], str):
            raise TypeError("target_language must be a string")
    except (EngineError, KeyError, TypeError) as error:
        raise ModelFileError(f"{folder / CONFIG_FILE} has an invalid model section ({error})") from None
    source_tokenizer = _load_tokenizer(folder, info, "source", model_config.src_vocab_size)
    target_tokenizer = _load_tokenizer(folder, info, "target", model_config.tgt_vocab_size)
    model = build_model(model_config)
    _load_weights(folder, info, model)
    translator = Translator(
        model, source_tokenizer, target_tokenizer, source_language, bool(info.get("simplify_chinese", True))
    )
    return ModelBundle(folder, translator, model_config, info)
