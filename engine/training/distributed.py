"""Data-parallel training under ``torchrun``: PyTorch's own distributed engine, nothing home-made.

    torchrun --nproc-per-node N -m engine train …                      (one machine, N processes)
    torchrun --nnodes M --nproc-per-node N --rdzv-backend c10d \\
             --rdzv-endpoint HOST:PORT --rdzv-id RUN -m engine train …  (M machines)

torchrun starts the processes and sets RANK, WORLD_SIZE and LOCAL_RANK; :func:`from_environment`
reads them (a plain ``python -m engine train`` is a world of one, and nothing here runs). Every
rank builds the same shuffled global batches from (seed, epoch) and trains on its own slice of each
(:meth:`Distributed.shard`); DistributedDataParallel all-reduces the gradients, so the N ranks take
the step one process would take on the whole batch. Rank 0 alone trains the tokenizers (the others
receive them), validates, logs, checkpoints and writes the model folder; what it decides — the
validation's outcome, the shared clock of a time budget, a stop — reaches every rank through small
collectives, so that all ranks take the same steps and stop together.

Backends: gloo on CPU, NCCL on CUDA (one GPU per local rank).
"""

from __future__ import annotations

import datetime
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import torch
import torch.distributed as dist

from engine.settings.errors import ConfigError

# A rank waits this long in a collective (e.g. while rank 0 validates) before giving up; a rank that
# dies is noticed by torchrun at once, which then ends the others.
COLLECTIVE_TIMEOUT = datetime.timedelta(minutes=30)
_collective_device = torch.device("cpu")  # NCCL reduces CUDA tensors only


@dataclass(frozen=True)
class Distributed:
    """Where this process stands in the run: rank ``rank`` of ``world_size`` (one per device)."""

    rank: int = 0
    world_size: int = 1
    local_rank: int = 0

    @property
    def active(self) -> bool:
        return self.world_size > 1

    @property
    def is_main(self) -> bool:
        """Rank 0: the one that validates, logs, checkpoints and writes files."""
        return self.rank == 0

    def shard(self, batch: Sequence[int]) -> list[int]:
        """This rank's slice of a global batch (every world_size-th example, from its rank on)."""
        return list(batch[self.rank :: self.world_size])

    def device(self, device: torch.device) -> torch.device:
        """One GPU per local rank; a CPU stays the CPU."""
        if self.active and device.type == "cuda":
            return torch.device("cuda", self.local_rank)
        return device


SINGLE = Distributed()


def from_environment(environ: dict[str, str] | None = None) -> Distributed:
    """The rank torchrun gave this process (RANK, WORLD_SIZE, LOCAL_RANK), or a world of one."""
    environ = dict(os.environ) if environ is None else environ
    try:
        world_size = int(environ.get("WORLD_SIZE", "1"))
        rank = int(environ.get("RANK", "0"))
        local_rank = int(environ.get("LOCAL_RANK", str(rank)))
    except ValueError:
        raise ConfigError("WORLD_SIZE, RANK and LOCAL_RANK must be integers (torchrun sets them)") from None
    if world_size < 1 or not 0 <= rank < world_size:
        raise ConfigError(f"rank {rank} of a world of {world_size} processes is not a valid place in a run")
    return Distributed(rank, world_size, local_rank)


def start(info: Distributed, device: torch.device) -> None:
    """Join the process group (a no-op for a world of one)."""
    if not info.active or dist.is_initialized():
        return
    global _collective_device
    if device.type == "cuda":
        torch.cuda.set_device(info.local_rank)
        _collective_device = torch.device("cuda", info.local_rank)
    backend = "nccl" if device.type == "cuda" else "gloo"
    dist.init_process_group(backend, rank=info.rank, world_size=info.world_size, timeout=COLLECTIVE_TIMEOUT)


def finish() -> None:
    """Leave the process group (after the last collective)."""
    if dist.is_initialized():
        dist.destroy_process_group()


def broadcast(info: Distributed, value: Any) -> Any:
    """Rank 0's ``value`` on every rank (plain data: numbers, strings, bytes, dicts, dataclasses)."""
    if not info.active:
        return value
    holder = [value if info.is_main else None]
    dist.broadcast_object_list(holder, src=0)
    return holder[0]


def _all_reduce(info: Distributed, values: Sequence[float], op: dist.ReduceOp.RedOpType) -> list[float]:
    if not info.active:
        return list(values)
    tensor = torch.tensor(list(values), dtype=torch.float64, device=_collective_device)
    dist.all_reduce(tensor, op=op)
    return tensor.cpu().tolist()


def agree_max(info: Distributed, values: Sequence[float]) -> list[float]:
    """The element-wise maximum of ``values`` over all ranks (a stop anywhere, the latest clock)."""
    return _all_reduce(info, values, dist.ReduceOp.MAX)


def agree_sum(info: Distributed, values: Sequence[float]) -> list[float]:
    """The element-wise sum of ``values`` over all ranks."""
    return _all_reduce(info, values, dist.ReduceOp.SUM)


def barrier(info: Distributed) -> None:
    """Wait until every rank reaches this point (nothing to wait for in a world of one)."""
    if info.active:
        dist.barrier()


_PEER_SIGNS = ("connection closed by peer", "connection reset by peer", "broken pipe", "gloo", "nccl",
               "timed out", "rendezvous")


def lost_peer(error: BaseException) -> bool:
    """True when ``error`` is a collective failing because another process of the run ended (killed,
    crashed, or stopped by torchrun): gloo and NCCL report it as a RuntimeError of their own."""
    dist_error = getattr(dist, "DistError", None)
    if dist_error is not None and isinstance(error, dist_error):
        return True
    return isinstance(error, RuntimeError) and any(sign in str(error).lower() for sign in _PEER_SIGNS)


def lost_peer_message(info: Distributed, error: BaseException, resumable: str = "") -> str:
    """One line for the survivors of a rank's death: the collective's own error in brief (without
    the backend's source location), and what can be resumed (rank 0 knows)."""
    reason = re.sub(r"^\[[^\]]*\]\s*", "", " ".join(str(error).split())).split(". ")[0][:160]
    return (f"[train] rank {info.rank} of {info.world_size}: another process of this run has ended, so this one "
            f"stops too (the collective failed: {reason}){f'; {resumable}' if resumable else ''}")

