"""Subword regularization: sampled segmentations in training, the one best segmentation elsewhere."""

import subprocess
import sys

import numpy as np
import pytest

from engine.settings.config import TrainConfig
from engine.settings.errors import ConfigError
from engine.text.tokenizer import TokenizerSettings, train_tokenizer
from engine.training.events import TrainControl
from engine.training.train_run import TrainingRun
from tests.model_factory import tiny_job

pytestmark = pytest.mark.slow  # trains a model, opens the real window, runs a subprocess or fuzzes many cases

SENTENCES = [f"The meeting on Tuesday number {i} was postponed until the afternoon." for i in range(300)]


def _tokenizer():
    return train_tokenizer(SENTENCES, TokenizerSettings(vocab_size=400))


def test_sampled_segmentations_vary_decode_to_the_same_text_and_repeat_per_seed():
    tokenizer = _tokenizer()
    text = "The meeting was postponed until Tuesday afternoon."
    best = tokenizer.encode(text)
    assert all(tokenizer.encode(text) == best for _ in range(5))  # no α: always the one best segmentation
    rng = np.random.default_rng(7)
    sampled = [tokenizer.encode(text, sample_alpha=0.1, rng=rng) for _ in range(20)]
    assert len({tuple(ids) for ids in sampled}) > 1
    assert {tokenizer.decode(ids) for ids in sampled} == {text}
    rng = np.random.default_rng(7)
    assert [tokenizer.encode(text, sample_alpha=0.1, rng=rng) for _ in range(20)] == sampled


SAMPLE_IN_A_NEW_PROCESS = """
import sys, numpy as np
from engine.text.tokenizer import Tokenizer
tokenizer = Tokenizer(open(sys.argv[1], "rb").read())
rng = np.random.default_rng(7)
print([tokenizer.encode(sys.argv[2], sample_alpha=0.1, rng=rng) for _ in range(20)])
"""


def test_sampled_segmentations_repeat_in_another_process(tmp_path):
    """The same seed, the same segmentations in any process (SentencePiece's own sampler, even with its
    global seed set, draws differently in each process: a run with subword regularization could not be
    repeated or resumed bit-exact)."""
    tokenizer = _tokenizer()
    model = tmp_path / "t.model"
    model.write_bytes(tokenizer.model_bytes)
    text = "The meeting was postponed until Tuesday afternoon."
    rng = np.random.default_rng(7)
    here = [tokenizer.encode(text, sample_alpha=0.1, rng=rng) for _ in range(20)]
    outputs = {subprocess.run([sys.executable, "-c", SAMPLE_IN_A_NEW_PROCESS, str(model), text], capture_output=True,
                              text=True, check=True).stdout.strip() for _ in range(2)}
    assert outputs == {str(here)}


def test_subword_alpha_is_checked_against_its_range():
    with pytest.raises(ConfigError, match="subword_alpha must be between 0.0 and 1.0"):
        TrainConfig(subword_alpha=1.5)


def test_each_epoch_is_segmented_afresh_deterministically_and_validation_is_not(tmp_path):
    def epoch_data(folder, epoch, **options):
        run = TrainingRun(tiny_job(folder, epochs=2, train_size=300, **options), TrainControl())
        valid = list(run.valid_data)
        run.prepare_epoch(epoch)
        return run.train_data, valid

    plain, plain_valid = epoch_data(tmp_path / "a", 0)
    first, first_valid = epoch_data(tmp_path / "b", 0, subword_alpha=0.1)
    again, _ = epoch_data(tmp_path / "c", 0, subword_alpha=0.1)
    second, _ = epoch_data(tmp_path / "d", 1, subword_alpha=0.1)
    assert first == again  # same seed and epoch: same segmentations
    assert first != plain and first != second  # sampled, and afresh each epoch
    assert first_valid == plain_valid  # checkpoint choice and scores always use the best segmentation
    assert len(first) == len(plain)  # the same pairs, only cut differently
