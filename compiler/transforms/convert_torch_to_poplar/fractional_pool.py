"""Fractional max pooling (``F.fractional_max_pool2d`` / ``3d``: ``fractional_max_pool2d``,
``fractional_max_pool3d``) and their gradients.

Each plane (n, c) pools over windows whose starts come from its own random sample ``u``
per spatial dim (the op's ``random_samples`` operand, drawn by the caller):
``start[i] = int((i + u) * alpha) - int(u * alpha)`` with ``alpha = (in - k) / (out - 1)``,
the last window ending at the input's end, as ATen's ``generate_intervals`` computes them
(``popops::map`` in the samples' element type). The window elements are a data-dependent
gather over the flattened plane (``popops::gather``); the output is their maximum and the
index its flat position in the plane (``popops::argMax``: the first maximum). The gradient
scatter-adds the output gradient at those indices (``popops::scatter``).
"""

from __future__ import annotations

import itertools
import math
from typing import Any

import numpy as np
from torch_mlir import ir

from ipu_mlir.dialects import poplar as pd
from ipu_mlir.support.ir_build import boolean, i64, i64_array, string, tensor_type
from ipu_mlir.support.registry import Registry

from ... import torch_ir
from ...lowering import Lowering, Pattern, Unsupported, element_of, literal, result_type, shape_of, spatial_list


def _planes(x: ir.Value, spatial: int, what: str) -> tuple[list[int], bool]:
    """([N, C, *spatial] shape, unbatched) of a pooled tensor (an unbatched one is one plane batch)."""
    shape = shape_of(x)
    if len(shape) == spatial + 1:
        return [1, *shape], True
    if len(shape) != spatial + 2:
        raise Unsupported(f"{what} of a rank-{len(shape)} input (it takes [N, C, *{spatial} spatial dims] or [C, *spatial])")
    return shape, False


def _window_indices(lw: Lowering, samples: ir.Value, planes: list[int], kernel: list[int], out: list[int]) -> ir.Value:
    """The flat in-plane position of every window element, [N, C, prod(out) * prod(kernel)] i64."""
    n, c, sizes = planes[0], planes[1], planes[2:]
    spatial = len(sizes)
    element, index = element_of(samples), ir.IntegerType.get_signless(64)
    starts = []
    for axis in range(spatial):
        size, k, count = sizes[axis], kernel[axis], out[axis]
        # A plane's samples: [W, H] in 2-d, [T, H, W] in 3-d (ATen's order)
        sample_slot = spatial - 1 - axis if spatial == 2 else axis
        u = lw.emit(pd.SliceOp, samples, i64_array([0, 0, sample_slot]), i64_array([n, c, sample_slot + 1]), i64_array([1, 1, 1]),
                    tensor_type([n, c, 1], element))
        iota_type = tensor_type([1, 1, count], element)
        iota = lw.emit(pd.ConstantOp, ir.DenseElementsAttr.get([ir.FloatAttr.get(element, float(i)) for i in range(count)], type=iota_type),
                       i64(0), iota_type)
        last = float(size - k)
        if count > 1:
            # (scalar_t)(in - k) / (scalar_t)(out - 1), in the samples' precision
            alpha = (size - k) / (count - 1) if isinstance(element, ir.F64Type) else float(np.float32(size - k) / np.float32(count - 1))
            a = literal(alpha)
            expr = f"select(eq(_1, {literal(float(count - 1))}), {literal(last)}, sub(trunc(mul(add(_1, _2), {a})), trunc(mul(_2, {a}))))"
            start = lw.map(expr, [iota, u], tensor_type([n, c, count], element))
        else:
            start = lw.zeros_or_ones(last, [n, c, count], element)
        shape = [n, c] + [count if a == axis else 1 for a in range(spatial)] + [1]
        starts.append(lw.reshape(lw.cast(start, index), shape))
    flat = starts[0]
    for axis in range(1, spatial):
        partial = [n, c] + [out[a] if a <= axis else 1 for a in range(spatial)] + [1]
        flat = lw.map(f"add(mul(_1, {sizes[axis]}), _2)", [flat, starts[axis]], tensor_type(partial, index))
    window = math.prod(kernel)
    offsets = []
    for position in itertools.product(*(range(k) for k in kernel)):
        offsets.append(sum(p * math.prod(sizes[a + 1:]) for a, p in enumerate(position)))
    offset_type = tensor_type([1, 1] + [1] * spatial + [window], index)
    offset = lw.emit(pd.ConstantOp, ir.DenseElementsAttr.get([ir.IntegerAttr.get(index, o) for o in offsets], type=offset_type),
                     i64(0), offset_type)
    every = lw.map("add(_1, _2)", [flat, offset], tensor_type([n, c, *out, window], index))
    return lw.reshape(every, [n, c, math.prod(out) * window])


