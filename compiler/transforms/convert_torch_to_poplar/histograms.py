"""Histogram and segment lowerings: ``torch.histc``, ``torch.histogram`` and
``torch.histogramdd`` with bin counts (the latter's ``_histogramdd_bin_edges`` and
``_histogramdd_from_bin_cts``: one ``popops_histogram`` each, which CSE merges) or with
bin edges (``histogram.bins_tensor``, ``_histogramdd_from_bin_tensors``) as
``poplar.popops_histogram``; ``torch.segment_reduce`` and its gradient as
``poplar.popops_segment_reduce`` / ``popops_segment_reduce_grad``."""

from __future__ import annotations

from typing import Any

from torch_mlir import ir

from ipu_mlir.dialects import poplar as pd
from ipu_mlir.support.ir_build import boolean, f64, i64, i64_array, string, tensor_type
from ipu_mlir.support.registry import Registry

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


def _floats(values: list[float]) -> ir.ArrayAttr:
    return ir.ArrayAttr.get([f64(float(v)) for v in values])


def _float_input(lw: Lowering, value: ir.Value, what: str) -> ir.Value:
    x = lw.v(value)
    if not is_float(element_of(x)):
        raise Unsupported(f"{what} of {element_of(x)} elements (eager takes floating-point tensors only)")
    return x


def _range(lw: Lowering, value: ir.Value, dims: int, what: str) -> list[float]:
    bounds = [] if is_none(value) else lw.const(value, "range")
    if len(bounds) not in (0, 2 * dims):
        raise Unsupported(f"{what} with range {bounds} (expected {2 * dims} numbers, a min and a max per dim)")
    for low, high in zip(bounds[::2], bounds[1::2], strict=True):
        if not low <= high:
            raise Unsupported(f"{what} with range [{low}, {high}] (the min must not exceed the max, as eager requires)")
    return [float(b) for b in bounds]


def _histogram(lw: Lowering, x: ir.Value, weight: ir.Value | None, convention: str, bins: list[int], bounds: list[float],
               density: bool, what: str, given_edges: list[ir.Value] | None = None) -> list[ir.Value]:
    """The results of one ``popops_histogram``: the histogram, then the edges of each dim
    (sliced from the op's one edges tensor; ``given_edges``, cast to the input's element
    type and concatenated, when the user gave them)."""
    element = element_of(x)
    if any(b < 1 for b in bins):
        raise Unsupported(f"{what} with bins {bins} (every bin count must be >= 1, as eager requires)")
    weights = [] if weight is None or is_none(weight) else [lw.cast(lw.v(weight), element)]
    edges = [tensor_type([sum(b + 1 for b in bins)], element)] if convention != "histc" else []
    given = [lw.concat([lw.cast(e, element) for e in given_edges], 0)] if given_edges else []
    result = lw.emit(pd.HistogramOp, x, weights, given, string(convention), i64_array(bins), _floats(bounds), boolean(density),
                     tensor_type(bins, element), edges)
    if isinstance(result, ir.Value):
        return [result]
    hist, all_edges = result.results
    per_dim, start = [], 0
    for b in bins:
        piece = tensor_type([b + 1], element)
        per_dim.append(lw.emit(pd.SliceOp, all_edges, i64_array([start]), i64_array([start + b + 1]), i64_array([1]), piece)
                       if len(bins) > 1 else all_edges)
        start += b + 1
    return [hist, *per_dim]


def _edge_tensors(lw: Lowering, values: list[ir.Value], what: str) -> tuple[list[ir.Value], list[int]]:
    """Bin edges the user gave (1-D, at least two each) and the bin counts they make."""
    shapes = [shape_of(v) for v in values]
    if any(len(s) != 1 or s[0] < 2 for s in shapes):
        raise Unsupported(f"{what} with bin edges of shapes {shapes} (each must be 1-D with at least 2 edges, as eager requires)")
    return values, [s[0] - 1 for s in shapes]


