"""Typed, frozen configuration of the model, of training and of decoding.

Each dataclass validates itself in ``__post_init__`` and raises :class:`ConfigError` naming the
valid choices, so a bad value is caught where it is written, not deep inside PyTorch.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field, fields, replace
from typing import Any

from engine.errors import ConfigError
from engine.scorer_table import SCORER_NAMES, SCORER_TABLE  # SCORER_NAMES re-exported: the one list of names

CELL_NAMES = ("gru", "lstm", "rnn")
LR_SCHEDULES = ("plateau", "budget")  # decay on a valid-BLEU plateau, or linearly over the time budget

# Hard cap on the characters of one input sentence; longer input is truncated (and reported).
MAX_INPUT_CHARS = 1000
# Hard cap on the source sub-word tokens fed to the encoder.
MAX_SOURCE_TOKENS = 200


def _check_choice(name: str, value: str, choices: tuple[str, ...]) -> None:
    if value not in choices:
        raise ConfigError(f"{name} must be one of {', '.join(choices)}; got {value!r}")


def _check_range(name: str, value: float, low: float, high: float) -> None:
    if not (low <= value <= high):
        raise ConfigError(f"{name} must be between {low} and {high}; got {value!r}")


class _Serializable:
    """Round trip through plain JSON dictionaries (unknown keys are refused)."""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)  # type: ignore[call-overload]

    @classmethod
    def from_dict(cls, data: dict[str, Any]):
        known = {f.name for f in fields(cls)}  # type: ignore[arg-type]
        unknown = sorted(set(data) - known)
        if unknown:
            raise ConfigError(f"unknown {cls.__name__} keys: {', '.join(unknown)}; valid: {', '.join(sorted(known))}")
        return cls(**data)


@dataclass(frozen=True)
class ModelShape(_Serializable):
    """The architecture a person chooses (engine/model.py): everything of :class:`ModelConfig` but
    the vocabulary sizes, which the tokenizers decide. The one source of these settings for the
    command line and the app alike."""

    scorer: str = "additive"  # attention scorer F(s, h): one of SCORER_NAMES
    cell: str = "gru"  # recurrent cell of encoder and decoder: gru (default), lstm, rnn
    embedding_size: int = 128  # token embeddings, both sides
    encoder_hidden_size: int = 256  # per direction; the memory is 2x this before projection
    encoder_layers: int = 1  # stacked bidirectional layers
    decoder_hidden_size: int = 256  # s_i; the memory h_j is projected to this size once
    attention_size: int = 256  # hidden size of the additive scorer's tanh layer
    dropout: float = 0.2  # on embeddings and the pre-output layer; off at inference
    attention_dropout: float = 0.0  # on the weights α_ij that form c_i in training; off at inference
    tie_embeddings: bool = False  # output layer shares the target embedding (pre-output of size E)

    def __post_init__(self) -> None:
        _check_choice("scorer", self.scorer, SCORER_NAMES)
        _check_choice("cell", self.cell, CELL_NAMES)
        for name in ("embedding_size", "encoder_hidden_size", "decoder_hidden_size", "attention_size"):
            _check_range(name, getattr(self, name), 1, 8192)
        _check_range("encoder_layers", self.encoder_layers, 1, 8)
        _check_range("dropout", self.dropout, 0.0, 0.9)
        _check_range("attention_dropout", self.attention_dropout, 0.0, 0.9)
        heads = SCORER_TABLE[self.scorer].heads
        if self.decoder_hidden_size % heads:
            raise ConfigError(f"the {self.scorer} scorer splits the decoder size into {heads} heads: "
                              f"decoder_hidden_size must be a multiple of {heads}; got {self.decoder_hidden_size}")

    def with_hidden_size(self, size: int) -> ModelShape:
        """One hidden size for the encoder (per direction), the decoder and the additive scorer's
        layer, as the command line's ``--hidden-size`` and the app's form set it."""
        return replace(self, encoder_hidden_size=size, decoder_hidden_size=size, attention_size=size)

    def with_vocabularies(self, src_vocab_size: int, tgt_vocab_size: int) -> ModelConfig:
        """The full configuration once the tokenizers have fixed the vocabulary sizes."""
        return ModelConfig(src_vocab_size=src_vocab_size, tgt_vocab_size=tgt_vocab_size, **asdict(self))


@dataclass(frozen=True)
class ModelConfig(ModelShape):
    """Architecture of the encoder–decoder (engine/model.py): a :class:`ModelShape` and the
    vocabulary sizes of its tokenizers. Stored flat in a model folder's config.json."""

    src_vocab_size: int = field(kw_only=True)  # SentencePiece vocabulary of the source language (ids 0..V-1)
    tgt_vocab_size: int = field(kw_only=True)  # SentencePiece vocabulary of the target language

    def __post_init__(self) -> None:
        super().__post_init__()
        for name in ("src_vocab_size", "tgt_vocab_size"):
            _check_range(name, getattr(self, name), 8, 1_000_000)

    @property
    def shape(self) -> ModelShape:
        """The architecture without the vocabulary sizes."""
        return ModelShape(**{f.name: getattr(self, f.name) for f in fields(ModelShape)})


