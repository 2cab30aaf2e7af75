"""Indexed-update kernels: ``popops_multi_update`` (``x[idx] = v``, ``index_put``,
``index_add``: slices written at run-time indices) and ``popops_scatter`` (``torch.scatter``,
``scatter_add``, ``scatter_reduce``: elements written along one dim). Both return a new
tensor and leave their operands unchanged, as the ops' value semantics say."""

from __future__ import annotations

import math

import torch
from torch_mlir import ir

from .base import KERNELS, Kernel, KernelError, attr, tensor_type

# popops_scatter's combining ops -> scatter_reduce's ``reduce`` names.
_SCATTER_REDUCE = {"add": "sum", "mul": "prod", "max": "amax", "min": "amin"}


@KERNELS.register("poplar.popops_multi_update")
def _multi_update(op: ir.Operation) -> Kernel:
    dim, kind = attr(op, "dim"), attr(op, "op")
    table_shape, _ = tensor_type(op.operands[0])
    index_shape, index_dtype = tensor_type(op.operands[2])
    # The updates with the indices' dims folded into one, as index_copy / index_add take them
    # (the static index count, not -1, which an empty table cannot resolve).
    flat_shape = table_shape[:dim] + [math.prod(index_shape)] + table_shape[dim + 1:]
    if kind not in ("copy", "add"):
        raise KernelError(f"popops_multi_update op '{kind}' has no kernel")
    update = torch.Tensor.index_copy if kind == "copy" else torch.Tensor.index_add
    as_long = index_dtype != torch.int64  # index_copy takes int64 indices only

    def run(table: torch.Tensor, updates: torch.Tensor, indices: torch.Tensor) -> torch.Tensor:
        flat = indices.reshape(-1)
        return update(table, dim, flat.long() if as_long else flat, updates.reshape(flat_shape))

    return run


@KERNELS.register("poplar.popops_scatter")
def _scatter(op: ir.Operation) -> Kernel:
    dim, kind, include_self = attr(op, "dim"), attr(op, "op"), attr(op, "include_self")
    if kind == "copy":
        scatter = lambda x, indices, updates: torch.scatter(x, dim, indices, updates)  # noqa: E731
    elif kind == "add" and include_self:
        scatter = lambda x, indices, updates: torch.scatter_add(x, dim, indices, updates)  # noqa: E731
    elif kind in _SCATTER_REDUCE:
        reduce = _SCATTER_REDUCE[kind]
        scatter = lambda x, indices, updates: torch.scatter_reduce(x, dim, indices, updates, reduce, include_self=include_self)  # noqa: E731
    else:
        raise KernelError(f"popops_scatter op '{kind}' has no kernel")
    if tensor_type(op.operands[1])[1] == torch.int64:
        return scatter
    return lambda x, indices, updates: scatter(x, indices.long(), updates)  # torch scatters take int64 indices
