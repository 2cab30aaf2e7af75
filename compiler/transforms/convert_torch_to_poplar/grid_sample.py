"""``grid_sampler_2d`` / ``grid_sampler_3d`` (``F.grid_sample`` on [N, C, H, W] images and
[N, C, D, H, W] volumes) and their gradients, for (bi/tri)linear and nearest interpolation
with zeros, border and reflection padding.

Each grid point's source coordinates are element-wise expressions of the grid
(``popops::map``: unnormalise, then clip or reflect, as PyTorch's CPU kernel computes
them); the pixels at the (up to four, or eight in 3-d) neighbouring positions come from a data-dependent
gather over the flattened image (``popops::gather``), out-of-image neighbours counting as
zero. The gradient of the image scatter-adds the weighted output gradient back to those
positions (``popops::multiUpdateAdd``); the gradient of the grid is element-wise
expressions of the neighbours, summed over the channels.
"""

from __future__ import annotations

import itertools
import math
from typing import Any

import numpy as np
from torch_mlir import ir

from ipu_mlir.dialects import poplar as pd
from ipu_mlir.support.ir_build import i64, i64_array, tensor_type
from ipu_mlir.support.registry import Registry

from ... import torch_ir
from ...lowering import Lowering, Pattern, Unsupported, element_of, literal, result_type, shape_of

_MODES = {0: "bilinear", 1: "nearest", 2: "bicubic"}
_PADDINGS = {0: "zeros", 1: "border", 2: "reflection"}


def _f32(value: float) -> str:
    """A literal holding ``value`` rounded to float32, as the CPU kernel holds its constants."""
    return literal(float(np.float32(value)))


class _Axis:
    """The source coordinate along one image axis (x: width, y: height) of each grid point,
    as PyTorch's vectorised CPU kernel computes it (``ComputeLocation``)."""

    def __init__(self, size: int, padding: str, align_corners: bool) -> None:
        self.size, self.padding, self.align = size, padding, align_corners
        self.scale = _f32((size - 1) / 2.0 if align_corners else size / 2.0)
        self.max = _f32(size - 1)
        self.twice_span = _f32(2 * (size - 1) if align_corners else 2 * size)

    def unnormalized(self) -> str:
        return f"mul(add(_1, 1.0), {self.scale})" if self.align else f"sub(mul(add(_1, 1.0), {self.scale}), 0.5)"

    def _reflect_parts(self) -> tuple[str, str, str]:
        """(shifted, extra, reflected extra) of the reflection of the unnormalised coordinate."""
        shifted = self.unnormalized() if self.align else f"add({self.unnormalized()}, 0.5)"
        magnitude = f"abs({shifted})"
        extra = f"sub({magnitude}, mul(trunc(div({magnitude}, {self.twice_span})), {self.twice_span}))"
        return shifted, extra, f"sub({self.twice_span}, {extra})"

    def _reflected(self) -> str:
        _, extra, reflected = self._reflect_parts()
        folded = f"min({extra}, {reflected})"
        return folded if self.align else f"sub({folded}, 0.5)"

    def coordinate(self) -> str:
        """The expression of the source coordinate in terms of the grid coordinate ``_1``."""
        if self.padding == "zeros":
            return self.unnormalized()
        if self.padding == "reflection" and float(self.twice_span) == 0:
            return "mul(_1, 0.0)"
        inner = self.unnormalized() if self.padding == "border" else self._reflected()
        return f"min(max({inner}, 0.0), {self.max})"

    def gradient(self) -> str:
        """The expression of d coordinate / d grid coordinate (``apply_get_grad``)."""
        if self.padding == "zeros":
            return f"add(mul(_1, 0.0), {self.scale})"
        if self.padding == "border":
            inner, slope = self.unnormalized(), self.scale
        elif float(self.twice_span) == 0:
            return "mul(_1, 0.0)"
        else:
            shifted, extra, reflected = self._reflect_parts()
            inner = self._reflected()
            slope = f"select(xor(gt({extra}, {reflected}), lt({shifted}, 0.0)), -{self.scale}, {self.scale})"
        # clip_coordinates_get_grad: a coordinate on or past either border gets no gradient.
        return f"select(and(gt({inner}, 0.0), lt({inner}, {self.max})), {slope}, 0.0)"