@dataclass(frozen=True)
class TrainConfig(_Serializable):
    """How a model is trained. Defaults suit the Tatoeba zh→en model on a 2-core CPU."""

    epochs: int = 30  # upper bound; early stopping or max_minutes may end sooner
    max_minutes: float = 0.0  # wall-clock budget, 0 = none; ends cleanly with the best model saved
    max_steps: int = 0  # optimizer steps at most, 0 = no limit; ends like the time budget
    max_target_tokens: int = 0  # target tokens seen at most (a budget any machine reaches alike), 0 = none
    batch_size: int = 64  # sentences per batch
    learning_rate: float = 1e-3  # Adam
    clip_norm: float = 1.0  # gradient clipping (global L2 norm)
    label_smoothing: float = 0.1  # 0 disables
    lr_decay_factor: float = 0.5  # multiply the learning rate on a plateau of valid BLEU
    lr_patience: int = 1  # epochs without improvement before decaying
    min_learning_rate: float = 1e-5
    lr_schedule: str = "plateau"  # one of LR_SCHEDULES; "budget" needs max_minutes
    lr_decay_start: float = 0.5  # "budget": fraction of max_minutes after which the rate decays linearly
    temperature_warmup: float = 0.0  # fraction of training over which dot/bilinear scores warm up; 0 = off
    concat_max_group: int = 1  # join up to this many training pairs into one long example; 1 = off
    concat_share: float = 0.0  # share of each epoch's examples that are joined pairs (engine.concat)
    concat_start: float = 0.0  # fraction of training on single pairs only before joined ones join in
    keep_snapshots: int = 0  # weights of the last N validations kept for checkpoint averaging; 0 = none
    subword_alpha: float = 0.0  # subword regularization: each epoch's segmentations sampled with this α; 0 = off
    early_stopping_patience: int = 4  # epochs without a better valid BLEU before stopping; 0 = off
    long_validation: bool = False  # also validate on the valid pairs joined 1–8 at a time; judge on both BLEUs' mean
    max_consecutive_bad_steps: int = 5  # non-finite losses/gradients in a row before DivergedError
    validate_every_steps: int = 0  # extra validations inside an epoch; 0 = once per epoch
    validate_from: float = 0.0  # no end-of-epoch validation before this fraction of training; 0 = every epoch
    sample_count: int = 3  # sample translations (with attention) reported per validation
    seed: int = 1  # seeds torch and the batch order: same seed, same run
    torch_threads: int = 0  # torch.set_num_threads; 0 leaves torch's default
    device: str = "auto"  # engine.device: auto (CUDA, then MPS, then CPU), cpu, cuda or mps
    precision: str = "fp32"  # fp32, or bf16 / fp16 autocast (CUDA only)

    def __post_init__(self) -> None:
        _check_range("epochs", self.epochs, 1, 10_000)
        _check_range("max_minutes", self.max_minutes, 0.0, 100_000.0)
        _check_range("max_steps", self.max_steps, 0, 100_000_000)
        _check_range("max_target_tokens", self.max_target_tokens, 0, 10**12)
        _check_range("lr_patience", self.lr_patience, 0, 1000)
        _check_range("early_stopping_patience", self.early_stopping_patience, 0, 1000)
        _check_range("batch_size", self.batch_size, 1, 4096)
        _check_range("learning_rate", self.learning_rate, 1e-7, 1.0)
        _check_range("clip_norm", self.clip_norm, 0.0, 1000.0)
        _check_range("label_smoothing", self.label_smoothing, 0.0, 0.5)
        _check_range("lr_decay_factor", self.lr_decay_factor, 0.01, 1.0)
        _check_range("max_consecutive_bad_steps", self.max_consecutive_bad_steps, 1, 1000)
        _check_range("torch_threads", self.torch_threads, 0, 256)
        _check_choice("lr_schedule", self.lr_schedule, LR_SCHEDULES)
        _check_range("lr_decay_start", self.lr_decay_start, 0.0, 1.0)
        _check_range("temperature_warmup", self.temperature_warmup, 0.0, 1.0)
        _check_range("concat_max_group", self.concat_max_group, 1, 16)
        _check_range("concat_share", self.concat_share, 0.0, 0.9)
        _check_range("concat_start", self.concat_start, 0.0, 0.95)
        _check_range("keep_snapshots", self.keep_snapshots, 0, 100)
        _check_range("subword_alpha", self.subword_alpha, 0.0, 1.0)
        _check_range("validate_from", self.validate_from, 0.0, 0.95)
        _check_choice("device", self.device, ("auto", "cpu", "cuda", "mps"))
        _check_choice("precision", self.precision, ("fp32", "bf16", "fp16"))
        if self.concat_share > 0 and self.concat_max_group < 2:
            raise ConfigError("concat_share joins pairs into long examples: set concat_max_group to 2 or more "
                              "(up to 16), or concat_share to 0")
        if self.lr_schedule == "budget" and self.max_minutes <= 0:
            raise ConfigError("lr_schedule 'budget' decays over the time budget: set max_minutes > 0 "
                              "or use lr_schedule 'plateau'")

    def budget_learning_rate(self, elapsed_seconds: float) -> float:
        """The "budget" schedule's rate after ``elapsed_seconds`` of training: the base rate until
        ``lr_decay_start`` of the budget, then a straight line down to ``min_learning_rate`` at its end
        (budgeted training, Li et al. 2020: a run that must stop at a fixed time ends annealed)."""
        budget = 60.0 * self.max_minutes
        fraction = min(max(elapsed_seconds / budget, 0.0), 1.0)
        if fraction <= self.lr_decay_start:
            return self.learning_rate
        remaining = (1.0 - fraction) / max(1.0 - self.lr_decay_start, 1e-9)
        return self.min_learning_rate + (self.learning_rate - self.min_learning_rate) * remaining

    def score_temperature(self, fraction: float, size: int) -> float:
        """The training temperature of the unscaled scorers (dot, bilinear) once ``fraction`` of the
        training is done: √size at the start — exactly the scaled-dot scorer's softness — falling
        geometrically to 1 at ``temperature_warmup``, and 1 from then on (always 1 when it is 0).

        Unscaled scores grow with the vector size and saturate the softmax early in training, which
        then locks attention onto one source position (the sentence's first or last token, where the
        encoder's summary sits); starting soft lets alignments form first. The formula the model
        ends with — and is validated, saved and decoded with — is the one as written."""
        if self.temperature_warmup <= 0 or fraction >= self.temperature_warmup:
            return 1.0
        return math.sqrt(size) ** (1.0 - max(fraction, 0.0) / self.temperature_warmup)


