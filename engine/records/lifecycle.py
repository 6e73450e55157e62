"""One training run from start to end, the same for the command line and the app.

:func:`run_lifecycle` is the run's whole life as a generator:

1. **claim** the run folder (engine.training.run_lock: never another run's folder, never a model; with
   ``overwrite`` the old run's checkpoint goes first, so it is never resumed with new tokenizers);
2. **prepare** the job (corpus, tokenizers, model: engine.training.jobs), each status yielded as a
   :class:`RunStatus` as it comes, then :class:`RunReady`;
3. **train** (engine.training.trainer), each event passed on;
4. **score** the best model on the held-out test split when the run ended on its own
   (:func:`should_score`, the one rule), yielded as :class:`RunScored`;
5. **discard** the folder when this run created it and left neither a model nor a checkpoint in it
   (:meth:`RunFolder.discard`), whatever way it ended.

torch's thread count is the run's (``TrainConfig.torch_threads``, 0 = the process's) for its duration
and restored after (engine.networks.threads). Failures are exceptions (EngineError and OSError for the
expected ones): the command line prints them in one line, the app turns them into its own messages.
Under torchrun (``distributed``), rank 0 alone claims, discards and scores.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable, Generator, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine.corpus.choice import CorpusChoice, VocabularySizes
from engine.evaluation.evaluate import Evaluation
from engine.networks.threads import threads_for_run
from engine.records.runs import RunFolder
from engine.settings.config import ModelShape, TrainConfig
from engine.training.checkpoint_state import checkpoint_step, discard_checkpoint
from engine.training.distributed import SINGLE, Distributed
from engine.training.events import ENDED_ON_ITS_OWN, FinishedEvent, RunControl, TrainEvent
from engine.training.jobs import LoadedCorpus, prepare_job
from engine.training.train_run import TrainingJob
from engine.training.trainer import train


@dataclass(frozen=True)
class RunOrder:
    """What one run is asked to do, and where."""

    folder: Path  # the run folder, which becomes the model folder
    corpus: CorpusChoice
    model: ModelShape
    train: TrainConfig
    vocabularies: VocabularySizes = VocabularySizes()
    resume: bool = False
    overwrite: bool = False  # replace a model or checkpoint already in ``folder``
    command: str = ""  # what started it, recorded in config.json and the metrics log
    storage_dtype: str = "float32"
    tensorboard: bool = False
    prepare_aside: bool = False  # prepare on a helper thread, each status yielded as it comes (the app)


@dataclass(frozen=True)
class RunStatus:
    text: str  # e.g. "reading the corpus and training the tokenizers"


@dataclass(frozen=True)
class RunReady:
    """The job is prepared; training starts next."""

    job: TrainingJob
    loaded: LoadedCorpus
    resumed_at_step: int  # 0 for a fresh run
    torch_threads: int  # torch's thread count the run trains on


@dataclass(frozen=True)
class RunScored:
    evaluation: Evaluation  # the best model on the held-out test split


LifecycleItem = RunStatus | RunReady | TrainEvent | RunScored


def should_score(finished: FinishedEvent | None, control: RunControl) -> bool:
    """The one scoring rule: a run is scored on its test split when it ended on its own (every epoch,
    early stopping, a budget, the step limit), never after a stop."""
    return finished is not None and finished.reason in ENDED_ON_ITS_OWN and not control.stop_requested


def run_lifecycle(order: RunOrder, control: RunControl,
                  distributed: Distributed = SINGLE) -> Generator[LifecycleItem, None, None]:
    """Claim, prepare, train, score and tidy one run (module docstring), yielding what happens."""
    run = RunFolder(order.folder)
    created = not run.path.exists()
    lock = run.claim(resume=order.resume, overwrite=order.overwrite) if distributed.is_main else None
    preparing = _Preparing()
    try:
        if order.overwrite and distributed.is_main:
            discard_checkpoint(run.path)
        with threads_for_run(order.train.torch_threads) as threads:
            yield from _prepare_train_and_score(order, run, control, distributed, threads, preparing)
    finally:
        if lock is not None:
            lock.release()
            if created and not preparing.busy:  # a helper still writing there keeps it
                run.discard()


def _prepare_train_and_score(order: RunOrder, run: RunFolder, control: RunControl, distributed: Distributed,
                             threads: int, preparing: _Preparing) -> Iterator[LifecycleItem]:
    resumed_at = (checkpoint_step(run.path) or 0) if order.resume else 0
    job, loaded = yield from preparing.run(lambda on_status: prepare_job(
        order.corpus, run.path, order.model, order.train, order.vocabularies, resume=order.resume,
        command=order.command, storage_dtype=order.storage_dtype, on_status=on_status, distributed=distributed,
    ), aside=order.prepare_aside)
    yield RunReady(job, loaded, resumed_at, threads)
    finished = yield from _trained(order, job, control)
    if distributed.is_main and should_score(finished, control) and run.has_model() and loaded.split.test:
        yield RunStatus("scoring the best model on the held-out test split and its long test set")
        yield RunScored(run.record_test_score(loaded.split.test, finished, length_study=loaded.report is not None))


def _trained(order: RunOrder, job: TrainingJob, control: RunControl) -> Generator[LifecycleItem, None,
                                                                                     FinishedEvent | None]:
    """The trainer's events (and its statuses), passed on; returns its finished event."""
    statuses: list[str] = []
    finished: FinishedEvent | None = None
    for event in train(job, control, resume=order.resume, tensorboard=order.tensorboard, on_status=statuses.append):
        yield from (RunStatus(text) for text in statuses)
        statuses.clear()
        if isinstance(event, FinishedEvent):
            finished = event
        yield event
    return finished


class _Preparing:
    """Runs a preparation and says whether its helper thread is still at work (then the folder it
    writes must not be discarded under it)."""

    def __init__(self) -> None:
        self.helper: threading.Thread | None = None

    @property
    def busy(self) -> bool:
        return self.helper is not None and self.helper.is_alive()

    def run(self, prepare: Callable[[Callable[[str], None]], Any], aside: bool) -> Generator[RunStatus, None, Any]:
        """``prepare(on_status)``'s result, each status yielded: as it comes when ``aside`` (a helper
        thread: a big corpus's streaming pass reports its progress every few seconds while the
        caller's thread stays free), else once it returns."""
        statuses: queue.Queue[str] = queue.Queue()
        if not aside:
            result = prepare(statuses.put)
            while not statuses.empty():
                yield RunStatus(statuses.get())
            return result
        outcome: dict[str, Any] = {}

        def work() -> None:
            try:
                outcome["value"] = prepare(statuses.put)
            except BaseException as error:  # handed to the run's thread, which raises it
                outcome["error"] = error

        # A daemon: a run stopped while preparing leaves it to finish on its own without holding up an exit.
        self.helper = threading.Thread(target=work, name="prepare run", daemon=True)
        self.helper.start()
        while self.helper.is_alive() or not statuses.empty():
            try:
                yield RunStatus(statuses.get(timeout=0.1))
            except queue.Empty:
                continue
        self.helper.join()
        if "error" in outcome:
            raise outcome["error"]
        return outcome["value"]
