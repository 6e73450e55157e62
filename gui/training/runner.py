"""One training run as a generator, run by the app's worker thread (no Qt here).

:func:`run_training` runs the engine's one run lifecycle (engine.records.lifecycle: claim, prepare,
train, score a run that ended on its own, discard a folder it created and left empty), the same as
the command line's, so both write identical model folders. The job (corpus, tokenizers, model) is
prepared *inside* the worker, on a helper thread whose statuses come as they are said, so that a bad
corpus is reported before the first batch without freezing the window.

Expected failures are not exceptions for the GUI: they are yielded as :class:`RunFailed` with a
kind and a one-line message that names the path involved. Only bugs reach the worker's
``failed`` signal.

CPU threads. The window must stay responsive while a run uses the CPU (a 10 ms timer may stall
at most 100 ms, median 20 ms). Training therefore runs with :func:`training_threads` torch
threads, one core fewer than the machine has (one thread on a 2-core machine), which leaves a
core for the GUI thread and for the Translate view's decoding. torch's thread count is a process
setting that each new thread picks up; the run asks for its count through ``TrainConfig.torch_threads``
and the engine (engine.networks.threads) sets it when the run starts and restores the previous value
when it ends. The GIL is not the bottleneck: torch releases it inside every operation.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from engine.records import (
    LifecycleItem,
    RunFolder,
    RunOrder,
    RunReady,
    RunScored,
    RunStatus,
    run_lifecycle,
)
from engine.settings import ConfigError, DataError, DivergedError, EngineError, ModelFileError, TokenizerError
from engine.training import FinishedEvent, RunControl, RunFolderError, StepEvent, ValidationEvent
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


@dataclass(frozen=True)
class RunReplayed:
    """A resumed run's earlier steps and validations, from its own log (engine.records.runs.RunFolder.replay)."""

    events: tuple[StepEvent | ValidationEvent, ...]


RunItem = (StatusMessage | RunReplayed | RunPrepared | StepEvent | ValidationEvent | FinishedEvent | TestScored
           | RunFailed)


def run_training(request: RunRequest, control: RunControl) -> Iterator[RunItem]:
    """Prepare, train and score one run (engine.records.lifecycle, as the command line does),
    yielding what the window shows; an expected failure is the last item, a :class:`RunFailed`."""
    settings = request.settings
    threads = training_threads()  # the run's own count, set by the engine for its duration
    order = RunOrder(folder=request.folder, corpus=settings.corpus, model=settings.model,
                     train=settings.for_threads(threads), vocabularies=settings.vocabularies, resume=request.resume,
                     command="Attention Studio, Train tab", prepare_aside=True)
    seen = _Seen()
    try:
        for item in run_lifecycle(order, control):
            if not seen.started:  # the folder is claimed: never another run's, never a model
                seen.started = True
                yield StatusMessage("reading the corpus and training the tokenizers" if not request.resume
                                    else "reading the corpus and the checkpoint")
                if request.resume:  # its curves begin with its earlier steps, from its own log
                    yield RunReplayed(tuple(RunFolder(request.folder).replay()))
            yield from _shown(item, seen)
    except RunFolderError as error:
        yield RunFailed("data", str(error), 0)
    except DivergedError as error:
        yield RunFailed("diverged", str(error), seen.step)
    except (DataError, TokenizerError, ConfigError) as error:
        yield RunFailed("data", str(error), 0) if not seen.prepared else _failure(error, request.folder, seen.step)
    except (OSError, EngineError) as error:
        yield _failure(error, request.folder, seen.step)


@dataclass
class _Seen:
    started: bool = False  # the lifecycle's first item came (the folder was claimed)
    prepared: bool = False  # training began
    step: int = 0  # the last step reported (a failure names it)


def _shown(item: LifecycleItem, seen: _Seen) -> Iterator[RunItem]:
    """A lifecycle item as the window's item."""
    if isinstance(item, RunStatus):
        yield StatusMessage(item.text)
    elif isinstance(item, RunReady):
        seen.prepared = True
        yield _run_prepared(item)
    elif isinstance(item, RunScored):
        evaluation = item.evaluation
        yield TestScored(evaluation.scores.bleu, evaluation.scores.chrf, evaluation.exact_match, evaluation.count)
    elif isinstance(item, (StepEvent, ValidationEvent, FinishedEvent)):
        if isinstance(item, StepEvent):
            seen.step = item.step
        yield item


def _failure(error: OSError | EngineError, folder: Path, step: int) -> RunFailed:
    """An expected failure after the folder was claimed, as the window shows it."""
    if isinstance(error, ModelFileError):
        return RunFailed("disk", str(error), step)
    if isinstance(error, OSError):
        return RunFailed("disk", f"cannot write to {error.filename or folder}: {error.strerror or error}", step)
    return RunFailed("error", str(error), step)


def _run_prepared(ready: RunReady) -> RunPrepared:
    job, loaded = ready.job, ready.loaded
    summary = loaded.report.summary() if loaded.report is not None else "generated by the built-in task"
    return RunPrepared(job.model.parameter_count(), loaded.summary.get("split") or loaded.split.sizes(), summary,
                       ready.torch_threads, ready.resumed_at_step, job.metadata.get("training", {}).get("device", "cpu"))
