"""A run's state, one owner: :class:`RunFolder`, the one reader and writer of a training run's record
for everything outside the engine's own training code (the command line's resume, the app).

A run folder holds what the engine wrote for one run: its metrics log (engine.training.metrics_log: what the
run was asked for, then every step, validation and how it ended), its checkpoint
(engine.training.checkpoint: where it stopped), its run lock (engine.training.run_lock) and, once a validation saved
one, its model (``config.json`` and the weights). :class:`RunFolder` reads them through those
modules and gives them back typed:

- :meth:`RunFolder.request`: what the run was asked to do (engine.records.run_spec.RunSpec: the corpus,
  the model shape, the training configuration), from the metrics log's start line;
- :meth:`RunFolder.train_arguments`: the ``train`` flags that continue it from the command line —
  the command it was started (or last resumed) with, or, for a run started in the app, its request
  written as flags — so both resume each other's runs;
- :meth:`RunFolder.progress`: its checkpoint's epoch, step and time (the steps and validations
  themselves come from the log: :meth:`RunFolder.replay`);
- :meth:`RunFolder.phase`: where it stands (:class:`RunPhase`), and :meth:`RunFolder.why_not_resumable`;
- :meth:`RunFolder.follow`: the log's lines from an offset on (a torn last line waits for the next
  read; a log replaced since the last read is read again from its start, and said so);
  :meth:`RunFolder.replay`: a resumed run's earlier steps and validations, from its own log;
- :meth:`RunFolder.discard`: the rule for removing a folder that holds nothing worth keeping.

:func:`resumable_runs` lists a models folder's runs that can continue, newest first.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING

from engine.corpus.corpus_read import Pair
from engine.models.config_file import run_has_ended
from engine.models.model_files import CONFIG_FILE
from engine.records.run_spec import RunSpec, spec_or_none, stored_train_arguments
from engine.settings.errors import ConfigError, StoredFileError
from engine.training.checkpoint_state import checkpoint_progress, checkpoint_time, has_checkpoint
from engine.training.events import ENDED_ON_ITS_OWN, FinishedEvent, FinishReason, StepEvent, TrainEvent, ValidationEvent
from engine.training.metrics_log import (
    METRICS_FILE,
    LogRead,
    events_from_records,
    last_finish_reason,
    read_description,
    read_log,
    run_description,
)
from engine.training.run_lock import RunFolderError, RunFolderLock, claim_run_folder, lock_holder

if TYPE_CHECKING:
    from engine.evaluation.evaluate import Evaluation

__all__ = ["LogLines", "LogRead", "ResumableRun", "RunFolder", "RunFolderError", "RunPhase", "RunProgress",
           "resumable_runs"]



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
class RunProgress:
    """How far a run's checkpoint has come (all zero without one)."""

    epoch: int = 0  # epochs completed
    step: int = 0
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
    restarted: bool = False  # the log was replaced since the read that reached the offset asked from: read from 0
    inode: int = 0  # the log file's inode (0 without a log): what the next read passes as ``known``


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
        return None if description is None else spec_or_none(description)

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
        return RunProgress(int(stored.get("epoch", 0)), int(stored.get("step", 0)),
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

    def follow(self, offset: int = 0, limit: int | None = None, known: int | None = None) -> LogLines:
        """The log's valid complete lines from byte ``offset`` on (at most ``limit``), as events; a
        torn last line is left for the next read, which starts at the returned offset. ``known`` is
        the inode of the log the earlier reads came from (:attr:`LogLines.inode`): a log replaced
        since (a resumed run rewrites it without the steps it repeats: another inode, or shorter
        than ``offset``) is read from its start, and the lines say so (``restarted``)."""
        log = self.log_identity()
        restarted = known is not None and log is not None and (log.inode != known or log.size < offset)
        read = read_log(self.path, 0 if restarted else offset, limit)
        description = run_description(read.records)
        request = None if description is None else spec_or_none(description)
        return LogLines(events_from_records(read.records), description is not None, request, read.offset,
                        len(read.records), LogRead([], read.offset, read.skipped, read.problem), restarted,
                        0 if log is None else log.inode)

    def replay(self, until_step: int | None = None) -> list[StepEvent | ValidationEvent]:
        """The steps and validations of the run's own log (read through :meth:`follow`) up to
        ``until_step`` — by default its checkpoint's step, where a resumed run goes on — so that a
        resumed run shows its earlier steps; [] without a log."""
        until = self.progress().step if until_step is None else until_step
        if not self.has_log():
            return []
        return [event for event in self.follow().events
                if isinstance(event, (StepEvent, ValidationEvent)) and event.step <= until]

    # -- changing it --------------------------------------------------------------------------------
    def claim(self, resume: bool = False, overwrite: bool = False) -> RunFolderLock:
        """Lock the folder for one run (engine.training.run_lock); RunFolderError says why not."""
        return claim_run_folder(self.path, resume=resume, overwrite=overwrite)

    def record_test_score(self, test_pairs: list[Pair], finished: FinishedEvent | None,
                          length_study: bool) -> Evaluation:
        """Score the run's best model on its held-out pairs and store the result (engine.records.run_report,
        imported here: reading a run's record loads no PyTorch)."""
        from engine.records.run_report import score_on_test

        return score_on_test(self.path, test_pairs, finished, length_study=length_study)

    def discard(self) -> bool:
        """Delete the folder when it holds neither a model nor a checkpoint (a run that failed
        early), so that nothing half-made is offered as a model; True if it was deleted."""
        if not self.path.is_dir() or self.has_model() or self.has_checkpoint():
            return False
        shutil.rmtree(self.path, ignore_errors=True)
        return True


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

