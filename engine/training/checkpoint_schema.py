"""The schema of a checkpoint's ``state.json`` and of a run's request (engine.files.schema).

Every value the trainer acts on when it resumes — the progress counters, the clock, the history, the
learning-rate scheduler's state (restored into PyTorch's ``ReduceLROnPlateau`` as it is), Adam's
parameter groups and the run's request — is typed here. Infinity stands only where PyTorch and the
trainer put it before anything was measured (the scheduler's ``best`` and ``mode_worse``, the best
validation loss); a NaN only as the loss of a validation without pairs to score.

Two formats are read: version 2 (``format_version``: the tensors in a file named by its digest, the
state written last as the commit point) and the format before it (``state.safetensors`` beside a
``state.json`` holding its sha256), which runs of the previous version wrote and may still resume.
"""

from __future__ import annotations

from dataclasses import replace

from engine.files.schema import SHA256, Bool, Choice, Int, ListOf, MapOf, Num, Obj, Str, dataclass_spec
from engine.settings.config import ModelConfig

CHECKPOINT_FORMAT = "attention-studio-checkpoint"
CHECKPOINT_VERSION = 2
TENSORS_PATTERN = r"tensors-[0-9a-f]{16}\.safetensors"
ADAM_STATE = ("step", "exp_avg", "exp_avg_sq", "max_exp_avg_sq")  # Adam's per-parameter tensors

COUNT = Int(low=0)
LANGUAGE = Str(max_length=32)

REQUEST = Obj({
    "model": dataclass_spec(ModelConfig, extra=None),
    "source_language": LANGUAGE, "target_language": LANGUAGE,
    "task": Str(max_length=64, nullable=True), "corpus": Str(max_length=4096, nullable=True),
    "corpus_sha256": Str(pattern="[0-9a-f]{64}", nullable=True), "corpus_bytes": Int(low=0, nullable=True),
}, required=frozenset({"model", "source_language", "target_language"}))

SCHEDULER = Obj({
    "factor": Num(0, 1), "default_min_lr": Num(low=0), "min_lrs": ListOf(Num(low=0), 1, 64),
    "patience": COUNT, "cooldown": COUNT, "cooldown_counter": COUNT, "num_bad_epochs": COUNT,
    "eps": Num(low=0), "last_epoch": Int(low=-1), "_last_lr": ListOf(Num(low=0), 1, 64),
    "mode": Choice(("min", "max")), "threshold": Num(low=0), "threshold_mode": Choice(("rel", "abs")),
    "best": Num(finite=False), "mode_worse": Num(finite=False), "verbose": Bool(),
}, required=frozenset({"mode", "best", "num_bad_epochs", "patience", "factor"}))

HISTORY_ENTRY = Obj({
    "epoch": COUNT, "step": COUNT, "valid_loss": Num(finite=False), "bleu": Num(), "chrf": Num(),
    "exact_match": Num(), "learning_rate": Num(low=0), "target_tokens": COUNT, "long_bleu": Num(), "score": Num(),
}, extra=Num(nullable=True))

PROGRESS = Obj({
    "step": COUNT, "epoch": COUNT, "batch_in_epoch": COUNT, "skipped": COUNT, "best_bleu": Num(),
    "best_valid_loss": Num(finite=False), "best_epoch": COUNT, "epochs_without_improvement": COUNT,
    "train_seconds": Num(low=0), "train_tokens": COUNT, "elapsed_seconds": Num(low=0),
    "history": ListOf(HISTORY_ENTRY, max_items=1_000_000), "request": replace(REQUEST, nullable=True),
    "concat_from_epoch": Int(low=0, nullable=True), "scheduler": SCHEDULER,
}, required=frozenset({"step", "epoch", "batch_in_epoch", "scheduler"}))

# Adam's settings bounded as the run's settings are (TrainConfig: a learning rate of at most 1; Adam's own
# betas below 1, eps 1e-8, no weight decay): a value torch takes but whose first step overflows (lr 1e308,
# betas of 1, eps 0 beside a huge weight decay) is refused at load, in one line.
LEARNING_RATE, ADAM_BETA, ADAM_EPS = Num(0, 1), Num(0, 0.99999), Num(1e-12, 1e-2)
PARAM_GROUP = Obj({
    "lr": LEARNING_RATE, "betas": ListOf(ADAM_BETA, 2, 2), "eps": ADAM_EPS, "weight_decay": Num(0, 1),
    "amsgrad": Bool(), "maximize": Bool(), "foreach": Bool(nullable=True), "capturable": Bool(),
    "differentiable": Bool(), "fused": Bool(nullable=True), "decoupled_weight_decay": Bool(),
    "initial_lr": LEARNING_RATE, "params": ListOf(Int(0, 10_000_000), 1),
}, required=frozenset({"lr", "betas", "eps", "weight_decay", "params"}))

OPTIMIZER = Obj({
    "param_groups": ListOf(PARAM_GROUP, 1, 64),
    "plain": MapOf(Obj({}, extra=Num()), key_pattern="[0-9]{1,7}"),  # Adam keeps no plain values; none allowed but numbers
}, required=frozenset({"param_groups", "plain"}))

STATE_V2 = Obj({
    "format": Choice((CHECKPOINT_FORMAT,)), "format_version": Choice((CHECKPOINT_VERSION,)),
    "tensors": Obj({"file": Str(pattern=TENSORS_PATTERN), "sha256": SHA256}, frozenset({"file", "sha256"})),
    "optimizer": OPTIMIZER, "progress": PROGRESS, "tokenizers": ListOf(SHA256, 2, 2), "digest": SHA256,
}, required=frozenset({"format", "format_version", "tensors", "optimizer", "progress"}))

STATE_LEGACY = Obj({"sha256": SHA256, "optimizer": OPTIMIZER, "progress": PROGRESS, "digest": SHA256},
                   required=frozenset({"sha256", "optimizer", "progress"}))


def state_spec(document: object) -> Obj:
    """The spec a ``state.json`` is read with: version 2 when it says so, else the earlier format."""
    return STATE_V2 if isinstance(document, dict) and "format_version" in document else STATE_LEGACY
