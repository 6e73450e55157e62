"""Training bit for bit: a tiny run of an RNN scorer and of the Transformer, and a run stopped and resumed,
give exactly the per-step losses, step and token counters and final weights recorded here. Any change to
the training step, the validation, the schedules or the resume that alters one bit of training fails it;
a refactor of them must leave these numbers untouched (they were taken from the code before one).

The runs are small (a few dozen steps of a tiny model on the dates task, one
torch thread so that the sums come out in the same order on every machine)."""

from __future__ import annotations

import dataclasses
import hashlib
from pathlib import Path

import pytest
import torch

from engine.corpus.tasks import dates
from engine.networks.model import build_model
from engine.settings.config import ModelConfig, TrainConfig
from engine.text.tokenizer import TokenizerSettings, train_tokenizer
from engine.training.events import FinishedEvent, StepEvent, TrainControl, ValidationEvent
from engine.training.jobs import _samples
from engine.training.train_run import TrainingJob
from engine.training.trainer import train

pytestmark = pytest.mark.slow  # trains three tiny runs: ~2-5 s each on a shared 2-core machine

# The settings that exercise most of the step: a learning-rate warm-up, the score temperature's warm-up
# (dot), label smoothing, clipping, extra validations within an epoch and the plateau schedule.
_TRAINING = dict(epochs=2, batch_size=16, learning_rate=3e-3, warmup_steps=4, label_smoothing=0.1,
                 clip_norm=1.0, validate_every_steps=7, early_stopping_patience=0, device="cpu")
_SHAPES = {
    "dot": dict(scorer="dot", cell="gru", embedding_size=16, encoder_hidden_size=24, decoder_hidden_size=24,
                attention_size=24, dropout=0.1),
    "transformer": dict(scorer="transformer", embedding_size=16, transformer_layers=1, feedforward_size=24,
                        dropout=0.1, tie_embeddings=True),
}
_EXTRA = {"dot": dict(temperature_warmup=0.5), "transformer": {}}


def golden_job(folder: Path, family: str) -> TrainingJob:
    split = dates.dates_split(seed=1, train_size=192, valid_size=6, test_size=6)
    source_tokenizer = train_tokenizer((p.source for p in split.train), TokenizerSettings(vocab_size=400))
    target_tokenizer = train_tokenizer((p.target for p in split.train), TokenizerSettings(vocab_size=300))
    config = ModelConfig(src_vocab_size=source_tokenizer.vocab_size, tgt_vocab_size=target_tokenizer.vocab_size,
                         **_SHAPES[family])
    train_config = TrainConfig(seed=1, **_TRAINING, **_EXTRA[family])
    return TrainingJob(
        model=build_model(config, seed=1), source_tokenizer=source_tokenizer, target_tokenizer=target_tokenizer,
        split=split, source_language=dates.SOURCE_LANGUAGE, target_language=dates.TARGET_LANGUAGE,
        train_config=train_config, run_folder=Path(folder), metadata={"data": {"task": "dates"}},
        samples=_samples(split),
    )


def weights_digest(model: torch.nn.Module) -> str:
    """sha256 of every weight's bytes, in the state dict's order (the first 16 hex digits)."""
    digest = hashlib.sha256()
    for name, tensor in model.state_dict().items():
        digest.update(name.encode())
        digest.update(tensor.detach().cpu().contiguous().numpy().tobytes())
    return digest.hexdigest()[:16]


def run_record(job: TrainingJob, resume: bool = False, stop_at: int | None = None) -> dict:
    """What a run yields, reduced to numbers: each step's (step, loss, target tokens, skipped), each
    validation's (step, valid loss, BLEU, is best), the finish and the final weights' digest."""
    control = TrainControl()
    steps, validations, finished = [], [], None
    previous = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        for event in train(job, control, resume=resume):
            if isinstance(event, StepEvent):
                steps.append((event.step, event.epoch, event.batch, event.loss, event.target_tokens,
                              event.skipped_steps, event.learning_rate))
                if event.step == stop_at:
                    control.request_stop()
            elif isinstance(event, ValidationEvent):
                validations.append((event.step, event.epoch, round(event.valid_loss, 6), event.bleu, event.is_best))
            elif isinstance(event, FinishedEvent):
                finished = (str(event.reason), event.steps, event.epochs_completed, event.best_epoch)
    finally:
        torch.set_num_threads(previous)
    return {"steps": steps, "validations": validations, "finished": finished, "weights": weights_digest(job.model)}


