"""Sorting lowerings: ``torch.sort`` (``popops::sortKeyValue`` of the input and an iota
along the dim, which becomes the indices), ``torch.topk``
(``popops::topKWithPermutation``), the order statistics ``kthvalue`` / ``median`` /
``nanmedian`` / ``mode`` (``popops_order_statistic``) and ``searchsorted`` / ``bucketize``
(``popops_search_sorted``)."""

from __future__ import annotations

import math
from typing import Any

from torch_mlir import ir

from ipu_mlir.dialects import poplar as pd
from ipu_mlir.support.ir_build import boolean, i64, string, tensor_type
from ipu_mlir.support.registry import Registry

from ... import torch_ir
from ...lowering import (
    Lowering,
    Pattern,
    Unsupported,
    dim_arg,
    element_of,
    is_float,
    result_type,
    shape_of,
)
from ...torch_ir import is_none


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


# aten op -> (statistic of popops_order_statistic, whether its operand #1 is k)
_STATISTICS = {"torch.aten.kthvalue": ("kth_value", True), "torch.aten.median": ("median", False),
               "torch.aten.nanmedian": ("nan_median", False), "torch.aten.mode": ("mode", False)}


def lower_order_statistic(lw: Lowering, op: ir.Operation) -> list[Any]:
    """``kthvalue(self, k, dim=-1, keepdim=False)``, ``median.dim`` / ``nanmedian.dim`` /
    ``mode(self, dim, keepdim)`` (values and indices), and ``median(self)`` /
    ``nanmedian(self)`` (the value over every element: the flattened input's statistic)."""
    name = torch_ir.aten_name(op)
    statistic, takes_k = _STATISTICS[".".join(name.split(".")[:3])]
    x = lw.v(op.operands[0])
    shape = shape_of(x)
    if len(op.operands) == 1:  # median(self) / nanmedian(self): every element, one value
        if math.prod(shape) == 0:  # eager: NaN, as the statistic of no elements
            out = result_type(op)
            if not is_float(out.element_type):
                raise Unsupported(f"{name} of an empty integer tensor (eager returns an unspecified integer "
                                  "for it; give a non-empty input)")
            return [lw.zeros_or_ones(math.nan, out.shape, out.element_type)]
        flat = lw.reshape(x, [math.prod(shape)])
        index = ir.IntegerType.get_signless(64)
        selected = lw.emit(pd.OrderStatisticOp, flat, string(statistic), i64(0), i64(0), boolean(False),
                           result_type(op), tensor_type([], index))
        return [selected.results[0]]
    k = lw.const(op.operands[1], "k") if takes_k else 0
    rest = op.operands[2:] if takes_k else op.operands[1:]
    dim = dim_arg(lw.const(rest[0], "dim"), len(shape))
    keep = bool(lw.const(rest[1], "keepdim"))
    size = shape[dim] if shape else 1
    if size == 0:
        raise Unsupported(f"{name} over dim {dim} of size 0 (eager raises for it: a line without elements has no {statistic})")
    if takes_k and not 1 <= k <= size:
        raise Unsupported(f"k = {k} is out of range for a dim of size {size} (torch.kthvalue raises for it too)")
    selected = lw.emit(pd.OrderStatisticOp, x, string(statistic), i64(dim), i64(k), boolean(keep),
                       result_type(op, 0), result_type(op, 1))
    return [selected.results[0], selected.results[1]]


def _common_element(lw: Lowering, a: ir.Value, b: ir.Value, what: str) -> ir.Type:
    """The element type torch compares ``a`` and ``b`` in: a float beats an integer, the
    wider type of one kind wins (f16 against bf16 has no such rule: refused)."""
    x, y = element_of(a), element_of(b)
    if x == y:
        return x
    if is_float(x) != is_float(y):
        return x if is_float(x) else y
    wx, wy = (t.width if isinstance(t, ir.FloatType) else ir.IntegerType(t).width for t in (x, y))
    if wx == wy:
        raise Unsupported(f"{what} of {x} and {y} elements (cast both to one dtype)")
    return x if wx > wy else y


