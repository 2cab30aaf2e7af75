"""Collective kernels (GCL) of one replica alone.

The decoder runs ``poplar.gcl_*`` through :func:`ipu_mlir.runtime.replicas.collective_step`,
which meets the other replicas in their communicator; these kernels are what a collective
computes when its group is the replica alone (a graph of one replica): a reduction of one
value, a gather of one, a broadcast from itself.
"""

from __future__ import annotations

from torch_mlir import ir

from .base import KERNELS, Kernel


@KERNELS.register("poplar.gcl_all_reduce")
def _all_reduce(op: ir.Operation) -> Kernel:  # noqa: ARG001 - the same for every reduction of one value
    return lambda x: x.clone()
