"""Typed, frozen configuration of the model, of training and of decoding.

Each dataclass validates itself in ``__post_init__`` and raises :class:`ConfigError` naming the
valid choices, so a bad value is caught where it is written, not deep inside PyTorch. Each field is
described once, where it is declared (:func:`engine.settings.settings_meta.setting`): its range or choices,
help, ``train`` flag and Train form row; the checks, the model folder schema's model section, the
flags and the form's rows follow from that description.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, fields, replace
from typing import Any

from engine.settings.errors import ConfigError
from engine.settings.scorer_table import SCORER_NAMES, SCORER_TABLE  # SCORER_NAMES re-exported: the one list of names
from engine.settings.settings_meta import Row, Setting, check_settings, setting

CELL_NAMES = ("gru", "lstm", "rnn")
POSITION_KINDS = ("sinusoidal", "learned")  # a Transformer's positions (engine.networks.transformer_layers.Positions)
LR_SCHEDULES = ("plateau", "budget")  # decay on a valid-BLEU plateau, or linearly over the time budget

# Hard cap on the characters of one input sentence; longer input is truncated (and reported).
MAX_INPUT_CHARS = 1000
# Hard cap on the source sub-word tokens fed to the encoder.
MAX_SOURCE_TOKENS = 200

_HIDDEN_ROW = Row(tip="Hidden size of the encoder (per direction), the decoder and the additive scorer's layer; "
                  "larger learns more, slower", step=32, low=8, high=2048)  # one spin box sets all three sizes
# The hidden size a person chooses: one derived setting, described once, that sets the three sizes below
# (ModelShape.with_hidden_size; the train flag --hidden-size, the form's spin box, a run's flags written back).
HIDDEN_SIZE = Setting(help="encoder size per direction and decoder size", low=1, high=8192, flag="--hidden-size",
                      row=_HIDDEN_ROW, family="rnn")
HIDDEN_SIZE_FIELDS = ("encoder_hidden_size", "decoder_hidden_size", "attention_size")


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
    """The architecture a person chooses (engine/networks/model.py): everything of :class:`ModelConfig` but
    the vocabulary sizes, which the tokenizers decide. The one source of these settings for the
    command line and the app alike."""

    # Each field's Setting (engine/settings/settings_meta.py) gives its range, help, train flag and form row; the
    # range checks, the model folder schema, the flags and the form rows are derived from it.
    scorer: str = setting("additive", choices=SCORER_NAMES, help="attention scorer",
                          required=True)  # attention scorer F(s, h); the form's scorer combo also offers "all"
    cell: str = setting("gru", choices=CELL_NAMES, family="rnn", help="recurrent cell (default gru)",
                        row=Row(label="Cell", tip="Recurrent cell of encoder and decoder; GRU trains fastest and "
                                "most reliably", choice_labels=("GRU", "LSTM", "Plain RNN (tanh)")))
    embedding_size: int = setting(128, low=1, high=8192, help="token embedding size",
                                  row=Row(tip="Size of the token embeddings (both sides)", step=16, low=8, high=1024))
    encoder_hidden_size: int = setting(256, low=1, high=8192, flag=None, row=_HIDDEN_ROW,
                                       family="rnn", help="encoder size per direction; the memory is 2x this before projection")
    encoder_layers: int = setting(1, low=1, high=8, flag=None, family="rnn", help="stacked bidirectional encoder layers")
    decoder_hidden_size: int = setting(256, low=1, high=8192, flag=None, row=_HIDDEN_ROW,
                                       family="rnn", help="decoder state s_i; the memory h_j is projected to this size once")
    attention_size: int = setting(256, low=1, high=8192, flag=None, row=_HIDDEN_ROW,
                                  family="rnn", help="hidden size of the additive scorer's tanh layer")
    dropout: float = setting(0.2, low=0.0, high=0.9, help="dropout rate",
                             row=Row(label="Dropout", tip="Dropout on embeddings and the output layer during "
                                     "training (off when translating)", step=0.05))  # embeddings and pre-output
    attention_dropout: float = setting(
        0.0, low=0.0, high=0.9,
        help="dropout on the attention weights that form each context in training, so that it cannot rest on one "
        "source position (0 = off; a no-op for the 'none' scorer)",
        row=Row(label="Attention dropout", tip="Attention scorers only: during training, drop this share of the "
                "attention weights when forming each context, so that it cannot rest on one source token; off "
                "when translating, and the heatmap shows the weights as computed", step=0.05, special="off"))
    tie_embeddings: bool = setting(
        False, help="share the target embedding with the output layer (fewer parameters)",
        row=Row(label="Tie output layer to the target embedding", tip="The output layer reuses the target "
                "embedding matrix (Press & Wolf 2017): about a million fewer parameters and faster steps; the "
                "shipped models use it"))  # pre-output of size E

    transformer_layers: int = setting(
        3, low=1, high=12, family="transformer", help="Transformer only: layers of the encoder and of the decoder (each)",
        row=Row(label="Layers", tip="Transformer only: self-attention layers in the encoder and in the decoder"))
    feedforward_size: int = setting(
        1024, low=8, high=16384, family="transformer", help="Transformer only: the inner size of each layer's feed-forward block",
        row=Row(label="Feed-forward size", tip="Transformer only: the inner size of each layer's feed-forward "
                "block (its model size is the embedding size)", step=128, low=64, high=4096))
    activation_dropout: float = setting(
        0.0, low=0.0, high=0.9, family="transformer", help="Transformer only: dropout inside the feed-forward blocks, after the ReLU",
        row=Row(label="Activation dropout", tip="Transformer only: dropout after the ReLU of each feed-forward "
                "block, in training", step=0.05, special="off"))
    positions: str = setting(
        "sinusoidal", choices=POSITION_KINDS, family="transformer", help="Transformer only: how positions are encoded",
        row=Row(label="Positions", tip="Transformer only: fixed sinusoids (any length) or a vector learned per "
                "position", choice_labels=("Sinusoidal", "Learned")))

    def __post_init__(self) -> None:
        check_settings(self)  # every described field, a ModelConfig's vocabulary sizes too
        info = SCORER_TABLE[self.scorer]
        heads = info.heads
        if info.family == "transformer":
            if self.embedding_size % heads:
                raise ConfigError(f"the {self.scorer} model splits its size (the embedding size) into {heads} heads: "
                                  f"embedding_size must be a multiple of {heads}; got {self.embedding_size}")
            return
        if self.decoder_hidden_size % heads:
            raise ConfigError(f"the {self.scorer} scorer splits the decoder size into {heads} heads: "
                              f"decoder_hidden_size must be a multiple of {heads}; got {self.decoder_hidden_size}")

    def with_hidden_size(self, size: int) -> ModelShape:
        """One hidden size (:data:`HIDDEN_SIZE`) for the encoder (per direction), the decoder and the
        additive scorer's layer, as the command line's ``--hidden-size`` and the app's form set it."""
        sizes: dict[str, Any] = dict.fromkeys(HIDDEN_SIZE_FIELDS, size)
        return replace(self, **sizes)

    @property
    def hidden_size(self) -> int:
        """The one hidden size (:data:`HIDDEN_SIZE`): the decoder's, which the other two follow."""
        return self.decoder_hidden_size

    def with_vocabularies(self, src_vocab_size: int, tgt_vocab_size: int) -> ModelConfig:
        """The full configuration once the tokenizers have fixed the vocabulary sizes."""
        return ModelConfig(src_vocab_size=src_vocab_size, tgt_vocab_size=tgt_vocab_size, **asdict(self))


