"""The model folder (docs/command-line.md, "Model folders"): ``config.json``, ``model.safetensors``, ``src.model``, ``tgt.model``,
and ``words.json``, the words of its training sources (engine.text.training_words; older folders lack it).

``config.json`` records the sha256 of the three other files, so a folder whose files do not belong
together is detected on load. Saving replaces the four files as one (engine.models.model_files: one commit
point, so a crash at any instant leaves the old model or the new one loadable).

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
from torch.overrides import TorchFunctionMode

from engine.decoding.translator import Translator
from engine.files.safe_open import read_capped
from engine.models.config_file import FORMAT, FORMAT_VERSION, parse_config
from engine.models.config_schema import stored_decoding
from engine.models.model_files import (
    CONFIG_FILE,
    SOURCE_TOKENIZER_FILE,
    TARGET_TOKENIZER_FILE,
    WEIGHTS_FILE,
    model_files_folder,
    replace_model_files,
)
from engine.networks.model import EncoderDecoder, build_model, model_class
from engine.settings.config import DecodeConfig, ModelConfig
from engine.settings.errors import ConfigError, EngineError, ModelFileError, TokenizerError
from engine.text.tokenizer import Tokenizer
from engine.text.training_words import CONFIG_KEY as WORDS_KEY
from engine.text.training_words import WORDS_FILE, TrainingWords, load_training_words

__all__ = ["MAX_PARAMETERS", "STORAGE_DTYPES", "ModelBundle", "load_model_folder", "save_model_folder",
           "tied_aliases", "weights_misfit"]

STORAGE_DTYPES = {"float32": torch.float32, "float16": torch.float16}
MAX_PARAMETERS = 200_000_000  # 50× the shipped models; 800 MB as float32
MAX_MODEL_FILE_BYTES = 4 * MAX_PARAMETERS + 64 * 1024**2  # the weights at MAX_PARAMETERS as float32, and a header


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
        return self._decoding_value("length_penalty")

    @property
    def coverage_penalty(self) -> float:
        """The beam coverage penalty β chosen for this model (``decoding.coverage_penalty``, set by
        ``scripts/tune_decoding.py`` on the validation pairs), else the engine's default (0: off)."""
        return self._decoding_value("coverage_penalty")

    @property
    def no_repeat_ngram(self) -> int:
        """The n-gram constraint chosen for this model's beam search (``decoding.no_repeat_ngram``, set
        by ``scripts/tune_decoding.py`` on the validation pairs: no output repeats an n-gram of n
        sub-word tokens), else 0 (off)."""
        value = stored_decoding(self.info, "no_repeat_ngram")
        return 0 if value is None else int(value)

    def _decoding_value(self, name: str) -> float:
        """config.json's ``decoding`` value of DecodeConfig setting ``name``, else the engine's default;
        ConfigError naming the setting's range when the stored value is outside it."""
        value = stored_decoding(self.info, name)
        return getattr(DecodeConfig, name) if value is None else float(value)

    def decode_config(self, beam_size: int = 1, length_penalty: float | None = None,
                      coverage_penalty: float | None = None, no_repeat_ngram: int | None = None) -> DecodeConfig:
        """How to decode with this model: ``beam_size``, the model's own length and coverage penalties
        and (beam search only: greedy decoding stays unconstrained) its n-gram constraint unless given
        (raises ConfigError for values out of range)."""
        alpha = self.length_penalty if length_penalty is None else length_penalty
        beta = self.coverage_penalty if coverage_penalty is None else coverage_penalty
        if no_repeat_ngram is None:
            no_repeat_ngram = self.no_repeat_ngram if beam_size > 1 else 0
        return DecodeConfig(beam_size=beam_size, length_penalty=alpha, coverage_penalty=beta,
                            no_repeat_ngram=no_repeat_ngram)

    @property
    def attribution(self) -> str:
        return (self.info.get("data") or {}).get("attribution", "")


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def weights_misfit(expected: dict[str, torch.Tensor], tensors: dict[str, torch.Tensor]) -> str | None:
    """Why stored ``tensors`` do not fit a model whose state is ``expected`` (missing or unexpected
    names, a shape that differs), or None when they fit; a tied matrix may be stored once."""
    missing = sorted(set(expected) - set(tied_aliases(expected)) - set(tensors))
    extra = sorted(set(tensors) - set(expected))
    if missing or extra:
        return f"does not fit the architecture (missing: {missing[:3]}, unexpected: {extra[:3]})"
    for name, tensor in tensors.items():
        if tuple(tensor.shape) != tuple(expected[name].shape):
            return f"does not fit the architecture: {name} has shape {tuple(tensor.shape)}, expected " \
                   f"{tuple(expected[name].shape)}"
    return None


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
    model: EncoderDecoder,
    source_tokenizer: Tokenizer,
    target_tokenizer: Tokenizer,
    metadata: dict[str, Any],
    storage_dtype: str = "float32",
    training_words: TrainingWords | None = None,
) -> Path:
    """Write the model folder. ``metadata`` must hold source_language and target_language and may
    hold anything else JSON-serializable (training, data, metrics, command); ``training_words``, the
    record of its training sources' words, is written as ``words.json`` in the same commit (none: the
    folder has no record, and a ``training_words`` entry of ``metadata`` is dropped)."""
    if storage_dtype not in STORAGE_DTYPES:
        raise ConfigError(f"storage dtype must be one of {', '.join(STORAGE_DTYPES)}; got {storage_dtype!r}")
    folder = Path(folder)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        state = model.state_dict()
        aliases = tied_aliases(state)
        tensors = {
            name: tensor.detach().to("cpu", STORAGE_DTYPES[storage_dtype]).contiguous().clone()
            for name, tensor in state.items() if name not in aliases
        }
        weights = save_safetensors(tensors)
        files = {}
        if training_words is not None:
            files[WORDS_FILE] = training_words.to_bytes()
            metadata = {**metadata, WORDS_KEY: training_words.config_entry(files[WORDS_FILE])}
        else:
            metadata = {key: value for key, value in metadata.items() if key != WORDS_KEY}
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
        config_bytes = (json.dumps(config, ensure_ascii=False, indent=2) + "\n").encode("utf-8")
        replace_model_files(folder, {WEIGHTS_FILE: weights, SOURCE_TOKENIZER_FILE: source_tokenizer.model_bytes,
                                     TARGET_TOKENIZER_FILE: target_tokenizer.model_bytes, CONFIG_FILE: config_bytes,
                                     **files})
    except OSError as error:
        raise ModelFileError(f"cannot write the model folder {folder}: {error.strerror or error}") from None
    return folder


