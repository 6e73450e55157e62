"""TensorBoard event files (engine.training.tensorboard_log), an optional extra."""

import sys

import numpy as np
import pytest

from engine.settings.errors import ConfigError
from engine.training.events import FinishedEvent, StepEvent
from engine.training.tensorboard_log import EXTRA_HINT, TensorBoardLog, attention_image, require_tensorboard
from engine.training.trainer import train
from tests.model_factory import tiny_job


def test_the_attention_map_becomes_an_image_whose_brightest_cell_is_the_largest_weight():
    alpha = np.array([[0.7, 0.3], [0.1, 0.9], [0.5, 0.5]])
    image = attention_image(alpha, cell=4)
    assert image.shape == (1, 12, 8) and image.max() == pytest.approx(1.0)
    assert image[0, 4:8, 4:8].min() == pytest.approx(1.0) and image[0, 4, 0] == pytest.approx(0.1 / 0.9)


def test_without_the_package_the_flag_says_how_to_install_it(monkeypatch):
    monkeypatch.setitem(sys.modules, "torch.utils.tensorboard", None)  # import fails as if not installed
    with pytest.raises(ConfigError, match="optional extra") as error:
        require_tensorboard()
    assert EXTRA_HINT in str(error.value)
    with pytest.raises(ConfigError):
        TensorBoardLog(__import__("pathlib").Path("unused"))


def test_a_run_writes_its_curves_and_attention_snapshots_for_tensorboard(tmp_path):
    pytest.importorskip("tensorboard")
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    events = list(train(tiny_job(tmp_path / "run", epochs=2, train_size=320, hidden=16), tensorboard=True))
    steps = [e for e in events if isinstance(e, StepEvent)]
    assert isinstance(events[-1], FinishedEvent)
    board = EventAccumulator(str(tmp_path / "run" / "tensorboard"), size_guidance={"scalars": 0, "images": 0})
    board.Reload()
    assert [s.step for s in board.Scalars("train/loss")] == [e.step for e in steps]
    assert len(board.Scalars("valid/bleu")) >= 2 and board.Images("valid/attention")