class _Sampler:
    """The pieces both the forward and the gradient build: coordinates, neighbours,
    weights and in-image masks of every grid point, as [N, 1, P] tensors (P the number of
    output points). Axes are in the grid's order: x (width), y (height), then z (depth)."""

    def __init__(self, lw: Lowering, image: ir.Value, grid: ir.Value, mode: str, padding: str, align_corners: bool) -> None:
        self.lw = lw
        shape = shape_of(image)
        self.n, self.c, self.sizes = shape[0], shape[1], shape[2:]
        rank = len(self.sizes)
        gshape = shape_of(grid)
        if gshape[0] != self.n or gshape[-1] != rank or len(gshape) != rank + 2:
            raise Unsupported(f"grid {gshape} must be [N, *output sizes, {rank}] with N = {self.n}")
        self.out = gshape[1:-1]
        self.points = math.prod(self.out)
        self.element = element_of(image)
        self.line = tensor_type([self.n, 1, self.points], self.element)
        self.flat = lw.reshape(image, [self.n, self.c, math.prod(self.sizes)])
        self.mode = mode
        self.extents = list(reversed(self.sizes))  # per axis: W, H (, D)
        self.axes = [_Axis(size, padding, align_corners) for size in self.extents]
        self.grid_coords = [self._grid_coordinate(grid, i) for i in range(rank)]
        self.coords = [lw.map(axis.coordinate(), [g], self.line) for axis, g in zip(self.axes, self.grid_coords, strict=True)]

    def _grid_coordinate(self, grid: ir.Value, index: int) -> ir.Value:
        shape = shape_of(grid)
        begin, end = [0] * len(shape), list(shape)
        begin[-1], end[-1] = index, index + 1
        part = self.lw.emit(pd.SliceOp, grid, i64_array(begin), i64_array(end), i64_array([1] * len(shape)),
                            tensor_type([*shape[:-1], 1], element_of(grid)))
        return self.lw.cast(self.lw.reshape(part, [self.n, 1, self.points]), self.element)

    def map(self, expr: str, operands: list[ir.Value], element: ir.Type | None = None) -> ir.Value:
        shape = [self.n, self.c if any(shape_of(o)[1] == self.c != 1 for o in operands) else 1, self.points]
        return self.lw.map(expr, operands, tensor_type(shape, element or self.element))

    def corner(self, position: list[ir.Value]) -> tuple[ir.Value, ir.Value, ir.Value]:
        """(flat index [N, 1, P] i64, in-image mask [N, 1, P] i1, masked pixels [N, C, P])
        of the integral positions (x, y (, z))."""
        lw, i64_type, i1 = self.lw, ir.IntegerType.get_signless(64), ir.IntegerType.get_signless(1)
        tests = [f"and(ge(_{k + 1}, 0.0), le(_{k + 1}, {_f32(size - 1)}))" for k, size in enumerate(self.extents)]
        inside = tests[0]
        for test in tests[1:]:
            inside = f"and({inside}, {test})"
        mask = self.map(inside, position, i1)
        clamped = [lw.cast(self.map(f"clamp(_1, 0.0, {_f32(size - 1)})", [p]), i64_type) for p, size in zip(position, self.extents, strict=True)]
        index = f"_{len(clamped)}"  # row-major: ((z * H) + y) * W + x
        for k in range(len(clamped) - 1, 0, -1):
            index = f"add(mul({index}, {self.extents[k - 1]}), _{k})"
        index = self.map(index, clamped, i64_type)
        spread = lw.broadcast(index, [self.n, self.c, self.points])
        pixels = lw.emit(pd.GatherOp, self.flat, spread, i64(2), tensor_type([self.n, self.c, self.points], self.element))
        return index, mask, self.map("select(_1, _2, 0.0)", [mask, pixels])

    def corners(self) -> list[tuple[ir.Value, ir.Value, ir.Value, ir.Value, tuple[int, ...]]]:
        """(index, mask, masked pixels, weight, side per axis) of each neighbour, in the CPU
        kernel's order (nw, ne, sw, se; then the same at the back in 3-d: the x side varies
        fastest); the nearest pixel alone (weight None) for nearest."""
        if self.mode == "nearest":
            index, mask, pixels = self.corner([self.map("round(_1)", [c]) for c in self.coords])
            return [(index, mask, pixels, None, ())]
        low = [self.map("floor(_1)", [c]) for c in self.coords]
        high = [self.map("add(_1, 1.0)", [w]) for w in low]
        # per axis, the weight of the low side (distance to the high one) and of the high side
        self.above = [self.map("sub(_1, _2)", [c, w]) for c, w in zip(self.coords, low, strict=True)]
        self.below = [self.map("sub(1.0, _1)", [d]) for d in self.above]
        out = []
        for sides in itertools.product((0, 1), repeat=len(self.coords)):
            sides = tuple(reversed(sides))  # x fastest
            position = [high[k] if side else low[k] for k, side in enumerate(sides)]
            out.append((*self.corner(position), self.weight(sides, None), sides))
        return out

    def factor(self, axis: int, side: int) -> ir.Value:
        return self.above[axis] if side else self.below[axis]

    def weight(self, sides: tuple[int, ...], skip: int | None) -> ir.Value:
        """The product of the corner's per-axis weights, but the one of axis ``skip``."""
        factors = [self.factor(k, side) for k, side in enumerate(sides) if k != skip]
        if len(factors) == 1:
            return factors[0]
        return self.map("mul(_1, _2)" if len(factors) == 2 else "mul(mul(_1, _2), _3)", list(reversed(factors)))