def _spatial(op: ir.Operation) -> int:
    return 3 if "fractional_max_pool3d" in torch_ir.aten_name(op) else 2


def _arguments(lw: Lowering, op: ir.Operation, x_shape: list[int], first: int, spatial: int) -> tuple[list[int], list[int]]:
    kernel = spatial_list(lw.const(op.operands[first], "kernel_size"), spatial)
    out = spatial_list(lw.const(op.operands[first + 1], "output_size"), spatial)
    for k, o, size in zip(kernel, out, x_shape[2:], strict=True):
        if k < 1 or o < 1 or o + k - 1 > size:
            raise Unsupported(f"fractional max pooling of {size} elements to {o} outputs with a window of {k} "
                              "(output_size + kernel_size - 1 must not exceed the input size)")
    return kernel, out


def lower_fractional_max_pool(lw: Lowering, op: ir.Operation) -> list[Any]:
    """``fractional_max_poolNd(input, kernel_size, output_size, random_samples)`` -> (output, indices)."""
    x, samples = lw.v(op.operands[0]), lw.v(op.operands[3])
    spatial = _spatial(op)
    planes, _ = _planes(x, spatial, "fractional max pooling")
    kernel, out = _arguments(lw, op, planes, 1, spatial)
    n, c = planes[:2]
    flat = lw.reshape(x, [n, c, math.prod(planes[2:])])
    samples = lw.cast(samples, element_of(x))
    positions = _window_indices(lw, samples, planes, kernel, out)
    points, window = math.prod(out), math.prod(kernel)
    element, index = element_of(x), ir.IntegerType.get_signless(64)
    gathered = lw.emit(pd.GatherOp, flat, positions, i64(2), tensor_type([n, c, points * window], element))
    windows = lw.reshape(gathered, [n, c, points, window])
    values = lw.reduce(windows, "max", [3], False, 1.0, tensor_type([n, c, points], element))
    best = lw.emit(pd.ArgMaxOp, windows, i64(3), boolean(True), tensor_type([n, c, points, 1], index))
    chosen = lw.emit(pd.GatherOp, lw.reshape(positions, [n, c, points, window]), best, i64(3), tensor_type([n, c, points, 1], index))
    return [lw.reshape(values, list(result_type(op, 0).shape)),
            lw.cast(lw.reshape(chosen, list(result_type(op, 1).shape)), result_type(op, 1).element_type)]


def lower_fractional_max_pool_backward(lw: Lowering, op: ir.Operation) -> list[Any]:
    """``fractional_max_poolNd_backward(grad_output, input, kernel_size, output_size, indices)``:
    the output gradient summed at each output's index."""
    grad, x, indices = lw.v(op.operands[0]), lw.v(op.operands[1]), lw.v(op.operands[4])
    spatial = _spatial(op)
    planes, _ = _planes(x, spatial, "fractional max pooling gradient")
    n, c = planes[:2]
    size = math.prod(planes[2:])
    out_points = math.prod(shape_of(grad)) // (n * c)
    index = ir.IntegerType.get_signless(64)
    flat_indices = lw.cast(lw.reshape(indices, [n, c, out_points]), index)
    updates = lw.reshape(grad, [n, c, out_points])
    zeros = lw.zeros_or_ones(0, [n, c, size], element_of(grad))
    summed = lw.emit(pd.ScatterOp, zeros, flat_indices, updates, i64(2), string("add"), boolean(True), zeros.type)
    return [lw.reshape(summed, list(result_type(op).shape))]


def populate(patterns: Registry[Pattern]) -> None:
    """Register the lowerings of this family: fractional max pooling and its gradient."""
    patterns.register("torch.aten.fractional_max_pool2d", "torch.aten.fractional_max_pool3d")(lower_fractional_max_pool)
    patterns.register("torch.aten.fractional_max_pool2d_backward", "torch.aten.fractional_max_pool3d_backward")(
        lower_fractional_max_pool_backward)
