"""Replicated execution in the IPU Model: R replicas of one ``poplar.graph``, each with its
own emulated IPUs and variables, running concurrently, and the GCL collectives among them.

A :class:`ReplicatedProgram` decodes the graph once per replica of this process (each a
:class:`~ipu_mlir.runtime.decoder.Program` bound to its global replica rank) and runs them
in threads: torch kernels release the GIL, so replicas compute in parallel. The
collectives (``poplar.gcl_*``) meet in a :class:`Communicator`: each replica deposits its
tensor, the replicas of this process wait for each other, the leader exchanges the
deposits with the other processes through an :class:`Exchange` (``torch.distributed``,
``runtime/distributed.py``), and each replica computes its own result from the values of
its group, in group-rank order, so that every replica of a group gets bit-identical
values. A replica that fails, or a peer that does not arrive within the timeout, breaks
the meeting: the others stop with an error instead of waiting forever.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Protocol

import torch
from torch_mlir import ir

from .device_store import DeviceStore
from .kernels import KernelError, attr
from .kernels.collectives import combine

# How long a replica waits for the others at a collective (seconds), unless the caller
# says otherwise (poptorch: Options.Distributed timeout / IPU_MLIR_REPLICA_TIMEOUT).
DEFAULT_TIMEOUT = 300.0


class ReplicaError(RuntimeError):
    """A collective could not complete: a replica failed, or a peer did not arrive in time."""


class Exchange(Protocol):
    """The cross-process part of a collective: each process gives the tensors of its
    replicas (by global rank) and gets every replica's tensor of every process."""

    def exchange(self, tensors: dict[int, torch.Tensor], what: str) -> dict[int, torch.Tensor]: ...


class Communicator:
    """Where the replicas of this process meet for their collectives.

    ``ranks`` are the global ranks of this process's replicas (``total`` in all);
    ``exchange`` carries the deposits to and from the other processes (None: one process).
    """

    def __init__(self, total: int, ranks: Sequence[int], exchange: Exchange | None = None,
                 timeout: float = DEFAULT_TIMEOUT) -> None:
        self.total = total
        self.ranks = list(ranks)
        self.exchange = exchange
        self.timeout = timeout
        self._barrier = threading.Barrier(len(self.ranks))
        self._deposits: dict[int, torch.Tensor] = {}
        self._lock = threading.Lock()
        self.seconds = 0.0  # wall time the leader spent in collectives (the bench reports it)
        self.calls = 0

    def reset(self) -> None:
        """Ready for a new run after a failed one (a broken meeting)."""
        self._barrier = threading.Barrier(len(self.ranks))
        self._deposits = {}

    def abort(self) -> None:
        """A replica failed: the others stop waiting for it."""
        self._barrier.abort()

    def _wait(self, rank: int, what: str) -> None:
        try:
            self._barrier.wait(self.timeout)
        except threading.BrokenBarrierError:
            raise ReplicaError(
                f"replica {rank} stopped at {what}: another replica of this process failed, or did not reach it "
                f"within {self.timeout:g} s") from None

    def gather(self, rank: int, value: torch.Tensor | list[torch.Tensor], what: str) -> dict[int, Any]:
        """Every replica's ``value`` of this collective (a tensor, or the list of tensors of
        a batch of collectives), by global rank. The caller must call :meth:`done` once it
        no longer reads them."""
        leader = rank == self.ranks[0]
        start = time.perf_counter() if leader else 0.0
        with self._lock:
            self._deposits[rank] = value
        self._wait(rank, what)
        if self.exchange is not None:
            if leader:
                local = {r: self._deposits[r] for r in self.ranks}
                try:
                    self._deposits = _exchange(self.exchange, local, what)
                except BaseException:
                    self.abort()
                    raise
            self._wait(rank, what)
        if leader:
            self.seconds += time.perf_counter() - start
            self.calls += 1
        return self._deposits

    def done(self, rank: int, what: str) -> None:
        """Every replica has read the deposits: the next collective may replace them."""
        self._wait(rank, what)
        if rank == self.ranks[0]:
            self._deposits = {}
        self._wait(rank, what)