def _read_file(folder: Path, name: str) -> bytes:
    path = folder / name
    if not path.exists() and not path.is_symlink():
        raise ModelFileError(f"{folder} is incomplete: {name} is missing")
    return read_capped(path, MAX_MODEL_FILE_BYTES, ModelFileError)  # a regular file only (engine.files.safe_open)


def _looks_like_pickle(data: bytes) -> bool:
    return data[:2] in (b"\x80\x02", b"\x80\x03", b"\x80\x04", b"\x80\x05") or data[:2] == b"PK"


class _NoInitialization(TorchFunctionMode):
    """Skips the in-place initializers (``normal_``, ``uniform_``, ``zero_``, …) of a model built on
    the meta device, where tensors hold no values anyway: ``normal_`` has no native meta kernel, and
    its Python reference's first use imports torch._refs and sympy — 2.4 s of the app's start-up."""

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        name = getattr(func, "__name__", "")
        target = args[0] if args else kwargs.get("tensor")  # torch.nn.init passes it by name
        if name.endswith("_") and not name.startswith("_") and isinstance(target, torch.Tensor) and target.is_meta:
            return target
        return func(*args, **kwargs)


def _check_size_before_building(weights_bytes: int, info: dict[str, Any], config: ModelConfig) -> None:
    """Refuse an architecture beyond MAX_PARAMETERS, or one far larger than the weights file could
    hold, before any memory is allocated for it (the count is taken on the meta device). A file
    only a little too small is left to the tensor-by-tensor check, which names the mismatch."""
    with torch.device("meta"), _NoInitialization():
        count = model_class(config)(config).parameter_count()
    if count > MAX_PARAMETERS:
        raise ModelFileError(f"config.json describes a model of {count:,} parameters; this app loads at most "
                             f"{MAX_PARAMETERS:,}")
    bytes_per_value = STORAGE_DTYPES[(info.get("weights") or {}).get("dtype", "float32")].itemsize
    if 2 * weights_bytes < count * bytes_per_value:
        raise ModelFileError(f"{WEIGHTS_FILE} holds {weights_bytes:,} bytes, far fewer than the {count:,} "
                             "parameters config.json describes: the config and the weights do not belong together")


def _load_tokenizer(folder: Path, info: dict[str, Any], role: str, expected_vocab: int) -> Tokenizer:
    entry = (info.get("tokenizers") or {}).get(role) or {}
    name = SOURCE_TOKENIZER_FILE if role == "source" else TARGET_TOKENIZER_FILE
    if entry.get("file", name) != name:  # the names are fixed: a path from the config is never followed
        raise ModelFileError(f"config.json names the {role} tokenizer {entry.get('file')!r}; a model folder's "
                             f"tokenizers are always {SOURCE_TOKENIZER_FILE} and {TARGET_TOKENIZER_FILE}")
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


