"""Sorting lowerings: ``torch.sort`` (``popops::sortKeyValue`` of the input and an iota
along the dim, which becomes the indices) and ``torch.topk``
(``popops::topKWithPermutation``)."""

from __future__ import annotations

from typing import Any

from torch_mlir import ir

from ipu_mlir.dialects import poplar as pd
from ipu_mlir.support.ir_build import boolean, i64, tensor_type
from ipu_mlir.support.registry import Registry

from ... import torch_ir
from ...lowering import Lowering, Pattern, Unsupported, dim_arg, result_type, shape_of


def _iota(lw: Lowering, shape: list[int], dim: int, element: ir.Type) -> ir.Value:
    """``0, 1, ..., shape[dim] - 1`` along ``dim``, broadcast to ``shape``."""
    size = shape[dim] if shape else 1
    line = tensor_type([size], element)
    attr = ir.DenseElementsAttr.get([ir.IntegerAttr.get(element, i) for i in range(size)], type=line) if size else \
        ir.DenseElementsAttr.get_splat(line, ir.IntegerAttr.get(element, 0))
    iota = lw.emit(pd.ConstantOp, attr, i64(0), line)
    if not shape:
        return lw.reshape(iota, [])
    return lw.broadcast(lw.reshape(iota, [size if d == dim else 1 for d in range(len(shape))]), shape)


def lower_sort(lw: Lowering, op: ir.Operation) -> list[Any]:
    """``sort(self, dim, descending)`` and ``sort.stable(self, *, stable, dim, descending)``."""
    x = lw.v(op.operands[0])
    shape = shape_of(x)
    if torch_ir.aten_name(op) == "torch.aten.sort.stable":
        stable = bool(lw.const(op.operands[1], "stable"))  # None means False, as in eager
        dim_value, descending_value = op.operands[2], op.operands[3]
    else:
        stable, dim_value, descending_value = False, op.operands[1], op.operands[2]
    dim = dim_arg(lw.const(dim_value, "dim"), len(shape))
    descending = bool(lw.const(descending_value, "descending"))
    values_type, indices_type = result_type(op, 0), result_type(op, 1)
    iota = _iota(lw, shape, dim, indices_type.element_type)
    sorted_op = lw.emit(pd.SortKeyValueOp, x, iota, i64(dim), boolean(descending), boolean(stable), values_type, indices_type)
    return [sorted_op.results[0], sorted_op.results[1]]


def lower_topk(lw: Lowering, op: ir.Operation) -> list[Any]:
    """``topk(self, k, dim=-1, largest=True, sorted=True)``."""
    x = lw.v(op.operands[0])
    shape = shape_of(x)
    k = lw.const(op.operands[1], "k")
    dim = dim_arg(lw.const(op.operands[2], "dim"), len(shape))
    size = shape[dim] if shape else 1
    if not 0 <= k <= size:
        raise Unsupported(f"k = {k} is out of range for a dim of size {size} (torch.topk raises for it too)")
    largest = bool(lw.const(op.operands[3], "largest"))
    ordered = bool(lw.const(op.operands[4], "sorted"))
    top = lw.emit(pd.TopKOp, x, i64(dim), i64(k), boolean(largest), boolean(ordered), result_type(op, 0), result_type(op, 1))
    return [top.results[0], top.results[1]]


def populate(patterns: Registry[Pattern]) -> None:
    """Register the lowerings of this family: sort (plain and stable) and top-k."""
    patterns.register("torch.aten.sort", "torch.aten.sort.stable")(lower_sort)
    patterns.register("torch.aten.topk")(lower_topk)