@dataclass(frozen=True)
class DecodeConfig(_Serializable):
    """How a sentence is decoded."""

    beam_size: int = 1  # 1 = greedy search
    length_penalty: float = 1.0  # beam: α of GNMT's lp = ((5+len)/6)^α; score = log p / lp; 0 = raw log p
    max_length_ratio: float = 2.0  # output capped at ratio * source tokens + max_length_extra
    max_length_extra: int = 10
    top_k: int = 5  # alternatives reported per step
    coverage_penalty: float = 0.0  # beam: β of GNMT's cp = β·Σ_j log min(Σ_i α_ij, 1) beside log p / lp; 0 = off
    no_repeat_ngram: int = 0  # no n-gram of output tokens produced twice (beam and greedy); 0 = off

    def __post_init__(self) -> None:
        _check_range("beam_size", self.beam_size, 1, 10)
        _check_range("length_penalty", self.length_penalty, 0.0, 5.0)
        _check_range("max_length_ratio", self.max_length_ratio, 0.1, 10.0)
        _check_range("max_length_extra", self.max_length_extra, 0, 1000)
        _check_range("top_k", self.top_k, 1, 50)
        _check_range("coverage_penalty", self.coverage_penalty, 0.0, 5.0)
        if isinstance(self.no_repeat_ngram, bool) or not isinstance(self.no_repeat_ngram, int):
            raise ConfigError(f"no_repeat_ngram must be a whole number between 0 and 20; "
                              f"got {self.no_repeat_ngram!r}")
        _check_range("no_repeat_ngram", self.no_repeat_ngram, 0, 20)

    def max_output_length(self, source_length: int) -> int:
        """Output tokens allowed (EOS included) for a source of ``source_length`` tokens."""
        return int(self.max_length_ratio * source_length) + self.max_length_extra