def _read_weights(folder: Path, info: dict[str, Any]) -> bytes:
    """The weights file's bytes, once they are known to be the file config.json names (no pickle)."""
    entry = info.get("weights") or {}
    if entry.get("file", WEIGHTS_FILE) != WEIGHTS_FILE:
        raise ModelFileError(f"config.json names the weights {entry.get('file')!r}; a model folder's weights "
                             f"are always {WEIGHTS_FILE}")
    data = _read_file(folder, WEIGHTS_FILE)
    if _looks_like_pickle(data):
        raise ModelFileError(f"{WEIGHTS_FILE} is a pickle/PyTorch file, not safetensors; refusing to load it")
    if _sha256(data) != entry.get("sha256"):
        raise ModelFileError(f"{WEIGHTS_FILE} does not match config.json (sha256 differs): corrupted or replaced")
    return data


def _load_weights(data: bytes, info: dict[str, Any], model: EncoderDecoder) -> None:
    """Put the weights ``data`` into ``model`` once they are a safetensors file whose tensors fit
    its architecture, in the dtype config.json names, every value finite; a tied matrix stored
    once is tied again."""
    try:
        tensors = load_safetensors(data)
    except (SafetensorError, ValueError, RuntimeError) as error:
        raise ModelFileError(f"{WEIGHTS_FILE} is not a valid safetensors file ({error})") from None
    expected = model.state_dict()
    misfit = weights_misfit(expected, tensors)
    if misfit:
        raise ModelFileError(f"{WEIGHTS_FILE} {misfit}")
    _check_stored_values(tensors, info.get("weights") or {})
    _restore_ties(tensors, tied_aliases(expected))
    model.load_state_dict({name: t.to(expected[name].dtype) for name, t in tensors.items()})


def _check_stored_values(tensors: dict[str, torch.Tensor], entry: dict[str, Any]) -> None:
    """Every tensor in the storage dtype of config.json's weights ``entry``, every value finite."""
    storage = STORAGE_DTYPES.get(entry.get("dtype", "float32"))
    for name, tensor in tensors.items():
        if tensor.dtype != storage:
            raise ModelFileError(f"{WEIGHTS_FILE}: {name} is {tensor.dtype}, config.json says {entry.get('dtype')}")
        if tensor.is_floating_point() and not bool(torch.isfinite(tensor).all()):
            raise ModelFileError(f"{WEIGHTS_FILE}: {name} contains NaN or infinite values")


def _restore_ties(tensors: dict[str, torch.Tensor], aliases: dict[str, str]) -> None:
    """Each tied matrix under its every name: stored once, or twice (then equal) by older files."""
    for alias, name in aliases.items():
        if alias in tensors and not torch.equal(tensors[alias], tensors[name]):
            raise ModelFileError(f"{WEIGHTS_FILE}: {alias} must equal {name} (the model ties them) but differs")
        tensors[alias] = tensors[name]


def load_model_folder(folder: Path) -> ModelBundle:
    """Load and verify a model folder; raises :class:`ModelFileError` with the reason."""
    folder = Path(folder)
    if not folder.is_dir():
        raise ModelFileError(f"{folder} is not a model folder (no such directory)")
    files = model_files_folder(folder)
    try:
        return _load_model_files(folder, files)
    except ModelFileError:
        if files == folder:
            raise
        return _load_model_files(folder, folder)  # the replacement finished while we read


def _load_model_files(folder: Path, files: Path) -> ModelBundle:
    """The bundle of ``folder`` from the model files in ``files`` (the folder or its ``.incoming/``)."""
    info = parse_config(folder, files)
    try:
        model_config = ModelConfig.from_dict(info.get("model") or {})
        source_language = str(info["source_language"])
        if not isinstance(info["target_language"], str):
            raise TypeError("target_language must be a string")
    except (EngineError, KeyError, TypeError) as error:
        raise ModelFileError(f"{folder / CONFIG_FILE} has an invalid model section ({error})") from None
    weights = _read_weights(files, info)
    _check_size_before_building(len(weights), info, model_config)
    source_tokenizer = _load_tokenizer(files, info, "source", model_config.src_vocab_size)
    target_tokenizer = _load_tokenizer(files, info, "target", model_config.tgt_vocab_size)
    model = build_model(model_config)
    _load_weights(weights, info, model)
    words, words_note = load_training_words(files, info)  # never raises: without it, the check is unavailable
    translator = Translator(
        model, source_tokenizer, target_tokenizer, source_language, bool(info.get("simplify_chinese", True)),
        words, words_note,
    )
    return ModelBundle(folder, translator, model_config, info)
