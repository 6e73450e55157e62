"""A run's state, one owner: :class:`RunFolder`, the one reader and writer of a training run's record
for everything outside the engine's own training code (the command line's resume, the app).

A run folder holds what the engine wrote for one run: its metrics log (engine.records.metrics_log: what the
run was asked for, then every step, validation and how it ended), its checkpoint
(engine.training.checkpoint: where it stopped), its run lock (engine.files.run_lock) and, once a validation saved
one, its model (``config.json`` and the weights). :class:`RunFolder` reads them through those
modules and gives them back typed:

- :meth:`RunFolder.request`: what the run was asked to do (:class:`RunSpec`: the corpus, the model
  shape, the training configuration), from the metrics log's start line;
- :meth:`RunFolder.train_arguments`: the ``train`` flags that continue it from the command line —
  the command it was started (or last resumed) with, or, for a run started in the app, its request
  written as flags — so both resume each other's runs;
- :meth:`RunFolder.progress`: its checkpoint's epoch, step, validation history and time;
- :meth:`RunFolder.phase`: where it stands (:class:`RunPhase`), and :meth:`RunFolder.why_not_resumable`;
- :meth:`RunFolder.follow`: the log's lines from an offset on (a torn last line waits for the next
  read), and :meth:`RunFolder.discard`: the rule for removing a folder that holds nothing worth keeping.

:func:`resumable_runs` lists a models folder's runs that can continue, newest first.
"""

from __future__ import annotations

import shlex
import shutil
from dataclasses import dataclass, field, fields
from enum import Enum
from pathlib import Path
from typing import Any

from engine.corpus.data import SPLIT_RULE_TEXT, Pair
from engine.evaluation.evaluate import Evaluation
from engine.evaluation.run_report import run_has_ended, score_on_test
from engine.files.run_lock import RunFolderError, RunFolderLock, claim_run_folder, lock_holder
from engine.models.bundle import CONFIG_FILE, read_config
from engine.records.metrics_log import (
    METRICS_FILE,
    LogRead,
    events_from_records,
    last_finish_reason,
    read_description,
    read_log,
    run_description,
)
from engine.settings.config import ModelShape, TrainConfig
from engine.settings.errors import ConfigError, ModelFileError, StoredFileError
from engine.settings.settings_meta import described, flag_name
from engine.training.checkpoint import checkpoint_progress, checkpoint_time, has_checkpoint
from engine.training.events import ENDED_ON_ITS_OWN, FinishedEvent, FinishReason, TrainEvent
from engine.training.jobs import CorpusChoice, VocabularySizes

__all__ = ["LogLines", "LogRead", "ResumableRun", "RunFolder", "RunFolderError", "RunPhase", "RunProgress",
           "RunSpec", "resumable_runs", "stored_train_arguments"]

COMMAND_PREFIX = "python -m engine train "  # how a command-line run's stored command begins
APP_ONLY_SETTINGS = frozenset({"torch_threads"})  # chosen by the app for its window's sake, not the run's


class RunPhase(Enum):
    """Where a run stands. Its value is the word the app shows (a run that ended on its own shows
    its :class:`~engine.training.events.FinishReason` instead: "completed", "time budget", …)."""

    NOT_STARTED = "not started"  # refused before it began, or a folder with nothing of a run yet
    WAITING = "waiting"  # nothing heard of it yet
    PREPARING = "preparing"  # reading the corpus, training the tokenizers, building the model
    TRAINING = "training"
    PAUSED = "paused"
    STOPPING = "stopping"  # asked to stop: it checkpoints at the next batch
    STOPPED = "stopped"  # stopped with a checkpoint: resumable
    FINISHED = "finished"  # ended on its own (every epoch, early stopping, a budget, the step limit)
    ENDED = "ended"  # its process ended without saying how (killed, or stopped before a checkpoint)
    FAILED = "failed"
    DIVERGED = "diverged"
    WATCHING = "watching"  # followed from its folder; no step read yet

    @property
    def label(self) -> str:
        return self.value

    @property
    def live(self) -> bool:
        """A run in this phase has a thread (or process) at work."""
        return self in (RunPhase.PREPARING, RunPhase.TRAINING, RunPhase.PAUSED, RunPhase.STOPPING)

    @staticmethod
    def of_finish(reason: FinishReason) -> RunPhase:
        """The phase a run's finished event puts it in."""
        return RunPhase.FINISHED if reason in ENDED_ON_ITS_OWN else RunPhase.STOPPED


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
        if self.model.decoder_hidden_size != ModelShape.decoder_hidden_size:
            arguments += ["--hidden-size", str(self.model.decoder_hidden_size)]  # one size for all three
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
                        split_rule=rules.get(data.get("split_rule"), "strict"),
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


