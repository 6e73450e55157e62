"""One training run as a generator, run by the app's worker thread (no Qt here).

:func:`run_training` prepares the job (corpus, tokenizers, model) *inside* the worker, so that a
bad corpus is reported before the first batch without freezing the window, then relays the
trainer's events and, for a run that ends on its own, scores the best model on the test split
exactly as the command line does (both write identical model folders).

Expected failures are not exceptions for the GUI: they are yielded as :class:`RunFailed` with a
kind and a one-line message that names the path involved. Only bugs reach the worker's
``failed`` signal.

CPU threads. The window must stay responsive while a run uses the CPU (a 10 ms timer may stall
at most 100 ms, median 20 ms). Training therefore runs with :func:`training_threads` torch
threads, one core fewer than the machine has (one thread on a 2-core machine), which leaves a
core for the GUI thread and for the Translate view's decoding. torch's thread count is a process
setting that each new thread picks up, so it is set when the run starts (through
``TrainConfig.torch_threads``) and the previous value is restored when the run ends. The GIL is
not the bottleneck: torch releases it inside every operation.
"""

from __future__ import annotations

import os
import queue
import threading
from collections.abc import Callable, Generator, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch

from engine.records.runs import RunFolder, RunFolderError
from engine.settings.errors import ConfigError, DataError, DivergedError, EngineError, ModelFileError, TokenizerError
from engine.training.events import FinishedEvent, FinishReason, StepEvent, TrainControl, ValidationEvent
from engine.training.jobs import LoadedCorpus, prepare_job
from engine.training.trainer import TrainingJob, train
from gui.heap import freeze_new_objects
from gui.training.settings import RunSettings

MAX_TRAINING_THREADS = 4  # beyond this, a small RNN gains little and the rest of the app loses


def warm_up_training() -> Iterator[str]:
    """Import what the first optimizer of a process imports: torch._dynamo (about 800 modules, 2 s
    of CPU on a slow machine). Run as a background job when the Train tab is first shown: imported
    while the window was being built, it held the window 2.5 s before the first translation; in a
    run's worker, it holds the interpreter lock over 100 ms at a time just as the curves start.

    The objects the import leaves (a few hundred thousand) are then frozen out of the garbage
    collector, as those alive at start-up are (gui.heap): else every full collection walks them
    while holding the interpreter lock, 65–85 ms each (measured)."""
    import torch._dynamo  # noqa: F401

    freeze_new_objects()
    yield "ready"


def training_threads(cpu_count: int | None = None) -> int:
    """Torch threads for a run: all cores but one (at least 1, at most MAX_TRAINING_THREADS)."""
    cores = cpu_count if cpu_count is not None else (os.cpu_count() or 1)
    return max(1, min(cores - 1, MAX_TRAINING_THREADS))


@dataclass(frozen=True)
class RunRequest:
    settings: RunSettings
    folder: Path  # the run folder, which becomes the model folder
    resume: bool = False


@dataclass(frozen=True)
class StatusMessage:
    text: str  # e.g. "reading the corpus and training the tokenizers"


@dataclass(frozen=True)
class RunPrepared:
    parameters: int
    split: dict[str, int]  # train / valid / test sizes
    report_summary: str  # one line about the data
    torch_threads: int
    resumed_at_step: int  # 0 for a fresh run
    device: str = "cpu"  # where it trains, e.g. "cuda (NVIDIA H200)" (engine.networks.device)


@dataclass(frozen=True)
class TestScored:
    bleu: float
    chrf: float
    exact_match: float
    pairs: int


@dataclass(frozen=True)
class RunFailed:
    kind: str  # "data" (before training), "diverged", "disk", "error"
    message: str  # one line, naming the path where one is involved
    step: int  # last step reported before the failure (0 before training)


RunItem = StatusMessage | RunPrepared | StepEvent | ValidationEvent | FinishedEvent | TestScored | RunFailed


def run_training(request: RunRequest, control: TrainControl) -> Iterator[RunItem]:
    """Prepare, train and score one run, yielding what the window shows."""
    run = RunFolder(request.folder)
    created = not run.path.exists()
    try:
        lock = run.claim(resume=request.resume)  # never another run's folder, never a model
    except RunFolderError as error:
        yield RunFailed("data", str(error), 0)
        return
    previous_threads = torch.get_num_threads()
    seen = _Seen()
    try:
        yield from _prepare_train_and_score(request, run, control, seen)
    except (OSError, EngineError) as error:
        yield _failure(error, run, seen.step)
    finally:
        torch.set_num_threads(previous_threads)
        lock.release()
        if created:
            run.discard()


