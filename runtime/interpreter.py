"""The IPU Model's public entry: decode a ``poplar.graph`` into a :class:`Program` and run
it against per-IPU :class:`DeviceStore` s. The work is in ``decoder.py`` (decoding and
running), ``pipeline_executor.py`` (pipelined stages), ``replicas.py`` (replicas and their
collectives), ``device_store.py`` (data) and ``kernels/`` (one torch kernel per op)."""

from __future__ import annotations

from collections.abc import Sequence

from torch_mlir import ir

from .decoder import Program
from .device_store import DeviceStore, HostIO, StreamInfo, VariableInfo, device_copy
from .kernels import KernelError, attr
from .replicas import Communicator, Exchange, ReplicaError, ReplicatedProgram


def load_program(graph: ir.Operation, ranks: Sequence[int] | None = None) -> Program | ReplicatedProgram:
    """The decoded ``graph``: a :class:`Program` for one replica, else a
    :class:`ReplicatedProgram` of the replicas ``ranks`` (default: all of them, one process)."""
    if attr(graph, "replication_factor") == 1 and ranks in (None, [0], (0,)):
        return Program(graph)
    return ReplicatedProgram(graph, ranks)


__all__ = ["Communicator", "DeviceStore", "Exchange", "HostIO", "KernelError", "Program", "ReplicaError",
           "ReplicatedProgram", "StreamInfo", "VariableInfo", "device_copy", "load_program"]
