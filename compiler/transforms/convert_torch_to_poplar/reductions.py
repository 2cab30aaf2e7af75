"""Reduction lowerings: sum, mean, prod, amax/amin, any/all, max/min (with indices)
and argmax/argmin, as ``poplar.popops_reduce`` and ``poplar.popops_arg_*``."""

from __future__ import annotations

import math
from typing import Any

from torch_mlir import ir

from ipu_mlir.dialects import poplar as pd
from ipu_mlir.support.ir_build import boolean, i64
from ipu_mlir.support.registry import Registry

from ...lowering import (
    Lowering,
    Pattern,
    Unsupported,
    base_name,
    dim_arg,
    result_type,
    shape_of,
)
from ...torch_ir import is_none


def _dims(lw: Lowering, value: ir.Value | None, rank: int) -> list[int]:
    if value is None or is_none(value):
        return list(range(rank))
    dims = lw.const(value, "reduction dims")
    dims = dims if isinstance(dims, list) else [dims]
    return sorted({dim_arg(d, rank) for d in dims}) if dims else list(range(rank))


def lower_reduction(lw: Lowering, op: ir.Operation) -> list[Any]:
    out = result_type(op)
    x = lw.v(op.operands[0])
    rank = len(shape_of(x))
    name = base_name(op.name)
    # The overload decides: sum(self, dtype) / mean(self, dtype) / prod(self, dtype) /
    # any(self) reduce everything; the .dim overloads take (self, dim, keepdim, ...).
    full = op.name in ("torch.aten.sum", "torch.aten.mean", "torch.aten.prod", "torch.aten.any", "torch.aten.all") or len(op.operands) == 1
    dims = list(range(rank)) if full else _dims(lw, op.operands[1], rank)
    keep = False if full else bool(lw.const(op.operands[2], "keepdim")) if len(op.operands) > 2 else False
    kind = {"torch.aten.sum": "add", "torch.aten.mean": "add", "torch.aten.amax": "max", "torch.aten.amin": "min",
            "torch.aten.prod": "mul", "torch.aten.any": "logical_or", "torch.aten.all": "logical_and"}[name]
    if kind in ("logical_or", "logical_and"):
        x = lw.cast(x, ir.IntegerType.get_signless(1))
    else:
        x = lw.cast(x, out.element_type)
    count = math.prod(shape_of(x)[d] for d in dims) if dims else 1
    scale = 1.0 / count if name == "torch.aten.mean" else 1.0
    return [lw.reduce(x, kind, dims, keep, scale, out)]


def lower_max_dim(lw: Lowering, op: ir.Operation) -> list[Any]:
    x = lw.v(op.operands[0])
    rank = len(shape_of(x))
    dim = dim_arg(lw.const(op.operands[1], "dim"), rank)
    keep = bool(lw.const(op.operands[2], "keepdim"))
    kind = "max" if "max" in op.name else "min"
    values = lw.reduce(x, kind, [dim], keep, 1.0, result_type(op, 0))
    cls = pd.ArgMaxOp if kind == "max" else pd.ArgMinOp
    indices = lw.emit(cls, x, i64(dim), boolean(keep), result_type(op, 1))
    return [values, indices]


def lower_max_full(lw: Lowering, op: ir.Operation) -> list[Any]:
    x = lw.v(op.operands[0])
    if len(op.operands) > 1:
        raise Unsupported(f"{op.name} with {len(op.operands)} operands")
    kind = "max" if op.name.endswith("max") else "min"
    return [lw.reduce(x, kind, list(range(len(shape_of(x)))), False, 1.0, result_type(op))]


def lower_argmax(lw: Lowering, op: ir.Operation) -> list[Any]:
    x = lw.v(op.operands[0])
    out = result_type(op)
    keep = bool(lw.const(op.operands[2], "keepdim")) if len(op.operands) > 2 else False
    if is_none(op.operands[1]):
        x = lw.reshape(x, [math.prod(shape_of(x))])
        dim = 0
    else:
        dim = dim_arg(lw.const(op.operands[1], "dim"), len(shape_of(x)))
    cls = pd.ArgMaxOp if op.name.endswith("argmax") else pd.ArgMinOp
    return [lw.emit(cls, x, i64(dim), boolean(keep), out)]


def populate(patterns: Registry[Pattern]) -> None:
    """Register the lowerings of this family: reductions over dims and arg-max / arg-min."""
    patterns.register("torch.aten.sum", "torch.aten.sum.dim_IntList", "torch.aten.mean", "torch.aten.mean.dim", "torch.aten.amax",
        "torch.aten.amin", "torch.aten.prod", "torch.aten.prod.dim_int", "torch.aten.any", "torch.aten.all",
        "torch.aten.any.dim", "torch.aten.all.dim")(lower_reduction)
    patterns.register("torch.aten.max.dim", "torch.aten.min.dim")(lower_max_dim)
    patterns.register("torch.aten.max", "torch.aten.min")(lower_max_full)
    patterns.register("torch.aten.argmax", "torch.aten.argmin")(lower_argmax)
