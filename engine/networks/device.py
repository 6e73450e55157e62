"""Which device a model runs on: ``auto`` (CUDA, then Apple's MPS, then the CPU), or one named.

Model folders and checkpoints are device-independent: weights are always saved from CPU tensors
and loaded onto whatever device the run or the translator uses.
"""

from __future__ import annotations

import torch

from engine.settings.errors import ConfigError

DEVICE_CHOICES = ("auto", "cpu", "cuda", "mps")
PRECISION_CHOICES = ("fp32", "bf16", "fp16")  # bf16 / fp16: autocast, CUDA only


def available_devices() -> list[str]:
    """The devices this machine has, the preferred first: cuda, mps, cpu."""
    devices = ["cpu"]
    if torch.cuda.is_available():
        devices.insert(0, "cuda")
    mps = getattr(torch.backends, "mps", None)
    if mps is not None and mps.is_available():
        devices.insert(0 if "cuda" not in devices else 1, "mps")
    return devices


def resolve_device(name: str = "auto") -> torch.device:
    """The torch device for ``name``; a device this machine lacks is refused naming the ones it has."""
    if name not in DEVICE_CHOICES:
        raise ConfigError(f"device must be one of {', '.join(DEVICE_CHOICES)}; got {name!r}")
    present = available_devices()
    if name == "auto":
        return torch.device(present[0])
    if name not in present:
        label = {"cuda": "CUDA", "mps": "Apple MPS"}.get(name, name)
        raise ConfigError(f"{label} is not available on this machine; devices here: {', '.join(present)}")
    return torch.device(name)


def check_precision(precision: str, device: torch.device) -> torch.dtype | None:
    """The autocast dtype for ``precision`` on ``device`` (None for full fp32)."""
    if precision not in PRECISION_CHOICES:
        raise ConfigError(f"precision must be one of {', '.join(PRECISION_CHOICES)}; got {precision!r}")
    if precision == "fp32":
        return None
    if device.type != "cuda":
        raise ConfigError(f"--precision {precision} needs a CUDA device (autocast); this run uses {device.type}: "
                          "use fp32")
    return torch.bfloat16 if precision == "bf16" else torch.float16


def describe_device(device: torch.device) -> str:
    """E.g. "cpu" or "cuda (NVIDIA H200)"."""
    if device.type == "cuda":
        return f"cuda ({torch.cuda.get_device_name(device)})"
    return device.type