def lower_histc(lw: Lowering, op: ir.Operation) -> list[Any]:
    """``histc(self, bins=100, min=0, max=0)``."""
    x = _float_input(lw, op.operands[0], "histc")
    bins = lw.const(op.operands[1], "bins")
    low, high = float(lw.const(op.operands[2], "min")), float(lw.const(op.operands[3], "max"))
    if low > high:
        raise Unsupported(f"histc with min {low} > max {high} (eager refuses it too)")
    return [_histogram(lw, x, None, "histc", [bins], [low, high], False, "histc")[0]]


def lower_histogram(lw: Lowering, op: ir.Operation) -> list[Any]:
    """``histogram.bin_ct(self, bins=100, *, range=None, weight=None, density=False)``."""
    x = _float_input(lw, op.operands[0], "histogram")
    bins = lw.const(op.operands[1], "bins")
    bounds = _range(lw, op.operands[2], 1, "histogram")
    return _histogram(lw, x, op.operands[3], "histogram", [bins], bounds, bool(lw.const(op.operands[4], "density")), "histogram")


def lower_histogram_bins_tensor(lw: Lowering, op: ir.Operation) -> list[Any]:
    """``histogram.bins_tensor(self, bins, *, weight=None, density=False)``: ``bins`` are the edges."""
    x = _float_input(lw, op.operands[0], "histogram")
    edges, bins = _edge_tensors(lw, [lw.v(op.operands[1])], "histogram")
    return _histogram(lw, x, op.operands[2], "histogram", bins, [], bool(lw.const(op.operands[3], "density")), "histogram", edges)


def _histogramdd(lw: Lowering, op: ir.Operation) -> list[ir.Value]:
    """``_histogramdd_bin_edges`` / ``_histogramdd_from_bin_cts(self, bins, *, range, weight, density)``."""
    x = _float_input(lw, op.operands[0], "histogramdd")
    shape = shape_of(x)
    bins = lw.const(op.operands[1], "bins")
    bins = bins if isinstance(bins, list) else [bins]
    if not shape or len(bins) != shape[-1]:
        raise Unsupported(f"histogramdd of a {shape} input with bins {bins} (one bin count per sample dim, the last)")
    bounds = _range(lw, op.operands[2], len(bins), "histogramdd")
    return _histogram(lw, x, op.operands[3], "histogramdd", bins, bounds, bool(lw.const(op.operands[4], "density")), "histogramdd")


def lower_histogramdd_bin_edges(lw: Lowering, op: ir.Operation) -> list[Any]:
    return [_histogramdd(lw, op)[1:]]


def lower_histogramdd_from_bin_cts(lw: Lowering, op: ir.Operation) -> list[Any]:
    return [_histogramdd(lw, op)[0]]


def lower_histogramdd_from_bin_tensors(lw: Lowering, op: ir.Operation) -> list[Any]:
    """``_histogramdd_from_bin_tensors(self, bins: Tensor[], *, weight=None, density=False)``."""
    x = _float_input(lw, op.operands[0], "histogramdd")
    edges, bins = _edge_tensors(lw, lw.list_operand(op.operands[1]), "histogramdd")
    shape = shape_of(x)
    if not shape or len(bins) != shape[-1]:
        raise Unsupported(f"histogramdd of a {shape} input with {len(bins)} edge tensors (one per sample dim, the last)")
    return [_histogram(lw, x, op.operands[2], "histogramdd", bins, [], bool(lw.const(op.operands[3], "density")), "histogramdd",
                       edges)[0]]


