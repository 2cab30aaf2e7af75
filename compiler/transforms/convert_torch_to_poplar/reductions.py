"""Reduction lowerings: sum, mean, prod, amax/amin, any/all, max/min (with indices),
argmax/argmin, variance, and the scans cumsum/cumprod/logcumsumexp/cummax/cummin, as ``poplar.popops_reduce``,
``poplar.popops_arg_*`` and ``poplar.popops_cumulative_*``."""

from __future__ import annotations

import math
from typing import Any

from torch_mlir import ir

from ipu_mlir.dialects import poplar as pd
from ipu_mlir.support.ir_build import boolean, i64, tensor_type
from ipu_mlir.support.registry import Registry

from ... import torch_ir
from ...lowering import (
    Lowering,
    Pattern,
    Unsupported,
    base_name,
    dim_arg,
    is_float,
    result_type,
    shape_of,
)
from ...torch_ir import is_none


def _dims(lw: Lowering, value: ir.Value | None, rank: int) -> list[int]:
    """The dims a reduction's ``dim`` argument names, sorted: None and ``[]`` mean every dim
    (torch's rule for sum / mean / amax ...); a 0-d input has none to reduce (torch accepts
    dim 0 and -1 on it and returns the value)."""
    if value is None or is_none(value):
        return list(range(rank))
    dims = lw.const(value, "reduction dims")
    dims = dims if isinstance(dims, list) else [dims]
    if rank == 0:
        return []
    return sorted({dim_arg(d, rank) for d in dims}) if dims else list(range(rank))


def _mean(lw: Lowering, x: ir.Value, dims: list[int], keep: bool, count: int, out: ir.RankedTensorType) -> ir.Value:
    """The mean of ``count`` elements over ``dims``: their sum scaled by 1/N. A mean of no
    elements is NaN in eager (0/0): a NaN constant of the result's shape."""
    if count == 0:
        return lw.zeros_or_ones(math.nan, out.shape, out.element_type)
    return lw.reduce(x, "add", dims, keep, 1.0 / count, out)


def lower_reduction(lw: Lowering, op: ir.Operation) -> list[Any]:
    out = result_type(op)
    x = lw.v(op.operands[0])
    rank = len(shape_of(x))
    name = base_name(torch_ir.aten_name(op))
    # The overload decides: sum(self, dtype) / mean(self, dtype) / prod(self, dtype) /
    # any(self) reduce everything; the .dim overloads take (self, dim, keepdim, ...).
    full = torch_ir.aten_name(op) in ("torch.aten.sum", "torch.aten.mean", "torch.aten.prod", "torch.aten.any", "torch.aten.all") or len(op.operands) == 1
    dims = list(range(rank)) if full else _dims(lw, op.operands[1], rank)
    keep = False if full else bool(lw.const(op.operands[2], "keepdim")) if len(op.operands) > 2 else False
    kind = {"torch.aten.sum": "add", "torch.aten.mean": "add", "torch.aten.amax": "max", "torch.aten.amin": "min",
            "torch.aten.prod": "mul", "torch.aten.any": "logical_or", "torch.aten.all": "logical_and"}[name]
    if kind in ("logical_or", "logical_and"):
        x = lw.cast(x, ir.IntegerType.get_signless(1))
    else:
        x = lw.cast(x, out.element_type)
    count = math.prod(shape_of(x)[d] for d in dims) if dims else 1
    if name == "torch.aten.mean":
        return [_mean(lw, x, dims, keep, count, out)]
    return [lw.reduce(x, kind, dims, keep, 1.0, out)]


def lower_max_dim(lw: Lowering, op: ir.Operation) -> list[Any]:
    x = lw.v(op.operands[0])
    rank = len(shape_of(x))
    dim = dim_arg(lw.const(op.operands[1], "dim"), rank)
    keep = bool(lw.const(op.operands[2], "keepdim"))
    kind = "max" if "max" in torch_ir.aten_name(op) else "min"
    # A 0-d input (dim 0 or -1, as torch allows) has nothing to reduce: its value, index 0.
    values = lw.reduce(x, kind, [dim] if rank else [], keep, 1.0, result_type(op, 0))
    cls = pd.ArgMaxOp if kind == "max" else pd.ArgMinOp
    indices = lw.emit(cls, x, i64(dim), boolean(keep), result_type(op, 1))
    return [values, indices]


def lower_max_full(lw: Lowering, op: ir.Operation) -> list[Any]:
    x = lw.v(op.operands[0])
    if len(op.operands) > 1:
        raise Unsupported(f"{torch_ir.aten_name(op)} with {len(op.operands)} operands")
    kind = "max" if torch_ir.aten_name(op).endswith("max") else "min"
    return [lw.reduce(x, kind, list(range(len(shape_of(x)))), False, 1.0, result_type(op))]


def lower_argmax(lw: Lowering, op: ir.Operation) -> list[Any]:
    x = lw.v(op.operands[0])
    out = result_type(op)
    keep = bool(lw.const(op.operands[2], "keepdim")) if len(op.operands) > 2 else False
    cls = pd.ArgMaxOp if torch_ir.aten_name(op).endswith("argmax") else pd.ArgMinOp
    if is_none(op.operands[1]):  # the index into the flattened tensor; keepdim keeps every dim as 1
        flat = lw.reshape(x, [math.prod(shape_of(x))])
        index = lw.emit(cls, flat, i64(0), boolean(False), tensor_type([], out.element_type))
        return [lw.reshape(index, list(out.shape))]
    dim = dim_arg(lw.const(op.operands[1], "dim"), len(shape_of(x)))
    return [lw.emit(cls, x, i64(dim), boolean(keep), out)]