def _pack(values: list[torch.Tensor]) -> torch.Tensor:
    """A batch's tensors as one byte buffer (the same layout on every replica)."""
    parts = [v.detach().contiguous().reshape(-1) for v in values]
    return torch.cat([(p.to(torch.uint8) if p.dtype == torch.bool else p).view(torch.uint8) for p in parts])


def _unpack(raw: torch.Tensor, like: list[torch.Tensor]) -> list[torch.Tensor]:
    out, offset = [], 0
    for value in like:
        dtype = torch.uint8 if value.dtype == torch.bool else value.dtype
        size = value.numel() * torch.empty((), dtype=dtype).element_size()
        part = raw[offset:offset + size].view(dtype).reshape(value.shape)
        out.append(part.to(torch.bool) if value.dtype == torch.bool else part)
        offset += size
    return out


def _exchange(exchange: Exchange, local: dict[int, Any], what: str) -> dict[int, Any]:
    """The exchange of one collective (a tensor per replica) or of a batch (a list per
    replica: packed into one buffer, so the processes meet once)."""
    first = next(iter(local.values()))
    if not isinstance(first, list):
        return exchange.exchange(local, what)
    exchanged = exchange.exchange({rank: _pack(values) for rank, values in local.items()}, what)
    return {rank: local[rank] if rank in local else _unpack(raw, first) for rank, raw in exchanged.items()}


def _group_of(op: ir.Operation, total: int, rank: int) -> list[int]:
    """The global ranks of ``rank``'s replica group for ``op`` (its ``group`` attribute)."""
    from ipu_mlir.dialects.poplar import comm_group_of

    try:
        groups = comm_group_of(op).groups(total)
    except ValueError as error:
        raise KernelError(f"{op.name}: {error}") from None
    return next(group for group in groups if rank in group)


def collective_step(op: ir.Operation, program: Any, slot_in: int, slot_out: int) -> Callable[[list], None]:
    """The step running collective ``op`` for ``program`` (a decoded replica): alone when
    the graph has one replica, else with its group through the program's communicator."""
    compute = combine(op)
    total = program.replication_factor
    what = f"'{op.name}'"
    groups: dict[int, list[int]] = {}  # rank -> its group, found once per rank

    def run(env: list) -> None:
        communicator = program.communicator
        if communicator is None:  # one replica: every group is this replica alone
            env[slot_out] = compute([env[slot_in]], 0)
            return
        rank = program.replica_rank
        group = groups.get(rank)
        if group is None:
            group = groups[rank] = _group_of(op, total, rank)
        deposits = communicator.gather(rank, env[slot_in], what)
        try:
            env[slot_out] = compute([deposits[r] for r in group], group.index(rank))
        finally:
            communicator.done(rank, what)

    return run


def collective_batch_step(ops: list[ir.Operation], program: Any) -> Callable[[list], None]:
    """One step running adjacent collectives ``ops`` (none reads another's result) with a
    single meeting of the replicas: each replica deposits all its inputs at once, and the
    processes exchange them in one buffer."""
    computes = [combine(op) for op in ops]
    slots_in = [program._slot(op.operands[0]) for op in ops]
    slots_out = [program._slot(op.results[0]) for op in ops]
    total = program.replication_factor
    names = sorted({op.name for op in ops})
    what = f"{len(ops)} collectives ({', '.join(repr(n) for n in names)})"
    groups: dict[tuple[int, int], list[int]] = {}  # (op, rank) -> its group

    def run(env: list) -> None:
        communicator = program.communicator
        if communicator is None:  # one replica: every group is this replica alone
            for compute, slot_in, slot_out in zip(computes, slots_in, slots_out, strict=True):
                env[slot_out] = compute([env[slot_in]], 0)
            return
        rank = program.replica_rank
        deposits = communicator.gather(rank, [env[slot] for slot in slots_in], what)
        try:
            for index, (op, compute, slot_out) in enumerate(zip(ops, computes, slots_out, strict=True)):
                group = groups.get((index, rank))
                if group is None:
                    group = groups[(index, rank)] = _group_of(op, total, rank)
                env[slot_out] = compute([deposits[r][index] for r in group], group.index(rank))
        finally:
            communicator.done(rank, what)

    return run


def _replica_seed(seed: int, rank: int) -> int:
    """Replica 0 draws from the seed itself (one replica runs as before); each other
    replica from its own seed, so replicas do not share dropout masks."""
    return seed if rank == 0 else hash((seed, "replica", rank)) & (2**62 - 1)


