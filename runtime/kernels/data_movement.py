"""Data movement kernels: the views of ``poplar::Tensor`` (reshape, dim_shuffle, slice, reverse,
concat, broadcast), padding, and the index-driven ``multi_slice`` and ``gather``."""

from __future__ import annotations

from collections.abc import Callable

import torch
import torch.nn.functional as F
from torch_mlir import ir

from .base import KERNELS, Kernel, attr, tensor_type


# The views to the shape of the op's result.
_RESULT_SHAPE_VIEWS: dict[str, Callable[[torch.Tensor, list[int]], torch.Tensor]] = {
    "poplar.reshape": torch.Tensor.reshape, "poplar.broadcast": torch.Tensor.expand,
}


@KERNELS.register(*_RESULT_SHAPE_VIEWS)
def _result_shape_view(op: ir.Operation) -> Kernel:
    view, shape = _RESULT_SHAPE_VIEWS[op.operation.name], tensor_type(op.results[0])[0]
    return lambda x: view(x, shape)


@KERNELS.register("poplar.dim_shuffle")
def _dim_shuffle(op: ir.Operation) -> Kernel:
    perm = attr(op, "permutation")
    return lambda x: x.permute(perm)


@KERNELS.register("poplar.slice")
def _slice(op: ir.Operation) -> Kernel:
    index = tuple(slice(b, e, s) for b, e, s in zip(attr(op, "begin"), attr(op, "end"), attr(op, "stride"), strict=True))
    return lambda x: x[index]


@KERNELS.register("poplar.concat")
def _concat(op: ir.Operation) -> Kernel:
    dim = attr(op, "dim")
    return lambda a, b: torch.cat((a, b), dim)


@KERNELS.register("poplar.popops_pad")
def _pad(op: ir.Operation) -> Kernel:
    low, high, value = attr(op, "low"), attr(op, "high"), attr(op, "value")
    pads: list[int] = []
    for lo, hi in reversed(list(zip(low, high, strict=True))):
        pads += [lo, hi]
    return lambda x: F.pad(x, pads, value=value)


@KERNELS.register("poplar.popops_multi_slice")
def _multi_slice(op: ir.Operation) -> Kernel:
    dim = attr(op, "dim")
    out_shape, _ = tensor_type(op.results[0])
    if dim == 0 and len(tensor_type(op.operands[0])[0]) == 2:
        return lambda table, idx: F.embedding(idx, table)
    return lambda table, idx: table.index_select(dim, idx.reshape(-1)).reshape(out_shape)


@KERNELS.register("poplar.popops_gather")
def _gather(op: ir.Operation) -> Kernel:
    dim = attr(op, "dim")
    return lambda x, idx: torch.gather(x, dim, idx)


@KERNELS.register("poplar.reverse")
def _reverse(op: ir.Operation) -> Kernel:
    dims = attr(op, "dims")
    if not dims:
        return lambda x: x
    return lambda x: torch.flip(x, dims)
