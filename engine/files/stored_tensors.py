"""Tensors from stored safetensors files, the one way in (engine.files.stored reads the JSON around them):
a pickle is named as such and never loaded, every floating-point value finite, anything else one line of
:class:`StoredFileError`."""

from __future__ import annotations

import hashlib
import json
import struct
from collections.abc import Mapping

import torch
from safetensors import SafetensorError
from safetensors.torch import load as load_safetensors

from engine.files.stored import looks_like_pickle, one_line
from engine.settings.errors import StoredFileError


def read_tensors(data: bytes, where: object) -> tuple[dict[str, torch.Tensor], dict[str, str]]:
    """The tensors of a safetensors file's bytes, and its metadata (``__metadata__``, {} if none);
    every floating-point tensor finite."""
    if looks_like_pickle(data):
        raise StoredFileError(f"{where} is a pickle/PyTorch file, not safetensors; refusing to load it")
    try:
        tensors = load_safetensors(data)
        metadata = _metadata(data)
    except (SafetensorError, ValueError, RuntimeError, OverflowError, struct.error) as error:
        raise StoredFileError(f"{where} is not a valid safetensors file ({one_line(error)})") from None
    check_finite(tensors, where)
    return tensors, metadata


def _metadata(data: bytes) -> dict[str, str]:
    (size,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8 : 8 + size].decode("utf-8"))
    metadata = header.get("__metadata__") if isinstance(header, dict) else None
    if metadata is None:
        return {}
    if not isinstance(metadata, dict) or not all(isinstance(v, str) for v in metadata.values()):
        raise ValueError("its metadata is not a map of strings")
    return metadata


def check_finite(tensors: Mapping[str, torch.Tensor], where: object) -> None:
    """Raise StoredFileError naming the first floating-point tensor that holds NaN or infinity."""
    for name, tensor in tensors.items():
        if tensor.is_floating_point() and not bool(torch.isfinite(tensor).all()):
            raise StoredFileError(f"{where}: {name} holds NaN or infinite values")


def tensor_digest(tensors: Mapping[str, torch.Tensor]) -> str:
    """sha256 over the tensors' names, dtypes, shapes and values (in name order): the digest a tensor
    file's metadata carries for what it holds."""
    digest = hashlib.sha256()
    for name in sorted(tensors):
        tensor = tensors[name].detach().to("cpu").contiguous()
        digest.update(f"{name}|{tensor.dtype}|{tuple(tensor.shape)}|".encode())
        digest.update(tensor.reshape(-1).view(torch.uint8).numpy().tobytes() if tensor.numel() else b"")
    return digest.hexdigest()