class ReplicatedProgram:
    """The replicas of this process of a graph with ``replication_factor`` R: the same
    interface as :class:`~ipu_mlir.runtime.decoder.Program`, with one store set and one
    input set per replica in :meth:`run_replicas`."""

    def __init__(self, graph: ir.Operation, ranks: Sequence[int] | None = None, exchange: Exchange | None = None,
                 timeout: float = DEFAULT_TIMEOUT) -> None:
        from .decoder import Program

        total = attr(graph, "replication_factor")
        ranks = list(range(total)) if ranks is None else list(ranks)
        if not ranks or any(r < 0 or r >= total for r in ranks) or len(set(ranks)) != len(ranks):
            raise KernelError(f"replica ranks {ranks} are not distinct ranks of the graph's {total} replicas")
        self.replication_factor = total
        self.ranks = ranks
        self.communicator = Communicator(total, ranks, exchange, timeout)
        self.replicas = [Program(graph, replica_rank=rank, communicator=self.communicator) for rank in ranks]
        first = self.replicas[0]
        self.num_ipus = first.num_ipus
        self.variables = first.variables
        self.shards = first.shards  # sharded variables (replicated tensor sharding): each replica its part
        self.streams = first.streams
        self.sequential_reason = first.sequential_reason
        self.seed = 0
        self._pool: ThreadPoolExecutor | None = None

    @property
    def last_trace(self) -> list[tuple[int, int, int, int, float, float]]:
        return self.replicas[0].last_trace

    def set_exchange(self, exchange: Exchange | None, timeout: float | None = None) -> None:
        """Connect this process's replicas to the other processes' (``torch.distributed``)."""
        self.communicator.exchange = exchange
        if timeout is not None:
            self.communicator.timeout = timeout

    def set_seed(self, seed: int) -> None:
        self.seed = seed
        for replica in self.replicas:
            replica.set_seed(_replica_seed(seed, replica.replica_rank))

    @property
    def rng_state(self) -> list[int]:
        return [self.seed, self.replicas[0].rng_state[1]]

    def set_rng_state(self, state: list[int]) -> None:
        self.seed = int(state[0])
        for replica in self.replicas:
            replica.set_rng_state([_replica_seed(self.seed, replica.replica_rank), int(state[1])])

    def run_replicas(self, stores: Sequence[dict[int, DeviceStore]],
                     inputs: Sequence[dict[str, list[torch.Tensor]]]) -> list[dict[str, list[torch.Tensor]]]:
        """Run every replica once, concurrently; each replica's outputs, in replica order."""
        if len(stores) != len(self.replicas) or len(inputs) != len(self.replicas):
            raise KernelError(f"{len(self.replicas)} replicas need as many store sets and input sets, "
                              f"got {len(stores)} and {len(inputs)}")
        if self.communicator.exchange is None and len(self.ranks) != self.replication_factor:
            raise ReplicaError(
                f"this process runs replicas {self.ranks} of {self.replication_factor}: the others run in other "
                "processes, so the collectives need an exchange with them (set_exchange; poptorch connects "
                "torch.distributed when Options.Distributed has several processes)")
        if len(self.replicas) == 1:
            return [self.replicas[0].run(stores[0], inputs[0])]
        if self._pool is None:
            self._pool = ThreadPoolExecutor(len(self.replicas), thread_name_prefix="ipu-replica")

        def run_one(index: int) -> dict[str, list[torch.Tensor]]:
            try:
                with torch.no_grad():
                    return self.replicas[index].run(stores[index], inputs[index])
            except BaseException:
                self.communicator.abort()
                raise

        futures = [self._pool.submit(run_one, index) for index in range(len(self.replicas))]
        results, errors = [], []
        for future in futures:
            try:
                results.append(future.result())
            except BaseException as error:  # noqa: BLE001 - reported below, the first cause first
                errors.append(error)
        if errors:
            self.communicator.reset()
            causes = [e for e in errors if not isinstance(e, ReplicaError)] or errors
            raise causes[0]
        return results

    def close(self) -> None:
        for replica in self.replicas:
            replica.close()
        if self._pool is not None:
            self._pool.shutdown(wait=False)
            self._pool = None
