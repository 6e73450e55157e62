"""Devices: auto picks what exists, a missing one is refused naming the ones there, folders stay portable."""

import pytest
import torch

from engine.__main__ import main
from engine.models.bundle import load_model_folder
from engine.networks.device import available_devices, check_precision, resolve_device
from engine.settings.errors import ConfigError


def test_auto_picks_the_first_device_there_is_and_a_missing_one_is_refused_by_name():
    assert resolve_device("auto").type == available_devices()[0]
    assert resolve_device("cpu") == torch.device("cpu")
    if not torch.cuda.is_available():
        with pytest.raises(ConfigError, match="CUDA is not available on this machine; devices here: .*cpu"):
            resolve_device("cuda")
    with pytest.raises(ConfigError, match="auto, cpu, cuda, mps"):
        resolve_device("tpu")


def test_mixed_precision_needs_cuda_and_fp32_works_everywhere():
    assert check_precision("fp32", torch.device("cpu")) is None
    with pytest.raises(ConfigError, match="needs a CUDA device"):
        check_precision("bf16", torch.device("cpu"))
    assert check_precision("fp16", torch.device("cuda")) == torch.float16


@pytest.mark.slow  # a trained model, or the real window
def test_the_command_line_takes_a_device_and_refuses_one_that_is_missing(dates_models, capsys, tmp_path):
    model = str(dates_models["additive"])
    assert main(["translate", "--model", model, "--device", "cpu", "29 Nov 2026"]) == 0
    assert main(["evaluate", "--model", model, "--task", "dates", "--device", "auto", "--json"]) == 0
    capsys.readouterr()
    if not torch.cuda.is_available():
        assert main(["translate", "--model", model, "--device", "cuda", "29 Nov 2026"]) == 2
        assert "devices here" in capsys.readouterr().err
        assert main(["train", "--task", "dates", "--scorer", "dot", "--device", "cuda", "--out",
                     str(tmp_path / "x")]) == 2
        assert not (tmp_path / "x").exists()  # refused before anything was written
    assert main(["train", "--task", "dates", "--scorer", "dot", "--precision", "bf16", "--device", "cpu",
                 "--out", str(tmp_path / "y")]) == 2
    assert "needs a CUDA device" in capsys.readouterr().err
    translator = load_model_folder(model).translator
    assert translator.device == torch.device("cpu") and translator.to(torch.device("cpu")) is translator