@dataclass
class _Seen:
    step: int = 0  # the last step reported (a failure names it)


def _failure(error: OSError | EngineError, run: RunFolder, step: int) -> RunFailed:
    """An expected failure after the folder was claimed, as the window shows it."""
    if isinstance(error, ModelFileError):
        return RunFailed("disk", str(error), step)
    if isinstance(error, OSError):
        return RunFailed("disk", f"cannot write to {error.filename or run.path}: {error.strerror or error}", step)
    return RunFailed("error", str(error), step)


def _prepare_train_and_score(request: RunRequest, run: RunFolder, control: TrainControl,
                             seen: _Seen) -> Iterator[RunItem]:
    threads = training_threads()
    torch.set_num_threads(threads)  # before preparing, so that config.json records it too
    yield StatusMessage("reading the corpus and training the tokenizers" if not request.resume
                        else "reading the corpus and the checkpoint")
    settings = request.settings
    try:
        job, loaded = yield from _prepared(lambda on_status: prepare_job(
            settings.corpus, run.path, settings.model, settings.for_threads(threads), settings.vocabularies,
            resume=request.resume, command="Attention Studio, Train tab", on_status=on_status,
        ))
    except (DataError, TokenizerError, ConfigError) as error:
        yield RunFailed("data", str(error), 0)
        return
    yield _run_prepared(job, loaded, threads, run.progress().step if request.resume else 0)
    finished = yield from _trained(job, control, request.resume, seen)
    ended_on_its_own = finished is not None and finished.reason != FinishReason.STOPPED and not control.stop_requested
    if ended_on_its_own and run.has_model() and loaded.split.test:
        yield from _scored(run, loaded, finished)


def _run_prepared(job: TrainingJob, loaded: LoadedCorpus, threads: int, resumed_at: int) -> RunPrepared:
    summary = loaded.report.summary() if loaded.report is not None else "generated by the built-in task"
    return RunPrepared(job.model.parameter_count(), loaded.summary.get("split") or loaded.split.sizes(), summary,
                       threads, resumed_at, job.metadata.get("training", {}).get("device", "cpu"))


def _trained(job: TrainingJob, control: TrainControl, resume: bool,
             seen: _Seen) -> Generator[RunItem, None, FinishedEvent | None]:
    """The trainer's events, passed on; returns its finished event (None when it diverged: then
    the failure is the last item)."""
    finished: FinishedEvent | None = None
    try:
        for event in train(job, control, resume=resume):
            if isinstance(event, StepEvent):
                seen.step = event.step
            elif isinstance(event, FinishedEvent):
                finished = event
            yield event
    except DivergedError as error:
        yield RunFailed("diverged", str(error), seen.step)
        return None
    return finished


def _scored(run: RunFolder, loaded: LoadedCorpus, finished: FinishedEvent) -> Iterator[RunItem]:
    """The best model scored on the held-out test split (and its long test set), as the command line does."""
    yield StatusMessage("scoring the best model on the held-out test split and its long test set")
    evaluation = run.record_test_score(loaded.split.test, finished, length_study=loaded.report is not None)
    yield TestScored(evaluation.scores.bleu, evaluation.scores.chrf, evaluation.exact_match, evaluation.count)


def _prepared(prepare: Callable[[Callable[[str], None]], Any]) -> Generator[StatusMessage, None, Any]:
    """Run ``prepare(on_status)`` on a helper thread and yield each status it reports as it comes
    (a big corpus's streaming pass and encoding report their progress with an ETA every few
    seconds); returns its result or raises its error. The helper is a daemon: a run stopped while
    preparing leaves it to finish on its own without holding up the window's exit."""
    statuses: queue.Queue[str] = queue.Queue()
    outcome: dict[str, Any] = {}

    def work() -> None:
        try:
            outcome["value"] = prepare(statuses.put)
        except BaseException as error:  # handed to the run's thread, which reports it
            outcome["error"] = error

    helper = threading.Thread(target=work, name="prepare run", daemon=True)
    helper.start()
    while helper.is_alive() or not statuses.empty():
        try:
            yield StatusMessage(statuses.get(timeout=0.1))
        except queue.Empty:
            continue
    helper.join()
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]