def _arguments(lw: Lowering, op: ir.Operation, first: int) -> tuple[str, str, bool]:
    mode = _MODES.get(lw.const(op.operands[first], "interpolation_mode"))
    padding = _PADDINGS.get(lw.const(op.operands[first + 1], "padding_mode"))
    align_corners = bool(lw.const(op.operands[first + 2], "align_corners"))
    if mode not in ("bilinear", "nearest") or padding is None:
        raise Unsupported(f"grid_sample with mode '{mode}' and padding '{padding}' (the IPU lowering takes modes 'bilinear' and 'nearest' "
                          "with padding 'zeros', 'border' or 'reflection'); use mode='bilinear' instead of 'bicubic'")
    return mode, padding, align_corners


def _check_image(op: ir.Operation, image: ir.Value) -> None:
    rank = 5 if "grid_sampler_3d" in torch_ir.aten_name(op) else 4
    if len(shape_of(image)) != rank:
        layout = "[N, C, D, H, W]" if rank == 5 else "[N, C, H, W]"
        raise Unsupported(f"grid sampling of a rank-{len(shape_of(image))} input (it takes {layout})")


def lower_grid_sampler(lw: Lowering, op: ir.Operation) -> list[Any]:
    """``grid_sampler_2d`` / ``grid_sampler_3d(input, grid, interpolation_mode, padding_mode,
    align_corners)``."""
    image, grid = lw.v(op.operands[0]), lw.v(op.operands[1])
    _check_image(op, image)
    mode, padding, align_corners = _arguments(lw, op, 2)
    s = _Sampler(lw, image, grid, mode, padding, align_corners)
    total = None
    for _, _, pixels, weight, _ in s.corners():
        if weight is None:
            total = pixels
        elif total is None:
            total = s.map("mul(_1, _2)", [pixels, weight])
        else:
            total = s.map("add(_1, mul(_2, _3))", [total, pixels, weight])
    return [lw.reshape(total, list(result_type(op).shape))]


