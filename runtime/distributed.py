"""The cross-process part of the collectives: ``torch.distributed`` (gloo on CPUs, NCCL
when the emulated IPUs sit on CUDA devices).

Each process runs some of the replicas (:class:`~ipu_mlir.runtime.replicas.ReplicatedProgram`,
global ranks ``process x local .. (process + 1) x local - 1``). At every collective the
leader replica of each process hands its replicas' tensors to
:meth:`TorchDistributedExchange.exchange`, which all-gathers them as raw bytes (any dtype)
and returns every replica's tensor by global rank; each replica then computes its group's
result locally, in rank order, exactly as in one process.

Faults never hang: the operations run in a process group of their own whose timeout is
``timeout`` seconds (:func:`process_group`; gloo then fails an operation a peer does not
join in time, and at once when the peer's connection drops). Before each operation, each
process counts it in the rendezvous store (``ipu_mlir/reached/<process>``); when one fails,
the counts tell which peers never reached it, and :class:`DistributedError` names them.
(With NCCL, a hung peer is detected by NCCL's own watchdog under the same timeout.)

Example::

    exchange = TorchDistributedExchange(local=2, timeout=60.0)   # after init_process_group
    program.set_exchange(exchange, exchange.timeout)
"""

from __future__ import annotations

import atexit
import datetime
import time
from collections.abc import Callable, Sequence
from typing import Any

import torch

# How long a process waits for its peers at a collective, a broadcast or the start (seconds)
# unless told otherwise (poptorch: Options.Distributed.setTimeout / IPU_MLIR_DISTRIBUTED_TIMEOUT).
DEFAULT_TIMEOUT = 300.0
_REACHED = "ipu_mlir/reached/"
_groups: dict[float, tuple[Any, Any]] = {}  # timeout -> (the world it was made in, the group of every process)


class DistributedError(RuntimeError):
    """A cross-process operation failed: a peer died, hung, or torch.distributed broke."""


def _world() -> tuple[Any, int, int]:
    import torch.distributed as dist

    if not dist.is_available() or not dist.is_initialized():
        raise DistributedError("torch.distributed is not initialised: the replicas of other processes cannot be "
                               "reached (poptorch initialises it when Options.Distributed has several processes)")
    return dist, dist.get_rank(), dist.get_world_size()


def process_group(timeout: float) -> Any:
    """Every process, in a group whose operations time out after ``timeout`` seconds (made
    once per timeout; every process must ask for it at the same point, as SPMD code does)."""
    dist, _, _ = _world()
    world = dist.group.WORLD
    known = _groups.get(timeout)
    if known is None or known[0] is not world:  # (a re-initialised torch.distributed needs a new one)
        if not _groups:
            atexit.register(_destroy_groups)
        known = _groups[timeout] = (world, dist.new_group(backend=dist.get_backend(),
                                                          timeout=datetime.timedelta(seconds=timeout)))
    return known[1]


def _destroy_groups() -> None:
    """At exit, destroy our process groups before the interpreter tears down: a gloo group
    left alive aborts the process ("terminate called without an active exception")."""
    import torch.distributed as dist

    for world, group in list(_groups.values()):
        try:
            if dist.is_initialized() and dist.group.WORLD is world:
                dist.destroy_process_group(group)
        except Exception:  # noqa: BLE001, S110 - best effort at exit: a broken group has nothing left to free
            pass
    _groups.clear()


class _Guard:
    """Counts this process's cross-process operations in the rendezvous store and turns a
    failure or a timeout into a :class:`DistributedError` naming the peers that did not
    reach the operation."""

    def __init__(self, timeout: float) -> None:
        dist, self.rank, self.world = _world()
        self.timeout = float(timeout)
        self.store = dist.distributed_c10d._get_default_store()
        self.group = process_group(self.timeout)
        self.reached = 0

    def run(self, what: str, operation: Callable[[Any], None]) -> None:
        """Run ``operation(group)``, a torch.distributed call on our process group."""
        self.reached = int(self.store.add(f"{_REACHED}{self.rank}", 1))
        try:
            operation(self.group)
        except Exception as error:  # noqa: BLE001 - re-raised as ours, with the peers named
            raise DistributedError(self._describe(what, error)) from error

    def _describe(self, what: str, error: BaseException) -> str:
        cause = str(error).strip().splitlines()[0][:300].rstrip(".") if str(error).strip() else type(error).__name__
        missing, unreachable = [], None
        try:
            for peer in range(self.world):
                if peer != self.rank and int(self.store.add(f"{_REACHED}{peer}", 0)) < self.reached:
                    missing.append(peer)
        except Exception as store_error:  # noqa: BLE001 - the store itself is gone
            unreachable = str(store_error).strip().splitlines()[0][:200] if str(store_error).strip() else "no answer"
        head = f"distributed execution: process {self.rank} of {self.world} stopped at {what}"
        if missing:
            names = ", ".join(f"process {p}" for p in missing)
            return (f"{head}: {names} did not reach it within {self.timeout:g} s (dead or hung; check its log). "
                    f"torch.distributed said: {cause}. The timeout is Options.Distributed.setTimeout(seconds) or "
                    "IPU_MLIR_DISTRIBUTED_TIMEOUT.")
        if unreachable is not None:
            return (f"{head}, and the rendezvous store cannot be reached ({unreachable}): process 0, which hosts it "
                    f"when torchrun does not, is probably dead. torch.distributed said: {cause}")
        return (f"{head}: every process reached it, but it failed within the {self.timeout:g} s timeout. "
                f"torch.distributed said: {cause}")