def _search(lw: Lowering, sequence: ir.Value, x: ir.Value, sorter: ir.Value | None, right: bool,
            out: ir.RankedTensorType, what: str) -> ir.Value:
    element = _common_element(lw, sequence, x, what)
    sequence, x = lw.cast(sequence, element), lw.cast(x, element)
    seq_shape, shape = shape_of(sequence), shape_of(x)
    if not seq_shape:
        raise Unsupported(f"{what} with a 0-d sorted sequence (it must have at least one dim, as eager requires)")
    if len(seq_shape) > 1 and (len(seq_shape) != len(shape) or seq_shape[:-1] != shape[:-1]):
        raise Unsupported(f"{what} with a sorted sequence of shape {seq_shape} and input of shape {shape} "
                          "(the sequence must be 1-D or share the input's leading dims, as eager requires)")
    sorters = [lw.cast(sorter, ir.IntegerType.get_signless(64))] if sorter is not None else []
    return lw.emit(pd.SearchSortedOp, sequence, x, sorters, boolean(right), out)


def _scalar_operand(lw: Lowering, value: ir.Value, like: ir.Value) -> ir.Value:
    """A tensor operand, or a Python number as a rank-0 tensor of ``like``'s element type
    (eager wraps the Scalar overloads' number that way)."""
    if torch_ir.is_vtensor(value.type):
        return lw.v(value)
    number = lw.const(value, "the scalar input")
    element = element_of(like)
    if isinstance(number, float) and not is_float(element):
        element = ir.F32Type.get()
    return lw.zeros_or_ones(number, [], element)


def lower_searchsorted(lw: Lowering, op: ir.Operation) -> list[Any]:
    """``searchsorted.Tensor`` / ``.Scalar(sorted_sequence, self, *, out_int32, right, side, sorter)``."""
    sequence = lw.v(op.operands[0])
    x = _scalar_operand(lw, op.operands[1], sequence)
    right = bool(lw.const(op.operands[3], "right"))
    side = None if is_none(op.operands[4]) else lw.const(op.operands[4], "side")
    if side not in (None, "left", "right"):
        raise Unsupported(f"searchsorted with side '{side}' (expected 'left' or 'right')")
    if side == "left" and right:
        raise Unsupported("searchsorted with side='left' and right=True (eager refuses the contradiction too)")
    sorter = None if is_none(op.operands[5]) else lw.v(op.operands[5])
    return [_search(lw, sequence, x, sorter, right or side == "right", result_type(op), "searchsorted")]


def lower_bucketize(lw: Lowering, op: ir.Operation) -> list[Any]:
    """``bucketize.Tensor`` / ``.Scalar(self, boundaries, *, out_int32, right)``: the search of
    the input in the 1-D boundaries (``right`` as searchsorted's)."""
    boundaries = lw.v(op.operands[1])
    if len(shape_of(boundaries)) != 1:
        raise Unsupported(f"bucketize with boundaries of shape {shape_of(boundaries)} (they must be 1-D, as eager requires)")
    x = _scalar_operand(lw, op.operands[0], boundaries)
    right = bool(lw.const(op.operands[3], "right"))
    return [_search(lw, boundaries, x, None, right, result_type(op), "bucketize")]


def populate(patterns: Registry[Pattern]) -> None:
    """Register the lowerings of this family: sort (plain and stable), top-k, the order
    statistics and searchsorted / bucketize."""
    patterns.register("torch.aten.sort", "torch.aten.sort.stable")(lower_sort)
    patterns.register("torch.aten.topk")(lower_topk)
    patterns.register("torch.aten.kthvalue", "torch.aten.median", "torch.aten.median.dim", "torch.aten.nanmedian",
                      "torch.aten.nanmedian.dim", "torch.aten.mode")(lower_order_statistic)
    patterns.register("torch.aten.searchsorted.Tensor", "torch.aten.searchsorted.Scalar")(lower_searchsorted)
    patterns.register("torch.aten.bucketize.Tensor", "torch.aten.bucketize.Scalar")(lower_bucketize)