def _segments(lw: Lowering, lengths: ir.Value, offsets: ir.Value, data: ir.Value, axis: int) -> tuple[ir.Value, str]:
    given = [(v, kind) for v, kind in ((lengths, "lengths"), (offsets, "offsets")) if not is_none(v)]
    if len(given) != 1:
        raise Unsupported("segment_reduce needs exactly one of lengths and offsets (indices are not supported by eager either)")
    segments, kind = lw.v(given[0][0]), given[0][1]
    shape, data_shape = shape_of(segments), shape_of(data)
    if len(shape) != axis + 1 or shape[:-1] != data_shape[:axis]:
        raise Unsupported(f"segment_reduce with {kind} of shape {shape} for data of shape {data_shape} and axis {axis} "
                          f"({kind} must have the data's dims before axis and one more, as eager requires)")
    element = element_of(segments)
    if not (isinstance(element, ir.IntegerType) and ir.IntegerType(element).width in (32, 64)):
        raise Unsupported(f"segment_reduce with {kind} of {element} elements (int32 or int64)")
    return segments, kind


def _segment_attributes(lw: Lowering, reduce_value: ir.Value, axis_value: ir.Value, initial_value: ir.Value,
                        data: ir.Value) -> tuple[str, int, list[float]]:
    reduce = lw.const(reduce_value, "reduce")
    if reduce not in pd.SEGMENT_REDUCTIONS:
        raise Unsupported(f"segment_reduce with reduce '{reduce}' (expected one of {', '.join(pd.SEGMENT_REDUCTIONS)})")
    axis = dim_arg(lw.const(axis_value, "axis"), len(shape_of(data)))
    initial = [] if is_none(initial_value) else [float(lw.const(initial_value, "initial"))]
    return reduce, axis, initial


def lower_segment_reduce(lw: Lowering, op: ir.Operation) -> list[Any]:
    """``segment_reduce(data, reduce, *, lengths, indices, offsets, axis, unsafe, initial)``."""
    data = _float_input(lw, op.operands[0], "segment_reduce")
    if not is_none(op.operands[3]):
        raise Unsupported("segment_reduce with indices (eager does not support them either; give lengths or offsets)")
    reduce, axis, initial = _segment_attributes(lw, op.operands[1], op.operands[5], op.operands[7], data)
    segments, kind = _segments(lw, op.operands[2], op.operands[4], data, axis)
    return [lw.emit(pd.SegmentReduceOp, data, segments, string(reduce), string(kind), i64(axis), _floats(initial), result_type(op))]


def lower_segment_reduce_backward(lw: Lowering, op: ir.Operation) -> list[Any]:
    """``_segment_reduce_backward(grad, output, data, reduce, *, lengths, offsets, axis, initial)``."""
    grad, output = lw.v(op.operands[0]), lw.v(op.operands[1])
    data = _float_input(lw, op.operands[2], "segment_reduce")
    reduce, axis, initial = _segment_attributes(lw, op.operands[3], op.operands[6], op.operands[7], data)
    segments, kind = _segments(lw, op.operands[4], op.operands[5], data, axis)
    element = element_of(data)
    return [lw.emit(pd.SegmentReduceGradOp, lw.cast(grad, element), lw.cast(output, element), data, segments, string(reduce),
                    string(kind), i64(axis), _floats(initial), result_type(op))]


def populate(patterns: Registry[Pattern]) -> None:
    """Register the lowerings of this family: histc, histogram, histogramdd and segment_reduce (with its gradient)."""
    patterns.register("torch.aten.histc")(lower_histc)
    patterns.register("torch.aten.histogram.bin_ct")(lower_histogram)
    patterns.register("torch.aten.histogram.bins_tensor")(lower_histogram_bins_tensor)
    patterns.register("torch.aten._histogramdd_from_bin_tensors")(lower_histogramdd_from_bin_tensors)
    patterns.register("torch.aten._histogramdd_bin_edges")(lower_histogramdd_bin_edges)
    patterns.register("torch.aten._histogramdd_from_bin_cts")(lower_histogramdd_from_bin_cts)
    patterns.register("torch.aten.segment_reduce")(lower_segment_reduce)
    patterns.register("torch.aten._segment_reduce_backward")(lower_segment_reduce_backward)