def _bytes_of(tensors: Sequence[torch.Tensor]) -> torch.Tensor:
    """``tensors`` (one dtype and shape) stacked, as a flat uint8 tensor."""
    stacked = tensors[0].detach().contiguous() if len(tensors) == 1 else torch.stack([t.detach() for t in tensors])
    if stacked.dtype == torch.bool:
        stacked = stacked.to(torch.uint8)
    return stacked.reshape(-1).view(torch.uint8) if stacked.numel() else torch.empty(0, dtype=torch.uint8)


def _from_bytes(raw: torch.Tensor, like: torch.Tensor, count: int) -> list[torch.Tensor]:
    dtype = torch.uint8 if like.dtype == torch.bool else like.dtype
    values = raw.view(dtype).reshape(count, *like.shape) if raw.numel() else torch.empty(count, *like.shape, dtype=dtype)
    if like.dtype == torch.bool:
        values = values.to(torch.bool)
    return [v.to(like.device) for v in values.unbind(0)]


class TorchDistributedExchange:
    """The :class:`~ipu_mlir.runtime.replicas.Exchange` of this process through the
    default ``torch.distributed`` process group: process p holds global replica ranks
    ``p x local .. (p + 1) x local - 1``. ``device`` is where the bytes travel (CPU for
    gloo, this process's CUDA device for NCCL). ``seconds`` / ``calls`` count the time
    spent exchanging (the bench reports it)."""

    def __init__(self, local: int, timeout: float = DEFAULT_TIMEOUT, device: torch.device | str = "cpu") -> None:
        self.guard = _Guard(timeout)
        self.process, self.processes = self.guard.rank, self.guard.world
        self.local = local
        self.device = torch.device(device)
        self.seconds = 0.0
        self.calls = 0

    @property
    def timeout(self) -> float:
        return self.guard.timeout

    def exchange(self, tensors: dict[int, torch.Tensor], what: str) -> dict[int, torch.Tensor]:
        import torch.distributed as dist

        mine = list(range(self.process * self.local, (self.process + 1) * self.local))
        if sorted(tensors) != mine:
            raise DistributedError(f"process {self.process} holds replicas {mine}, but {what} gave replicas "
                                   f"{sorted(tensors)}")
        local = [tensors[r] for r in mine]
        first = local[0]
        if any(t.shape != first.shape or t.dtype != first.dtype for t in local):
            raise DistributedError(f"{what}: the replicas of process {self.process} give tensors of different shapes or "
                                   f"dtypes ({[(tuple(t.shape), str(t.dtype)) for t in local]})")
        start = time.perf_counter()
        raw = _bytes_of(local).to(self.device)
        gathered = [torch.empty_like(raw) for _ in range(self.processes)]
        self.guard.run(what, lambda group: dist.all_gather(gathered, raw, group=group))
        result: dict[int, torch.Tensor] = {}
        for process, chunk in enumerate(gathered):
            values = _from_bytes(chunk.cpu() if self.device.type != "cpu" else chunk, first, self.local)
            result.update(zip(range(process * self.local, (process + 1) * self.local), values, strict=True))
        for rank in mine:  # this process's own replicas keep their own tensors (no copy)
            result[rank] = tensors[rank]
        self.seconds += time.perf_counter() - start
        self.calls += 1
        return result


def broadcast(tensors: Sequence[torch.Tensor], what: str, timeout: float = DEFAULT_TIMEOUT, source: int = 0,
              device: torch.device | str = "cpu") -> list[torch.Tensor]:
    """Process ``source``'s values of ``tensors`` (the same shapes and dtypes in every
    process), sent as one byte buffer; new tensors on each tensor's own device."""
    import torch.distributed as dist

    guard = _Guard(timeout)
    if not tensors:
        return []
    parts = [t.detach().contiguous().to(torch.uint8 if t.dtype == torch.bool else t.dtype).reshape(-1) for t in tensors]
    raw = torch.cat([p.view(torch.uint8) if p.numel() else torch.empty(0, dtype=torch.uint8) for p in parts])
    raw = raw.to(device)
    guard.run(what, lambda group: dist.broadcast(raw, source, group=group))
    raw = raw.cpu()
    out, offset = [], 0
    for tensor, part in zip(tensors, parts, strict=True):
        size = part.numel() * part.element_size()
        chunk = raw[offset:offset + size]
        offset += size
        value = chunk.view(part.dtype) if size else torch.empty(0, dtype=part.dtype)
        value = value.reshape(tensor.shape)
        out.append((value.to(torch.bool) if tensor.dtype == torch.bool else value.clone()).to(tensor.device))
    return out


def barrier(what: str, timeout: float = DEFAULT_TIMEOUT) -> None:
    """Every process reaches ``what`` (or the error names those that did not)."""
    import torch.distributed as dist

    _Guard(timeout).run(what, lambda group: dist.barrier(group=group))