def _variance(lw: Lowering, op: ir.Operation) -> tuple[ir.Value, ir.Value]:
    """(variance, mean) of ``var`` / ``var_mean`` in their overloads: ``(self, unbiased)``,
    ``.dim (self, dim, unbiased, keepdim)`` and ``.correction (self, dim, *, correction,
    keepdim)``. Two passes, as PopLibs computes batch statistics: the mean (``add`` with
    scale 1/N, dims kept), then ``square_add`` of the deviations scaled by 1/(N - correction)."""
    out = result_type(op)
    if not is_float(out.element_type):
        raise Unsupported(f"a variance with {out.element_type} elements (eager computes it in floating point only)")
    x = lw.cast(lw.v(op.operands[0]), out.element_type)
    shape = shape_of(x)
    name = torch_ir.aten_name(op)
    overload = name.removeprefix(base_name(name)).lstrip(".")
    if overload == "":  # var(self, unbiased=True): every dim, no keepdim
        dims, correction, keep = list(range(len(shape))), 1 if lw.const(op.operands[1], "unbiased") else 0, False
    else:
        dims = _dims(lw, op.operands[1], len(shape))
        if overload == "dim":
            correction = 1 if lw.const(op.operands[2], "unbiased") else 0
        elif overload == "correction":
            correction = 1 if is_none(op.operands[2]) else lw.const(op.operands[2], "correction")
        else:
            raise Unsupported(f"the '{overload}' overload of {base_name(name)} (expected the default, .dim or .correction)")
        keep = bool(lw.const(op.operands[3], "keepdim"))
    count = math.prod(shape[d] for d in dims)
    kept = tensor_type([1 if i in dims else s for i, s in enumerate(shape)], out.element_type)
    mean = _mean(lw, x, dims, True, count, kept)
    deviation = lw.map("sub(_1, _2)", [x, mean], x.type)
    # Eager divides by max(0, N - correction): a divisor of 0 gives inf (nan for a zero sum).
    divisor = max(0.0, count - correction)
    variance = lw.reduce(deviation, "square_add", dims, keep, 1.0 / divisor if divisor else math.inf, out)
    return variance, mean if keep else lw.reshape(mean, list(out.shape))


def lower_var(lw: Lowering, op: ir.Operation) -> list[Any]:
    return [_variance(lw, op)[0]]


def lower_var_mean(lw: Lowering, op: ir.Operation) -> list[Any]:
    return list(_variance(lw, op))


def lower_scan(lw: Lowering, op: ir.Operation) -> list[Any]:
    """cumsum / cumprod (self, dim, dtype=None): the input converted to the result's
    element type (the dtype argument, or int64 for bool and integer inputs), then scanned."""
    out = result_type(op)
    x = lw.cast(lw.v(op.operands[0]), out.element_type)
    dim = dim_arg(lw.const(op.operands[1], "dim"), len(shape_of(x)))
    cls = pd.CumulativeSumOp if base_name(torch_ir.aten_name(op)) == "torch.aten.cumsum" else pd.CumulativeProductOp
    return [lw.emit(cls, x, i64(dim), out)]


def lower_extremum_scan(lw: Lowering, op: ir.Operation) -> list[Any]:
    """cummax / cummin (self, dim): the running extremum and the position it came from."""
    x = lw.v(op.operands[0])
    dim = dim_arg(lw.const(op.operands[1], "dim"), len(shape_of(x)))
    cls = pd.CumulativeMaxOp if base_name(torch_ir.aten_name(op)) == "torch.aten.cummax" else pd.CumulativeMinOp
    scan = lw.emit(cls, x, i64(dim), result_type(op, 0), result_type(op, 1))
    return [scan.results[0], scan.results[1]]


def lower_logcumsumexp(lw: Lowering, op: ir.Operation) -> list[Any]:
    """logcumsumexp(self, dim): floating-point inputs only, as in eager."""
    out = result_type(op)
    if not is_float(out.element_type):
        raise Unsupported(f"logcumsumexp of {out.element_type} elements (eager computes it in floating point only)")
    x = lw.cast(lw.v(op.operands[0]), out.element_type)
    dim = dim_arg(lw.const(op.operands[1], "dim"), len(shape_of(x)))
    return [lw.emit(pd.CumulativeLogSumExpOp, x, i64(dim), out)]


def populate(patterns: Registry[Pattern]) -> None:
    """Register the lowerings of this family: reductions over dims, arg-max / arg-min, variance and scans."""
    patterns.register("torch.aten.sum", "torch.aten.sum.dim_IntList", "torch.aten.mean", "torch.aten.mean.dim", "torch.aten.amax",
        "torch.aten.amin", "torch.aten.prod", "torch.aten.prod.dim_int", "torch.aten.any", "torch.aten.all",
        "torch.aten.any.dim", "torch.aten.all.dim")(lower_reduction)
    patterns.register("torch.aten.max.dim", "torch.aten.min.dim")(lower_max_dim)
    patterns.register("torch.aten.max", "torch.aten.min")(lower_max_full)
    patterns.register("torch.aten.argmax", "torch.aten.argmin")(lower_argmax)
    patterns.register("torch.aten.var")(lower_var)
    patterns.register("torch.aten.var_mean")(lower_var_mean)
    patterns.register("torch.aten.cumsum", "torch.aten.cumprod")(lower_scan)
    patterns.register("torch.aten.cummax", "torch.aten.cummin")(lower_extremum_scan)
    patterns.register("torch.aten.logcumsumexp")(lower_logcumsumexp)