# -- the numbers, taken from the training code as it was before the step was made a function of explicit inputs
# (step, epoch, batch, loss, target tokens so far, skipped steps, learning rate) of each step.
_LOSSES = {
    "dot": (5.741744518280029, 5.783234596252441, 5.737664222717285, 5.748626708984375, 5.690423011779785,
            5.656528472900391, 5.623530864715576, 5.638709545135498, 5.516545295715332, 5.476495742797852,
            5.404722213745117, 5.516915798187256, 5.289013385772705, 5.208293437957764, 5.206265926361084,
            5.062991619110107, 4.951289653778076, 4.812471866607666, 4.753487586975098, 4.58411979675293,
            4.57267951965332, 4.639688491821289, 4.33337926864624, 4.301294803619385),
    "transformer": (5.998998641967773, 5.930075645446777, 5.8221354484558105, 5.702746391296387,
                    5.755122184753418, 5.6254096031188965, 5.641258716583252, 5.4793853759765625,
                    5.464075088500977, 5.3295183181762695, 5.210971832275391, 5.243155479431152,
                    5.265879154205322, 5.021392345428467, 4.913701057434082, 4.772256851196289,
                    4.799004077911377, 4.772944927215576, 4.7190775871276855, 4.638024806976318,
                    4.73118782043457, 4.742351055145264, 4.589427471160889, 4.468815326690674),
}
_TOKENS = (96, 208, 336, 485, 597, 691, 788, 900, 1018, 1155, 1283, 1358, 1454, 1566, 1660, 1809, 1946, 2074,
           2186, 2314, 2411, 2486, 2604, 2716)
_RATES = (0.00075, 0.0015, 0.0022500000000000003) + (0.003,) * 21
_VALIDATIONS = {
    "dot": [(7, 1, 5.571214, 0.2801299321988054, True), (12, 1, 5.261526, 10.140287458844425, True),
            (14, 2, 5.078299, 0.0, False), (21, 2, 4.283455, 0.0, False), (24, 2, 4.022268, 0.0, False)],
    "transformer": [(7, 1, 5.134792, 0.0, True), (12, 1, 4.755435, 0.0, True), (14, 2, 4.629678, 0.0, True),
                    (21, 2, 4.210667, 0.0, True), (24, 2, 4.053864, 0.0, True)],
}
_FINISHED = {"dot": ("completed", 24, 2, 1), "transformer": ("completed", 24, 2, 2)}
_WEIGHTS = {"dot": "b4adec4d2be96fc0", "transformer": "2d4d6272c35bf164", "dot stopped at 13": "2d3d4f4f04dba892"}


def _expected_steps(family: str) -> list[tuple]:
    return [(step, 1 + (step - 1) // 12, 1 + (step - 1) % 12, loss, tokens, 0, rate)
            for step, (loss, tokens, rate) in enumerate(zip(_LOSSES[family], _TOKENS, _RATES, strict=True), 1)]


@pytest.mark.parametrize("family", ["dot", "transformer"])
def test_a_tiny_run_trains_bit_for_bit_as_recorded(tmp_path, family):
    record = run_record(golden_job(tmp_path / family, family))
    assert record["steps"] == _expected_steps(family)
    assert record["validations"] == _VALIDATIONS[family]
    assert record["finished"] == _FINISHED[family]
    assert record["weights"] == _WEIGHTS[family]


def test_a_run_stopped_and_resumed_ends_bit_for_bit_as_the_straight_run(tmp_path):
    job = golden_job(tmp_path / "run", "dot")
    first = run_record(job, stop_at=13)
    assert first["steps"] == _expected_steps("dot")[:13]
    assert first["validations"] == _VALIDATIONS["dot"][:2]
    assert first["finished"] == ("stopped", 13, 1, 1)
    assert first["weights"] == _WEIGHTS["dot stopped at 13"]
    resumed = dataclasses.replace(job, model=build_model(job.model.config, seed=99))  # other weights until restored
    second = run_record(resumed, resume=True)
    assert second["steps"] == _expected_steps("dot")[13:]
    assert second["validations"] == _VALIDATIONS["dot"][2:]
    assert second["finished"] == _FINISHED["dot"]
    assert second["weights"] == _WEIGHTS["dot"]
