"""Collective kernels (GCL) of one replica."""

from __future__ import annotations

from torch_mlir import ir

from .base import KERNELS, Kernel


@KERNELS.register("poplar.gcl_all_reduce")
def _all_reduce(op: ir.Operation) -> Kernel:
    # One replica per interpreter: the reduction over replicas is done by the replica
    # runner; within a single replica the op is the identity (add/mean/min/max of one).
    return lambda x: x