def lower_grid_sampler_backward(lw: Lowering, op: ir.Operation) -> list[Any]:
    """``grid_sampler_2d_backward`` / ``grid_sampler_3d_backward(grad_output, input, grid,
    interpolation_mode, padding_mode, align_corners, output_mask)`` -> (grad_input, grad_grid)."""
    grad, image, grid = (lw.v(v) for v in op.operands[:3])
    _check_image(op, image)
    mode, padding, align_corners = _arguments(lw, op, 3)
    s = _Sampler(lw, image, grid, mode, padding, align_corners)
    g = lw.reshape(grad, [s.n, s.c, s.points])
    corners = s.corners()
    pixels_per_image = math.prod(s.sizes)

    # d input: each neighbour gets the output gradient times its weight (nothing if outside).
    updates, indices = [], []
    for index, mask, _, weight, _ in corners:
        share = g if weight is None else s.map("mul(_1, _2)", [g, weight])
        updates.append(s.map("select(_1, _2, 0.0)", [mask, share]))
        indices.append(index)
    count = len(corners) * s.points
    i64_type = ir.IntegerType.get_signless(64)
    offsets = lw.emit(pd.ConstantOp, ir.DenseElementsAttr.get([ir.IntegerAttr.get(i64_type, n * pixels_per_image) for n in range(s.n)],
                      type=tensor_type([s.n, 1], i64_type)), i64(0), tensor_type([s.n, 1], i64_type))
    flat_index = lw.map("add(_1, _2)", [lw.reshape(lw.concat(indices, 2), [s.n, count]), offsets], tensor_type([s.n, count], i64_type))
    rows = lw.reshape(lw.dim_shuffle(lw.concat(updates, 2), [0, 2, 1]), [s.n * count, s.c])
    summed = lw.emit(pd.MultiUpdateAddOp, rows, lw.reshape(flat_index, [s.n * count]), i64(-1),
                     tensor_type([s.n * pixels_per_image, s.c], s.element))
    grad_input = lw.reshape(lw.dim_shuffle(lw.reshape(summed, [s.n, pixels_per_image, s.c]), [0, 2, 1]), [s.n, s.c, *s.sizes])

    # d grid: the slope of the interpolation along each axis (the pixel difference across
    # the axis of each pair of neighbours, times the weight of the other axes), summed over
    # channels, times d coordinate / d grid coordinate.
    rank = len(s.sizes)
    if mode == "nearest":
        grad_grid = lw.zeros_or_ones(0.0, [s.n, *s.out, rank], s.element)
    else:
        by_sides = {sides: pixels for _, _, pixels, _, sides in corners}
        parts = []
        for axis, grid_coord in enumerate(s.grid_coords):
            slope = None
            for sides in by_sides:
                if sides[axis]:
                    continue
                high_sides = tuple(1 if k == axis else side for k, side in enumerate(sides))
                others = s.weight(sides, axis)
                if slope is None:
                    slope = s.map("mul(sub(_1, _2), _3)", [by_sides[high_sides], by_sides[sides], others])
                else:
                    slope = s.map("add(_1, mul(_2, _3))", [slope, s.map("sub(_1, _2)", [by_sides[high_sides], by_sides[sides]]), others])
            summed_c = lw.reduce(s.map("mul(_1, _2)", [slope, g]), "add", [1], True, 1.0, s.line)
            parts.append(s.map("mul(_1, _2)", [summed_c, lw.map(s.axes[axis].gradient(), [grid_coord], s.line)]))
        stacked = lw.concat([lw.reshape(p, [s.n, s.points, 1]) for p in parts], 2)
        grad_grid = lw.reshape(stacked, [s.n, *s.out, rank])
    results = []
    for index, value in enumerate((grad_input, grad_grid)):
        wanted = list(result_type(op, index).shape)
        results.append(value if shape_of(value) == wanted else None)
    return results


def populate(patterns: Registry[Pattern]) -> None:
    """Register the lowerings of this family: grid_sampler_2d / _3d and their gradients."""
    patterns.register("torch.aten.grid_sampler_2d", "torch.aten.grid_sampler_3d")(lower_grid_sampler)
    patterns.register("torch.aten.grid_sampler_2d_backward", "torch.aten.grid_sampler_3d_backward")(lower_grid_sampler_backward)