@dataclass(frozen=True)
class RunProgress:
    """How far a run's checkpoint has come (all zero without one)."""

    epoch: int = 0  # epochs completed
    step: int = 0
    history: tuple[dict, ...] = ()  # the metrics of each validation
    saved_at: float = 0.0  # when the checkpoint was written (seconds since the epoch)


@dataclass(frozen=True)
class LogLines:
    """One read of a run's metrics log: the events of its valid complete lines, the run's request
    when its start line was among them, where the next read starts and the damaged lines skipped."""

    events: list[TrainEvent]
    described: bool  # the start line was among these lines
    request: RunSpec | None  # what it asks for (None when absent, or written by no run of this version)
    offset: int
    count: int  # valid lines read, the start line included
    damage: LogRead  # the damaged lines skipped (their count and the first one's reason), no records


@dataclass(frozen=True)
class LogIdentity:
    """The log file as it is now: a log replaced (a resumed run rewrites it) has another inode or is shorter."""

    inode: int
    size: int


@dataclass(frozen=True)
class RunFolder:
    """One run's folder, as the rest of the program reads and changes it."""

    path: Path

    def __post_init__(self) -> None:
        object.__setattr__(self, "path", Path(self.path))

    @property
    def name(self) -> str:
        return self.path.name

    # -- what is there --------------------------------------------------------------------------
    def has_model(self) -> bool:
        """A validation saved a model here (its config.json is written last)."""
        return (self.path / CONFIG_FILE).is_file()

    def has_checkpoint(self) -> bool:
        return has_checkpoint(self.path)

    def has_log(self) -> bool:
        return (self.path / METRICS_FILE).is_file()

    def why_not_followable(self) -> str:
        """Why the run here cannot be followed from its metrics log ("" when it can)."""
        if not self.path.is_dir():
            return f"{self.path} is not a folder"
        if not self.has_log():
            return f"{self.path} has no {METRICS_FILE}: not a training run's folder (or one from an older version)"
        return ""

    # -- its record -----------------------------------------------------------------------------
    def request(self) -> RunSpec | None:
        """What the run was asked to do (its metrics log's start line); None when the log has none,
        or one no run of this version wrote."""
        description = read_description(self.path)
        return None if description is None else _spec_or_none(description)

    def command_arguments(self) -> list[str] | None:
        """The arguments of the ``train`` command the run was started (or last resumed) with; None
        for a run not started from the command line."""
        return stored_train_arguments(self.path)

    def train_arguments(self) -> list[str] | None:
        """The ``train`` flags that continue this run from the command line: its own command's, or,
        for a run started in the app, its request as flags (then ``--out``); None when it records
        neither."""
        stored = self.command_arguments()
        if stored is not None:
            return stored
        request = self.request()
        return None if request is None else [*request.train_arguments(), "--out", str(self.path)]

    def progress(self) -> RunProgress:
        stored = checkpoint_progress(self.path)
        if stored is None:
            return RunProgress()
        history = tuple(h for h in stored.get("history", []) if isinstance(h, dict))
        return RunProgress(int(stored.get("epoch", 0)), int(stored.get("step", 0)), history,
                           checkpoint_time(self.path))

    def holder(self) -> str | None:
        """The process id of a run that trains here now; None when none does."""
        return lock_holder(self.path)

    def phase(self) -> RunPhase:
        """Where the run stands, from its folder alone."""
        if self.holder() is not None:
            return RunPhase.TRAINING
        reason = last_finish_reason(self.path)
        if reason is not None:
            return RunPhase.of_finish(reason)
        if run_has_ended(self.path):
            return RunPhase.FINISHED
        return RunPhase.ENDED if self.has_log() or self.has_checkpoint() else RunPhase.NOT_STARTED

    def why_not_resumable(self) -> str:
        """Why this run cannot continue ("" when it can)."""
        return self._resume_offer()[1]

    def resumable(self) -> ResumableRun | None:
        """The run as an offer to continue it, or None (see :meth:`why_not_resumable`)."""
        return self._resume_offer()[0]

    def _resume_offer(self) -> tuple[ResumableRun | None, str]:
        if not self.has_checkpoint():
            return None, f"{self.path} holds no checkpoint"
        try:
            description = read_description(self.path)
        except StoredFileError as error:  # a pipe or device where the log should be
            return None, str(error)
        if description is None:
            return None, f"{self.path}'s metrics log does not say what the run was asked for"
        try:
            request = RunSpec.from_description(description)
        except (TypeError, ValueError, ConfigError) as error:  # a description no run of this version wrote
            return None, f"{self.path} records a run this version cannot read ({error})"
        progress = self.progress()
        if progress.epoch >= request.train.epochs or run_has_ended(self.path):
            return None, f"the run in {self.path} has ended"
        holder = self.holder()
        if holder is not None:
            return None, f"{self.path} is in use by another training run (process {holder})"
        return ResumableRun(self, request, progress), ""

    # -- following its log -------------------------------------------------------------------------
    def log_identity(self) -> LogIdentity | None:
        try:
            stat = (self.path / METRICS_FILE).stat()
        except OSError:
            return None
        return LogIdentity(stat.st_ino, stat.st_size)

    def follow(self, offset: int = 0, limit: int | None = None) -> LogLines:
        """The log's valid complete lines from byte ``offset`` on (at most ``limit``), as events; a
        torn last line is left for the next read, which starts at the returned offset."""
        read = read_log(self.path, offset, limit)
        description = run_description(read.records)
        request = None if description is None else _spec_or_none(description)
        return LogLines(events_from_records(read.records), description is not None, request, read.offset,
                        len(read.records), LogRead([], read.offset, read.skipped, read.problem))

    # -- changing it --------------------------------------------------------------------------------
    def claim(self, resume: bool = False, overwrite: bool = False) -> RunFolderLock:
        """Lock the folder for one run (engine.files.run_lock); RunFolderError says why not."""
        return claim_run_folder(self.path, resume=resume, overwrite=overwrite)

    def record_test_score(self, test_pairs: list[Pair], finished: FinishedEvent | None,
                          length_study: bool) -> Evaluation:
        """Score the run's best model on its held-out pairs and store the result (engine.evaluation.run_report)."""
        return score_on_test(self.path, test_pairs, finished, length_study=length_study)

    def discard(self) -> bool:
        """Delete the folder when it holds neither a model nor a checkpoint (a run that failed
        early), so that nothing half-made is offered as a model; True if it was deleted."""
        if not self.path.is_dir() or self.has_model() or self.has_checkpoint():
            return False
        shutil.rmtree(self.path, ignore_errors=True)
        return True


def _spec_or_none(description: dict[str, Any]) -> RunSpec | None:
    try:
        return RunSpec.from_description(description)
    except (TypeError, ValueError, ConfigError):
        return None


@dataclass(frozen=True)
class ResumableRun:
    """A run that can continue: its folder, what it was asked for and how far it came."""

    run: RunFolder
    request: RunSpec
    progress: RunProgress

    @property
    def folder(self) -> Path:
        return self.run.path

    @property
    def label(self) -> str:
        return (f"{self.run.name} — {self.progress.epoch}/{self.request.train.epochs} epochs, "
                f"step {self.progress.step:,}")


def resumable_runs(models_folder: Path) -> list[ResumableRun]:
    """The runs of ``models_folder`` that can continue (a checkpoint, epochs left, a request this
    version reads, not ended on its own, not training now), newest checkpoint first."""
    if not Path(models_folder).is_dir():
        return []
    offers = (RunFolder(folder).resumable() for folder in Path(models_folder).iterdir() if folder.is_dir())
    return sorted((offer for offer in offers if offer is not None), key=lambda offer: -offer.progress.saved_at)

