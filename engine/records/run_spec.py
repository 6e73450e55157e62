"""What a run is asked to do, :class:`RunSpec` (the engine's own settings objects), read back from its
metrics log's start line and written as ``train`` flags; and :func:`stored_train_arguments`, the
flags a command-line run was started with. No PyTorch here (engine.records.runs reads runs with it).
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from engine.corpus.choice import CorpusChoice, VocabularySizes
from engine.corpus.data import SPLIT_RULE_TEXT
from engine.models.config_file import read_config
from engine.models.model_files import CONFIG_FILE
from engine.settings.config import HIDDEN_SIZE, ModelShape, TrainConfig
from engine.settings.errors import ConfigError, ModelFileError, StoredFileError
from engine.settings.settings_meta import described, flag_name
from engine.training.metrics_log import METRICS_FILE, read_description

COMMAND_PREFIX = "python -m engine train "  # how a command-line run's stored command begins
APP_ONLY_SETTINGS = frozenset({"torch_threads"})  # chosen by the app for its window's sake, not the run's


@dataclass(frozen=True)
class RunSpec:
    """What a run is asked to do: the engine's own settings objects, as they are."""

    corpus: CorpusChoice = field(default_factory=CorpusChoice.dates_task)
    model: ModelShape = ModelShape()
    train: TrainConfig = TrainConfig()
    vocabularies: VocabularySizes = VocabularySizes()

    @classmethod
    def from_description(cls, description: dict[str, Any]) -> RunSpec:
        """The request a run's description (its metrics log's start line, written by engine.training.trainer)
        records; what it does not say keeps the default. ConfigError (naming the setting) for one
        no run of this version wrote."""
        return cls(corpus=_corpus_described(description), model=_known(ModelShape, description.get("model")),
                   train=_known(TrainConfig, description.get("train_config")))

    def train_arguments(self) -> list[str]:
        """The ``python -m engine train`` flags that ask for this (those at their default left out)."""
        corpus = self.corpus
        if corpus.task:
            arguments = ["--task", corpus.task]
        else:
            arguments = ["--corpus", str(corpus.corpus), "--src", corpus.source_language, "--tgt",
                         corpus.target_language, "--split-rule", corpus.split_rule]
            if corpus.token_cache:
                arguments += ["--token-cache", "--tokenizer-sample", str(corpus.tokenizer_sample)]
        arguments += _changed_flags(self.model, ModelShape)
        if self.model.hidden_size != ModelShape().hidden_size:
            arguments += [flag_name("hidden_size", HIDDEN_SIZE), str(self.model.hidden_size)]  # one size for all three
        arguments += _changed_flags(self.train, TrainConfig, skip=APP_ONLY_SETTINGS)
        for flag, size in (("--src-vocab", self.vocabularies.source), ("--tgt-vocab", self.vocabularies.target)):
            arguments += [flag, str(size)] if size else []
        return arguments


def _corpus_described(description: dict[str, Any]) -> CorpusChoice:
    task, data = description.get("task"), description.get("data") or {}
    languages = {key: description[key] for key in ("source_language", "target_language") if description.get(key)}
    if task:
        return CorpusChoice(task=task, **languages)
    rules = {text: rule for rule, text in SPLIT_RULE_TEXT.items()}
    cached = {"tokenizer_sample": data["tokenizer_sample"]} if isinstance(data.get("tokenizer_sample"), int) else {}
    return CorpusChoice(corpus=Path(description.get("corpus_path") or data.get("corpus") or "?"),  # older logs: the name
                        split_rule=rules.get(str(data.get("split_rule")), "strict"),
                        token_cache=bool(data.get("token_cache")), **cached, **languages)


def _known(settings_class: type, values: Any):
    """``settings_class`` from the fields ``values`` gives (others, and missing values, keep the default)."""
    values = values if isinstance(values, dict) else {}
    return settings_class(**{f.name: values[f.name] for f in fields(settings_class) if values.get(f.name) is not None})


def _changed_flags(settings: Any, settings_class: type, skip: frozenset[str] = frozenset()) -> list[str]:
    """The flags (engine.settings.settings_meta) of ``settings``'s fields that differ from their default, or must be given."""
    defaults = {f.name: f.default for f in fields(settings_class)}
    arguments: list[str] = []
    for name, setting in described(settings_class).items():
        value = getattr(settings, name)
        if setting.flag is None or name in skip or (value == defaults[name] and not setting.required):
            continue
        flag = flag_name(name, setting)
        arguments += [flag] if isinstance(value, bool) else [flag, str(value)]
    return arguments


def stored_train_arguments(run_folder: Path) -> list[str] | None:
    """The ``train`` arguments a command-line run was started with (from its metrics log, else its
    model's config.json), so that ``train --resume --out DIR`` needs no other flag; None when the run
    was not started from the command line or records no command."""
    description = read_description(run_folder) or {}  # the first line only: the log may be huge
    command, source = description.get("command"), Path(run_folder) / METRICS_FILE
    if not command:
        try:
            command, source = read_config(run_folder).get("command"), Path(run_folder) / CONFIG_FILE
        except ModelFileError:
            command = None
    if not isinstance(command, str) or not command.startswith(COMMAND_PREFIX):
        return None
    try:
        arguments = shlex.split(command[len(COMMAND_PREFIX):])
    except ValueError as error:
        raise StoredFileError(f"{source}: the command the run was started with cannot be read ({error}); give "
                              "the run's options with --resume") from None
    return [a for a in arguments if a not in ("--resume", "--overwrite")]


def spec_or_none(description: dict[str, Any]) -> RunSpec | None:
    """The request ``description`` records; None when no run of this version wrote it."""
    try:
        return RunSpec.from_description(description)
    except (TypeError, ValueError, ConfigError):
        return None