@dataclass(frozen=True)
class ModelConfig(ModelShape):
    """Architecture of the encoder–decoder (engine/networks/model.py): a :class:`ModelShape` and the
    vocabulary sizes of its tokenizers. Stored flat in a model folder's config.json."""

    src_vocab_size: int = setting(low=8, high=1_000_000, flag=None, kw_only=True,  # ids 0..V-1
                                  help="SentencePiece vocabulary of the source language")
    tgt_vocab_size: int = setting(low=8, high=1_000_000, flag=None, kw_only=True,
                                  help="SentencePiece vocabulary of the target language")

    @property
    def shape(self) -> ModelShape:
        """The architecture without the vocabulary sizes."""
        return ModelShape(**{f.name: getattr(self, f.name) for f in fields(ModelShape)})


@dataclass(frozen=True)
class TrainConfig(_Serializable):
    """How a model is trained. Defaults suit the Tatoeba zh→en model on a 2-core CPU."""

    epochs: int = setting(30, low=1, high=10_000, help="maximum epochs",  # early stopping or max_minutes may end sooner
                          row=Row(label="Epochs", tip="Maximum passes over the training pairs; early stopping or the "
                                  "time budget may end sooner"))
    max_minutes: float = setting(0.0, low=0.0, high=100_000.0, unit="minutes",
                                 help="wall-clock budget in minutes (0 = none)",  # ends cleanly with the best model saved
                                 row=Row(label="Time budget (min)", tip="Wall-clock budget in minutes (pauses "
                                         "excluded); the run ends cleanly with its best model saved. 'none' = no budget",
                                         decimals=1, special="none"))
    max_steps: int = setting(0, low=0, high=100_000_000, unit="steps",
                             help="stop after this many optimizer steps (0 = no limit); the model is validated and saved")
    max_target_tokens: int = setting(0, low=0, high=10**12, unit="tokens",
                                     help="stop after this many target tokens seen (0 = no limit): a budget that any "
                                     "machine reaches alike; the model is validated and saved")
    batch_size: int = setting(64, low=1, high=4096, help="sentences per batch",
                              row=Row(label="Batch size", tip="Sentence pairs per optimizer step", step=16))
    learning_rate: float = setting(1e-3, low=1e-7, high=1.0, help="Adam learning rate",
                                   row=Row(label="Learning rate", tip="Adam's learning rate, changed during the run by "
                                           "the schedule below", step=0.0005, decimals=5, low=0.00001))
    warmup_steps: int = setting(0, low=0, high=1_000_000, unit="steps",
                                help="raise the learning rate linearly from 0 over the first N optimizer steps, then "
                                "follow the schedule (0 = off; a Transformer trains badly without it)",
                                row=Row(label="Warm-up steps", tip="Raise the learning rate from 0 over the first N "
                                        "optimizer steps; a Transformer trains badly without it (a few hundred)",
                                        step=100, high=20_000, special="off"))
    clip_norm: float = setting(1.0, low=0.0, high=1000.0, flag=None, help="gradient clipping (global L2 norm)")
    label_smoothing: float = setting(0.1, low=0.0, high=0.5, flag=None, help="label smoothing (0 disables)")
    lr_decay_factor: float = setting(0.5, low=0.01, high=1.0, flag=None,
                                     help="multiply the learning rate by this on a plateau of valid BLEU")
    lr_patience: int = setting(1, low=0, high=1000,
                               help="plateau schedule: validations without improvement before the rate is decayed")
    min_learning_rate: float = setting(1e-5, flag=None, help="the lowest rate a schedule decays to")
    lr_schedule: str = setting("plateau", choices=LR_SCHEDULES,  # "budget" needs max_minutes
                               help="plateau: halve the rate when valid BLEU stalls; budget: hold it, then decay it "
                               "linearly to the minimum over the last part of --max-minutes",
                               row=Row(label="Schedule", tip="Plateau: halve the rate whenever validation BLEU stops "
                                       "improving. Budget (needs a time budget): keep the rate for the first half of "
                                       "the budget, then lower it steadily to the minimum, so the run ends well "
                                       "annealed", choice_labels=("Halve on a BLEU plateau",
                                                                  "Hold, then decay over the budget")))
    lr_decay_start: float = setting(0.5, low=0.0, high=1.0,
                                    help="with --lr-schedule budget: fraction of the budget after which the rate decays")
    temperature_warmup: float = setting(
        0.0, low=0.0, high=1.0,
        help="fraction of the training over which unscaled dot/bilinear scores start divided by √d (as scaled dot) "
        "and warm up to the plain formula; keeps them from locking onto one source position (0 = off)",
        row=Row(label="Score warm-up", tip="Dot and bilinear only: for this fraction of the run their scores start "
                "divided by √d (as scaled dot) and warm up to the plain formula, which keeps their attention from "
                "locking onto one source token; 'off' trains the plain formula throughout", step=0.05, special="off"))
    concat_max_group: int = setting(
        1, low=1, high=16, flag="--concat-max",
        help="join up to K consecutive training pairs (k = 2..K, after a seeded shuffle) into one long example, so "
        "that the model learns inputs of several sentences (1 = off)",
        row=Row(tip="Long examples: each epoch, join 2 to K consecutive training pairs (after a seeded shuffle) into "
                "one example, so that the model learns inputs of several sentences; valid and test pairs are never "
                "joined. 'off' trains on single pairs only", special="off"))
    concat_share: float = setting(0.0, low=0.0, high=0.9,  # engine.corpus.concat
                                  help="share of each epoch's examples that are joined pairs, next to the single pairs "
                                  "(0 = off; needs --concat-max 2 or more)",
                                  row=Row(tip="Share of each epoch's examples that are joined pairs, next to every "
                                          "single pair", step=0.05, special="none"))
    concat_start: float = setting(
        0.0, low=0.0, high=0.95,
        help="a length curriculum: train on single pairs only for this fraction of the training (of --max-minutes, "
        "else of the epochs), then add the joined examples (0 = from the start)",
        row=Row(tip="A length curriculum: the fraction of the run trained on single pairs only before the joined "
                "examples join in; 'at once' mixes them in from the start", step=0.05, special="at once"))
    keep_snapshots: int = setting(0, low=0, high=100,
                                  help="keep the weights of N validations in checkpoint/snapshots (float16): the "
                                  "last 5 in a row for checkpoint averaging (python -m engine average), older ones "
                                  "thinned evenly over the run for going back through training; 0 = none",
                                  row=Row(label="Keep snapshots", tip="Keep the weights of this many validations "
                                          "(float16, in the run's checkpoint folder): the last 5 in a row, older ones "
                                          "thinned evenly over the run, so that a click on a training curve "
                                          "translates with the model as it was near that step. 'none' keeps only "
                                          "the saved model", special="none", low=0, high=100))
    subword_alpha: float = setting(0.0, low=0.0, high=1.0,
                                   help="subword regularization (Kudo 2018): each epoch, segment every training "
                                   "example afresh, drawn from its 64 best segmentations with smoothing α (0.1–0.5 "
                                   "typical; 0 = off, the single best segmentation); seeded, so a run repeats")
    early_stopping_patience: int = setting(4, low=0, high=1000,
                                           help="validations without improvement before the run stops (0 = never)",
                                           row=Row(label="Early stopping", tip="Stop after this many epochs without a "
                                                   "better validation BLEU; 'off' never stops early", special="off"))
    long_validation: bool = setting(False, help="also validate on the valid pairs joined 1-8 at a time; the best "
                                    "model, the plateau schedule and early stopping then follow the mean of the two "
                                    "BLEUs")
    max_consecutive_bad_steps: int = setting(5, low=1, high=1000, flag=None,
                                             help="non-finite losses/gradients in a row before DivergedError")
    validate_every_steps: int = setting(0, flag="--validate-every",
                                        help="extra validation every N steps (0 = per epoch)",
                                        row=Row(label="Validate", tip="Validate (and snapshot the attention) every N "
                                                "steps as well as after each epoch; 'each epoch' = only after each "
                                                "epoch", step=100, special="each epoch", low=0, high=1_000_000))
    validate_from: float = setting(0.0, low=0.0, high=0.95,
                                   help="skip the end-of-epoch validations before this fraction of the training (of "
                                   "--max-minutes, else of the epochs) and give their time to training; a run with a "
                                   "budget schedule improves to its end, so its best model is its last (0 = every "
                                   "epoch)")
    sample_count: int = setting(3, flag=None, help="sample translations (with attention) reported per validation")
    seed: int = setting(1, help="random seed (same seed, same run)",  # seeds torch and the batch order
                        row=Row(label="Seed", tip="Random seed: same seed and settings, same run", low=0,
                                high=2**31 - 1))
    torch_threads: int = setting(0, low=0, high=256, flag="--threads",  # torch.set_num_threads
                                 help="torch CPU threads (0 = torch's default)")
    device: str = setting("auto", choices=("auto", "cpu", "cuda", "mps"),  # engine.networks.device.DEVICE_CHOICES
                          help="auto (default: CUDA, then Apple MPS, then the CPU), or one of them; the model folder "
                          "is the same whatever trained it")
    precision: str = setting("fp32", choices=("fp32", "bf16", "fp16"),  # engine.networks.device.PRECISION_CHOICES
                             help="fp32 (default), or bf16 / fp16 mixed precision (autocast; CUDA only)")

    def __post_init__(self) -> None:
        check_settings(self)
        if self.concat_share > 0 and self.concat_max_group < 2:
            raise ConfigError("concat_share joins pairs into long examples: set concat_max_group to 2 or more "
                              "(up to 16), or concat_share to 0")
        if self.lr_schedule == "budget" and self.max_minutes <= 0:
            raise ConfigError("lr_schedule 'budget' decays over the time budget: set max_minutes > 0 "
                              "or use lr_schedule 'plateau'")

    def warmup_learning_rate(self, step: int) -> float | None:
        """The rate at optimizer step ``step`` (0-based) while the warm-up lasts; None after it."""
        if step >= self.warmup_steps:
            return None
        return self.learning_rate * (step + 1) / self.warmup_steps

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

    beam_size: int = setting(1, low=1, high=10, help="beam size (1 = greedy search)")
    length_penalty: float = setting(1.0, low=0.0, high=5.0,  # score = log p / lp
                                    help="beam: α of GNMT's lp = ((5+len)/6)^α (0 = raw log p)")
    max_length_ratio: float = setting(2.0, low=0.1, high=10.0,
                                      help="output capped at ratio * source tokens + max_length_extra")
    max_length_extra: int = setting(10, low=0, high=1000, help="output tokens allowed beyond the ratio")
    top_k: int = setting(5, low=1, high=50, help="alternatives reported per step")
    coverage_penalty: float = setting(0.0, low=0.0, high=5.0,  # beside log p / lp
                                      help="beam: β of GNMT's cp = β·Σ_j log min(Σ_i α_ij, 1) (0 = off)")
    no_repeat_ngram: int = setting(0, low=0, high=20,
                                   help="no n-gram of output tokens produced twice, beam and greedy (0 = off)")

    def __post_init__(self) -> None:
        if isinstance(self.no_repeat_ngram, bool) or not isinstance(self.no_repeat_ngram, int):
            raise ConfigError(f"no_repeat_ngram must be a whole number between 0 and 20; "
                              f"got {self.no_repeat_ngram!r}")
        check_settings(self)

    def max_output_length(self, source_length: int) -> int:
        """Output tokens allowed (EOS included) for a source of ``source_length`` tokens."""
        return int(self.max_length_ratio * source_length) + self.max_length_extra
