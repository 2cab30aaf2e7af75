"""Reduction kernels: ``popops_reduce`` (sum, mean, product, min, max, logical), the
arg-max / arg-min of ``popops_arg_max`` / ``popops_arg_min``, and the scans
``popops_cumulative_sum`` / ``_product`` / ``_log_sum_exp`` / ``_max`` / ``_min``."""

from __future__ import annotations

import math

import torch
from torch_mlir import ir

from .base import KERNELS, Kernel, KernelError, attr, cast_to, result_dtype, tensor_type


@KERNELS.register("poplar.popops_reduce")
def _reduce(op: ir.Operation) -> Kernel:
    kind, dims, keep, scale = attr(op, "op"), attr(op, "dims"), attr(op, "keep_dims"), attr(op, "scale")
    shape, _ = tensor_type(op.operands[0])
    dtype = result_dtype(op)
    if not dims:
        if scale == 1.0:  # a new buffer, as every kernel but the views returns (elementwise._map)
            return lambda x: x.to(dtype, copy=True)
        return lambda x: (x * scale).to(dtype)
    count = math.prod(shape[d] for d in dims)
    if kind == "add":
        if scale != 1.0 and abs(scale * count - 1.0) < 1e-12:
            return lambda x: torch.mean(x, dim=dims, keepdim=keep)
        if scale == 1.0:
            return lambda x: torch.sum(x, dim=dims, keepdim=keep, dtype=dtype)
        return lambda x: torch.sum(x, dim=dims, keepdim=keep, dtype=dtype) * scale
    if kind == "square_add":
        return lambda x: torch.sum(x * x, dim=dims, keepdim=keep) * scale
    if kind in ("max", "min"):
        fn = torch.amax if kind == "max" else torch.amin
        return lambda x: fn(x, dim=dims, keepdim=keep)
    if kind in ("mul", "logical_and", "logical_or"):
        reducer = {"mul": torch.prod, "logical_and": torch.all, "logical_or": torch.any}[kind]
        ordered = sorted(dims, reverse=True)

        def reduce_each(x: torch.Tensor) -> torch.Tensor:
            for d in ordered:
                x = reducer(x, dim=d, keepdim=keep)
            return x

        return cast_to(reduce_each, dtype)
    raise KernelError(f"reduce op '{kind}' has no kernel")


@KERNELS.register("poplar.popops_arg_max", "poplar.popops_arg_min")
def _arg(op: ir.Operation) -> Kernel:
    reduce = torch.argmax if op.name.endswith("max") else torch.argmin
    if tensor_type(op.operands[0])[1] == torch.bool:  # torch's arg-max takes no bool; True > False as uint8 too

        def fn(x: torch.Tensor, **kwargs: object) -> torch.Tensor:
            return reduce(x.to(torch.uint8), **kwargs)
    else:
        fn = reduce
    dim, keep, dtype = attr(op, "dim"), attr(op, "keep_dims"), result_dtype(op)
    if not tensor_type(op.operands[0])[0]:  # a 0-d operand has no dim to reduce
        return cast_to(fn, dtype)
    return cast_to(lambda x: fn(x, dim=dim, keepdim=keep), dtype)


@KERNELS.register("poplar.popops_cumulative_sum", "poplar.popops_cumulative_product")
def _scan(op: ir.Operation) -> Kernel:
    fn = torch.cumsum if op.name.endswith("sum") else torch.cumprod
    dim, dtype = attr(op, "dim"), result_dtype(op)
    return lambda x: fn(x, dim, dtype=dtype)


@KERNELS.register("poplar.popops_cumulative_log_sum_exp")
def _log_sum_exp_scan(op: ir.Operation) -> Kernel:
    dim = attr(op, "dim")
    return lambda x: torch.logcumsumexp(x, dim)


@KERNELS.register("poplar.popops_cumulative_max", "poplar.popops_cumulative_min")
def _extremum_scan(op: ir.Operation) -> Kernel:
    fn = torch.cummax if op.name.endswith("max") else torch.cummin
    dim, index_dtype = attr(op, "dim"), tensor_type(op.results[1])[1]

    def scan(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        values, indices = fn(x, dim)
        return values, indices.to(index_dtype)

    return scan
