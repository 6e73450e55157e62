"""The controllers' decisions, run synchronously against a fake job starter (tests/inline_jobs.py)
and fake models: which run's rows are shown, when a waiting sentence is translated, what a pause,
a single step, a failed load or a failed run does, how queued training runs follow one another.
The end-to-end tests (marked slow) prove the same with real threads and models."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from engine.records.catalog import ModelEntry
from engine.records.runs import RunPhase
from engine.training.events import FinishedEvent, FinishReason, StepEvent
from gui.common.catalog_jobs import LoadFailure
from gui.training.controller import TrainingController
from gui.training.runner import RunFailed
from gui.training.settings import RunSettings
from gui.translate.controller import FAILED, FINISHED, IDLE, PAUSED, STOPPED, TranslateController
from tests.inline_jobs import InlineJobs


@dataclass(frozen=True)
class FakePrepared:
    text: str

    @property
    def empty(self) -> bool:
        return not self.text.strip()


class FakeTranslator:
    """Decodes a sentence into one step per word ("step:<word>"); breaks at ``fail_at``."""

    uses_attention = True

    def __init__(self, fail_at: int | None = None) -> None:
        self.fail_at = fail_at

    def prepare(self, text: str) -> FakePrepared:
        return FakePrepared(text)

    def steps(self, prepared, config, steering):
        for index, word in enumerate(prepared.text.split()):
            if index == self.fail_at:
                raise RuntimeError("the decoder broke")
            yield f"step:{word}"
        return f"translation of {prepared.text}"


@dataclass(frozen=True)
class FakeBundle:
    translator: FakeTranslator
    scorer: str = "dot"
    target_language: str = "en"

    def decode_config(self, beam_size: int) -> tuple[str, int]:
        return ("greedy" if beam_size == 1 else "beam", beam_size)


def _entry(name: str) -> ModelEntry:
    return ModelEntry(folder=Path("models") / name, source_language="zh", target_language="en", scorer="dot",
                      shipped=False, test_bleu=None, modified=1.0)


class Spy:
    """What a controller announced, signal by signal."""

    def __init__(self, controller: TranslateController) -> None:
        self.steps, self.finished, self.ended, self.failed, self.held, self.load_errors = [], [], [], [], [], []
        controller.stepArrived.connect(self.steps.append)
        controller.runFinished.connect(self.finished.append)
        controller.runEnded.connect(self.ended.append)
        controller.runFailed.connect(lambda message, _details: self.failed.append(message))
        controller.runHeld.connect(lambda: self.held.append(True))
        controller.modelFailed.connect(self.load_errors.append)


def _translate_controller(*bundles_by_name: tuple[str, object]) -> tuple[TranslateController, InlineJobs, Spy]:
    jobs = InlineJobs({f"load {name}": (lambda result=result: iter([result])) for name, result in bundles_by_name})
    controller = TranslateController(jobs=jobs)
    return controller, jobs, Spy(controller)


def _loaded(*bundles_by_name: tuple[str, object]) -> tuple[TranslateController, InlineJobs, Spy]:
    controller, jobs, spy = _translate_controller(*bundles_by_name)
    controller.load(_entry(bundles_by_name[0][0]))
    jobs.run_all()
    return controller, jobs, spy


def test_a_sentence_typed_while_the_model_loads_is_translated_once_it_is_ready():
    bundle = FakeBundle(FakeTranslator())
    controller, jobs, spy = _translate_controller(("a", bundle))
    controller.load(_entry("a"))
    assert controller.starting and controller.translate("ni hao")
    assert not jobs.named("decode")  # nothing to decode with yet
    jobs.run_all()
    assert controller.bundle is bundle
    assert spy.steps == ["step:ni", "step:hao"] and spy.finished == ["translation of ni hao"]
    assert spy.ended == [FINISHED] and controller.state == IDLE and not controller.running


def test_rows_of_a_superseded_run_never_reach_the_view():
    controller, jobs, spy = _loaded(("a", FakeBundle(FakeTranslator())))
    controller.translate("one two three")
    first = jobs.named("decode")[-1]
    first.run(limit=1)
    controller.translate("four five")  # cancels the first run
    first.run(late=True)  # what its thread still sends after the cancel
    assert first.delivered == 3 and spy.steps == ["step:one"]
    jobs.run_all()
    assert spy.steps == ["step:one", "step:four", "step:five"]
    assert spy.finished == ["translation of four five"] and spy.ended == [FINISHED]


def test_a_pause_holds_the_run_and_a_step_decodes_exactly_one_token():
    controller, jobs, spy = _loaded(("a", FakeBundle(FakeTranslator())))
    controller.translate("a b c d")
    controller.pause()
    jobs.run_all()
    assert controller.state == PAUSED and spy.steps == [] and spy.held == [True]
    controller.step()
    jobs.run_all()
    assert spy.steps == ["step:a"] and controller.state == PAUSED
    controller.resume()
    jobs.run_all()
    assert spy.steps == ["step:a", "step:b", "step:c", "step:d"] and spy.ended == [FINISHED]


def test_stop_keeps_the_rows_shown_and_a_failing_decode_is_reported():
    controller, jobs, spy = _loaded(("a", FakeBundle(FakeTranslator(fail_at=1))))
    controller.translate("x y z")
    jobs.run_all()
    assert spy.steps == ["step:x"] and spy.failed == ["RuntimeError: the decoder broke"]
    assert spy.ended == [FAILED] and controller.state == IDLE
    controller.translate("p q r")
    jobs.named("decode")[-1].run(limit=1)
    controller.stop()
    jobs.run_all()
    assert spy.steps[-1] == "step:p" and spy.ended == [FAILED, STOPPED] and not controller.running


def test_a_model_that_fails_to_load_leaves_the_one_in_use():
    bundle = FakeBundle(FakeTranslator())
    controller, jobs, spy = _loaded(("a", bundle), ("b", LoadFailure(Path("models") / "b", "weights tampered")))
    controller.load(_entry("b"))
    jobs.run_all()
    assert controller.bundle is bundle
    assert spy.load_errors == ["Cannot load the model b: weights tampered The previous model is still in use."]


def _finished(reason: FinishReason) -> FinishedEvent:
    return FinishedEvent(reason=reason, best_bleu=10.0, best_epoch=1, steps=5, epochs_completed=1, seconds=2.0,
                         tokens_per_second=100.0, skipped_steps=0, model_folder="")


def test_queued_runs_follow_one_another_until_one_fails():
    outcomes = iter([[_finished(FinishReason.COMPLETED)], [RunFailed("error", "disk full", 3)],
                     [_finished(FinishReason.COMPLETED)]])
    jobs = InlineJobs({"training": lambda: iter(next(outcomes))})
    controller = TrainingController(jobs=jobs)
    messages = []
    controller.message.connect(lambda kind, text: messages.append((kind, text)))
    controller.start([RunSettings(name=f"run-{n}") for n in "abc"])
    assert controller.is_training() and [j.name for j in jobs.started] == ["training run-a"]
    jobs.run_all()
    assert [j.name for j in jobs.started] == ["training run-a", "training run-b"]  # the failure ends the queue
    assert [r.phase for r in controller.records] == [RunPhase.FINISHED, RunPhase.FAILED]
    assert [r.status for r in controller.records] == ["completed", "failed"]  # as the table shows them
    assert messages[-1] == ("error", "run-b: disk full") and not controller.is_training()


def test_stop_asks_the_trainer_and_drops_the_queue():
    jobs = InlineJobs({"training": lambda: iter([])})
    controller = TrainingController(jobs=jobs)
    controller.start([RunSettings(name="run-a"), RunSettings(name="run-b")])
    control = controller._control
    controller.stop()
    assert control.stop_requested and controller.current.phase is RunPhase.STOPPING
    assert controller.current.status == "stopping"
    jobs.run_all()
    assert [j.name for j in jobs.started] == ["training run-a"] and not controller.is_training()
    assert controller.records[0].phase is RunPhase.ENDED and controller.records[0].status == "ended"


# -- decisions taken out of the views: plain functions ---------------------------------------------

@dataclass(frozen=True)
class _Prepared:
    empty: bool = False
    truncated: bool = False
    notice: str = ""


def test_the_translate_button_acts_only_on_something_to_translate_and_says_why_not():
    from gui.translate.input_state import BLANK_HINT, EMPTY_HINT, LOADING_HINT, NO_MODEL_HINT, InputState, input_state

    assert input_state("", None, True) == input_state("", _Prepared(), False) == InputState(False, EMPTY_HINT)
    assert input_state("   ", _Prepared(), False) == InputState(False, BLANK_HINT)
    assert input_state("你好", _Prepared(), False) == InputState(True, "")
    assert input_state("你好", None, True) == InputState(True, LOADING_HINT)  # translated once the model is ready
    assert input_state("你好", None, False) == InputState(False, NO_MODEL_HINT)
    cut = input_state("x" * 9, _Prepared(truncated=True, notice="cut to 200 sub-words"), False)
    assert cut.enabled and cut.notice and "cut to 200 sub-words" in cut.hint
    empty = input_state("\u200b", _Prepared(empty=True, notice="only invisible characters"), False)
    assert not empty.enabled and empty.hint == "Nothing to translate: only invisible characters."


def _step(epoch: int, batch: int, elapsed: float, target_tokens: int = 0) -> StepEvent:
    return StepEvent(step=(epoch - 1) * 10 + batch, epoch=epoch, batch=batch, batches_per_epoch=10, loss=1.0,
                     tokens_per_second=1.0, learning_rate=1e-3, skipped_steps=0, elapsed_seconds=elapsed,
                     eta_seconds=30.0, target_tokens=target_tokens)


def test_a_token_budget_or_a_step_limit_that_binds_sets_the_bar_and_is_named():
    from engine.settings.config import TrainConfig
    from engine.text.readable import format_tokens
    from gui.training.progress import Progress, run_progress

    tokens = TrainConfig(epochs=1000, max_target_tokens=40_000_000)
    shown = run_progress(tokens, _step(3, 5, 50.0, target_tokens=10_000_000), None, RunPhase.TRAINING)
    assert shown == Progress(0.25, "Epoch 3 · batch 5/10 · step 25 · 10.0 M / 40.0 M target tokens · ETA 0:30")
    few_epochs = TrainConfig(epochs=4, max_target_tokens=40_000_000)  # the epochs end it first
    shown = run_progress(few_epochs, _step(2, 10, 50.0, target_tokens=1_000_000), None, RunPhase.TRAINING)
    assert shown.fraction == 0.5 and shown.text.startswith("Epoch 2/4 ·") and "1.0 M / 40.0 M" in shown.text
    unlogged = run_progress(tokens, _step(3, 5, 50.0), None, RunPhase.TRAINING)  # a log written before tokens were
    assert unlogged.text.startswith("Epoch 3 ·") and "target tokens" not in unlogged.text  # 1000 is no plan
    steps = run_progress(TrainConfig(epochs=4, max_steps=30), _step(3, 5, 5.0), None, RunPhase.TRAINING)
    assert steps == Progress(25 / 30, "Epoch 3 · batch 5/10 · step 25/30 · ETA 0:30")
    assert (format_tokens(38_240_000), format_tokens(950_400), format_tokens(740)) == ("38.2 M", "950 k", "740")


def test_progress_is_the_larger_of_epochs_and_budget_and_a_run_that_ended_on_its_own_is_complete():
    from engine.settings.config import TrainConfig
    from gui.training.progress import Progress, run_progress

    assert run_progress(TrainConfig(epochs=4), None, None, RunPhase.PREPARING) == Progress(0.0, "preparing")
    assert run_progress(TrainConfig(epochs=4), None, None, RunPhase.PREPARING, "reading") == Progress(0.0, "reading")
    halfway = run_progress(TrainConfig(epochs=4), _step(2, 10, 5.0), None, RunPhase.TRAINING)
    assert halfway.fraction == 0.5 and halfway.text == "Epoch 2/4 · batch 10/10 · step 20 · ETA 0:30"
    budget = TrainConfig(epochs=4, max_minutes=1.0)
    assert run_progress(budget, _step(1, 1, 45.0), None, RunPhase.TRAINING).fraction == 0.75  # time goes faster
    ended = _finished(FinishReason.TIME_BUDGET)
    assert run_progress(budget, _step(1, 2, 59.0), ended, RunPhase.of_finish(ended.reason)) == Progress(
        1.0, "Epoch 1 · batch 2/10 · step 2 · 0:59 / 1:00")  # the time budget ended it: no "/4"
    stopped = _finished(FinishReason.STOPPED)
    assert run_progress(TrainConfig(epochs=4), _step(1, 5, 5.0), stopped,
                        RunPhase.of_finish(stopped.reason)).fraction == 0.125
