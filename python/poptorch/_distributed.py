"""Many processes (``Options.Distributed`` with ``numProcesses > 1``): torch.distributed.

Each process runs ``replicationFactor`` replicas (global ranks ``processId x R ..``); the
cross-process part of every collective goes through ``torch.distributed``
(``ipu_mlir.runtime.distributed``). This module starts it, checks that it agrees with the
options, and makes the processes start from the same weights and random seed.

- Start: when the user has not called ``torch.distributed.init_process_group``, poptorch
  does, with backend gloo (NCCL when ``setIpuModelDevices`` puts the IPUs on CUDA), rank
  ``processId`` and world size ``numProcesses``, rendezvous at ``MASTER_ADDR:MASTER_PORT``
  (torchrun sets them; default 127.0.0.1:29500). If it cannot start within the timeout,
  the error says so: there is no silent single-process run.
- Weights: on the first upload, process 0's parameters, buffers and optimizer state are
  broadcast to every process (into the user's model too).
- Faults: every cross-process wait is bounded by ``Options.Distributed.timeout``
  (``setTimeout``, ``IPU_MLIR_DISTRIBUTED_TIMEOUT``, default 300 s); a dead or hung peer
  makes the others fail with an error naming it.
"""

from __future__ import annotations

import atexit
import datetime
import os
from typing import TYPE_CHECKING, Any

import torch

if TYPE_CHECKING:
    from ._executor import PoplarExecutor
    from .options import Options

DEFAULT_ADDR, DEFAULT_PORT = "127.0.0.1", "29500"  # torchrun's defaults
# The replicas of one process wait for their leader's exchange this much longer than the
# exchange itself waits, so that the exchange's error (naming the peer) is the one reported.
LOCAL_MARGIN = 30.0


def _device(options: Options) -> torch.device:
    """Where the exchanged bytes travel: this process's CUDA device when the emulated IPUs
    are on CUDA (NCCL), else the CPU (gloo)."""
    devices = [options.ipu_model_device(0), *options.ipu_model_devices.values()]
    cuda = next((d for d in devices if d.type == "cuda"), None)
    return cuda if cuda is not None else torch.device("cpu")


def _backend(options: Options) -> str:
    return "nccl" if _device(options).type == "cuda" else "gloo"


def _shutdown() -> None:
    """Destroy the process group poptorch started (a gloo group left alive at exit aborts the process)."""
    import torch.distributed as dist

    try:
        if dist.is_initialized():
            dist.destroy_process_group()
    except Exception:  # noqa: BLE001, S110 - best effort at exit
        pass


def connect(options: Options) -> None:
    """Start torch.distributed for ``options.Distributed`` (or check the user's start)."""
    import torch.distributed as dist

    distributed = options.Distributed
    rank, world, timeout = distributed.processId, distributed.numProcesses, distributed.timeout
    said = f"Options.Distributed says this is process {rank} of {world}"
    if not dist.is_available():
        raise RuntimeError(f"{said}, but this torch build has no torch.distributed; install a torch with it, or call "
                           "Options.Distributed.disable() to run one process")
    if dist.is_initialized():
        got_rank, got_world = dist.get_rank(), dist.get_world_size()
        if (got_rank, got_world) != (rank, world):
            raise RuntimeError(
                f"{said}, but torch.distributed was initialised as rank {got_rank} of {got_world}: they must agree. "
                "Configure Options.Distributed with the same process id and count (configureProcessId(rank, "
                "world_size)), or let poptorch read torchrun's RANK / WORLD_SIZE")
        return
    addr, port = os.environ.get("MASTER_ADDR"), os.environ.get("MASTER_PORT")
    init_method = "env://" if addr and port else f"tcp://{addr or DEFAULT_ADDR}:{port or DEFAULT_PORT}"
    where = f"{addr or DEFAULT_ADDR}:{port or DEFAULT_PORT}"
    backend = _backend(options)
    try:
        dist.init_process_group(backend, init_method=init_method, rank=rank, world_size=world,
                                timeout=datetime.timedelta(seconds=timeout))
        atexit.register(_shutdown)  # we started it: we end it, before the interpreter tears down
    except Exception as error:  # noqa: BLE001 - re-raised as ours
        cause = str(error).strip().splitlines()[0][:300].rstrip(".") if str(error).strip() else type(error).__name__
        raise RuntimeError(
            f"{said}, but torch.distributed ({backend}) could not start within {timeout:g} s at {where}: {cause}. "
            f"Start all {world} processes with the same MASTER_ADDR / MASTER_PORT (e.g. torchrun --nproc-per-node "
            f"{world} script.py), or call Options.Distributed.disable() to run one process") from error


def attach_exchange(executor: PoplarExecutor, local: int) -> None:
    """Connect the compiled program's replicas to the other processes'."""
    from ipu_mlir.driver.distributed import TorchDistributedExchange

    options = executor._options
    timeout = options.Distributed.timeout
    exchange = TorchDistributedExchange(local, timeout, _device(options))
    executor._compiled.program.set_exchange(exchange, timeout + LOCAL_MARGIN)


def broadcast_weights(executor: PoplarExecutor) -> None:
    """Every process takes process 0's parameters, buffers and optimizer state (into the
    user's model and optimizer, which the upload then reads)."""
    from ipu_mlir.driver.distributed import broadcast

    from ._executor import _raw_named_tensors

    tensors: list[torch.Tensor] = []
    seen: set[int] = set()
    raw = _raw_named_tensors(executor._model)
    for name in sorted(raw):
        if id(raw[name]) not in seen:
            seen.add(id(raw[name]))
            tensors.append(raw[name])
    optimizer = executor._optimizer if executor._training else None
    if optimizer is not None:
        for param in tensors[:]:
            state = optimizer.state.get(param)
            for key in sorted(state or {}):
                if isinstance(state[key], torch.Tensor):
                    tensors.append(state[key])
    values = broadcast([t.detach() for t in tensors], "the weight broadcast from process 0",
                       executor._options.Distributed.timeout, device=_device(executor._options))
    with torch.no_grad():
        for tensor, value in zip(tensors, values, strict=True):
            tensor.copy_(value)


def agree_seed(options: Options, seed: int) -> int:
    """Process 0's random seed (the device seed drawn from torch's generator differs per
    process; replicas derive their own streams from the one seed)."""
    from ipu_mlir.driver.distributed import broadcast

    (value,) = broadcast([torch.tensor([seed], dtype=torch.int64)], "the random seed broadcast from process 0",
                         options.Distributed.timeout, device=_device(options))
    return int(value.item())


def exchange_seconds(executor: PoplarExecutor) -> float:
    """Seconds this process spent exchanging with the others (the bench reports it)."""
    exchange = executor._compiled.program.communicator.exchange if executor._compiled is not None else None
    return float(getattr(exchange, "seconds", 0.0))


def describe(executor: PoplarExecutor) -> dict[str, Any]:
    """What the collectives cost in this process: all-reduce wall time and counts."""
    communicator = executor._compiled.program.communicator
    return {"collective_seconds": communicator.seconds, "collectives": communicator.calls,
            "exchange_seconds": exchange_seconds(executor)}
