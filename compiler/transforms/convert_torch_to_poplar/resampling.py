"""Resampling lowerings: nearest, nearest-exact, (bi/tri)linear and antialiased bilinear
upsampling (``F.interpolate``, ``nn.Upsample``) and their gradients.

Resampling is separable: each spatial dim whose size changes is resampled on its own,
the last dim first, as PyTorch's CPU kernels do. Source positions and weights are
compile-time constants computed as PyTorch computes them (in float32), so each dim is
a gather of input slices at constant indices (``popops::multiSlice``; a broadcast view
when every input element repeats k times) and, for linear modes, a weighted sum of two
such gathers (``popops::map``). The gradients scatter-add the incoming gradient back
(``popops::multiUpdateAdd``; a reduction when every element repeated k times).
Antialiased bilinear resampling mixes up to 2 * ceil(scale) + 1 inputs per output: each
dim is a matmul with a constant weight matrix (``poplin::matMul``), its gradient one with
the transposed matrix.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
from torch_mlir import ir

from ipu_mlir.dialects import poplar as pd
from ipu_mlir.support.ir_build import i64, tensor_type
from ipu_mlir.support.registry import Registry

from ... import torch_ir
from ...lowering import Lowering, Pattern, Unsupported, element_of, is_float, result_type, shape_of

_F32 = np.float32

# Op packet -> (mode, spatial dims). A packet covers its ``.vec`` overload (sizes or
# scale factors as lists) and its default one (one ``scales_*`` operand per dim).
_UPSAMPLE = {
    "upsample_nearest1d": ("nearest", 1), "upsample_nearest2d": ("nearest", 2), "upsample_nearest3d": ("nearest", 3),
    "_upsample_nearest_exact1d": ("nearest-exact", 1), "_upsample_nearest_exact2d": ("nearest-exact", 2),
    "_upsample_nearest_exact3d": ("nearest-exact", 3),
    "upsample_linear1d": ("linear", 1), "upsample_bilinear2d": ("linear", 2), "upsample_trilinear3d": ("linear", 3),
}


# -- source positions, as ATen's UpSample.h computes them -----------------------------
def _scale(in_size: int, out_size: int, scale: float | None) -> np.float32:
    """``compute_scales_value``: ``(float)(1 / scale)`` if given, else ``(float)in / out``."""
    if scale is not None and scale > 0:
        return _F32(1.0 / scale)
    return _F32(in_size) / _F32(out_size)


def nearest_indices(in_size: int, out_size: int, scale: float | None, exact: bool) -> list[int]:
    """The input index each output index copies (``nearest_idx`` / ``nearest_exact_idx``)."""
    if exact:
        s = float(_scale(in_size, out_size, scale))
        return [min(int(np.floor(_F32((o + 0.5) * s))), in_size - 1) for o in range(out_size)]
    if out_size == in_size:
        return list(range(out_size))
    if out_size == 2 * in_size:
        return [o >> 1 for o in range(out_size)]
    s = _scale(in_size, out_size, scale)
    return [min(int(np.floor(_F32(o) * s)), in_size - 1) for o in range(out_size)]


def linear_weights(in_size: int, out_size: int, align_corners: bool, scale: float | None) -> tuple[list[int], list[int], list[float], list[float]]:
    """(index0, index1, weight0, weight1) of each output index: ``out = x[i0] * w0 + x[i1] * w1``
    (``area_pixel_compute_source_index`` and ``guard_index_and_lambda``, in float32)."""
    if align_corners:
        s = _F32(in_size - 1) / _F32(out_size - 1) if out_size > 1 else _F32(0)
    else:
        s = _scale(in_size, out_size, scale)
    first, second, w0, w1 = [], [], [], []
    for o in range(out_size):
        real = s * _F32(o) if align_corners else max(s * (_F32(o) + _F32(0.5)) - _F32(0.5), _F32(0))
        index = min(int(np.floor(real)), in_size - 1)
        lam = _F32(min(max(real - _F32(index), _F32(0)), _F32(1)))
        first.append(index)
        second.append(index + (1 if index < in_size - 1 else 0))
        w1.append(float(lam))
        w0.append(float(_F32(1) - lam))
    return first, second, w0, w1


# -- gathers and scatter-adds along one dim at constant indices -----------------------
def _repeats(indices: Sequence[int], in_size: int) -> int | None:
    """k if ``indices`` is ``0 x k, 1 x k, ...`` over the whole input, else None."""
    if in_size == 0 or len(indices) % in_size:
        return None
    k = len(indices) // in_size
    return k if list(indices) == [o // k for o in range(len(indices))] else None


def _constant(lw: Lowering, values: Sequence[float | int], element: ir.Type) -> ir.Value:
    type_ = tensor_type([len(values)], element)
    make = (lambda v: ir.FloatAttr.get(element, float(v))) if is_float(element) else (lambda v: ir.IntegerAttr.get(element, int(v)))
    return lw.emit(pd.ConstantOp, ir.DenseElementsAttr.get([make(v) for v in values], type=type_), i64(0), type_)


def gather_dim(lw: Lowering, x: ir.Value, dim: int, indices: Sequence[int]) -> ir.Value:
    """``x.index_select(dim, indices)`` for constant ``indices``."""
    shape = shape_of(x)
    if list(indices) == list(range(shape[dim])):
        return x
    k = _repeats(indices, shape[dim])
    if k is not None:
        spread = shape[: dim + 1] + [k] + shape[dim + 1 :]
        grown = lw.broadcast(lw.reshape(x, shape[: dim + 1] + [1] + shape[dim + 1 :]), spread)
        return lw.reshape(grown, shape[:dim] + [len(indices)] + shape[dim + 1 :])
    out = tensor_type(shape[:dim] + [len(indices)] + shape[dim + 1 :], element_of(x))
    return lw.emit(pd.MultiSliceOp, x, _constant(lw, indices, ir.IntegerType.get_signless(64)), i64(dim), out)


def scatter_add_dim(lw: Lowering, g: ir.Value, dim: int, indices: Sequence[int], size: int) -> ir.Value:
    """The gradient of ``gather_dim``: a tensor of ``size`` along ``dim`` where element
    ``i`` is the sum of the elements of ``g`` whose index is ``i``."""
    shape = shape_of(g)
    if list(indices) == list(range(size)):
        return g
    k = _repeats(indices, size)
    if k is not None:
        split = lw.reshape(g, shape[:dim] + [size, k] + shape[dim + 1 :])
        return lw.reduce(split, "add", [dim + 1], False, 1.0, tensor_type(shape[:dim] + [size] + shape[dim + 1 :], element_of(g)))
    rank = len(shape)
    to_front = [dim] + [d for d in range(rank) if d != dim]
    rows = math.prod(shape[d] for d in to_front[1:])
    updates = lw.reshape(lw.dim_shuffle(g, to_front), [len(indices), rows])
    index = _constant(lw, indices, ir.IntegerType.get_signless(64))
    summed = lw.emit(pd.MultiUpdateAddOp, updates, index, i64(-1), tensor_type([size, rows], element_of(g)))
    front_shape = [size] + [shape[d] for d in to_front[1:]]
    back = [to_front.index(d) for d in range(rank)]
    return lw.dim_shuffle(lw.reshape(summed, front_shape), back)


def _weights(lw: Lowering, weights: Sequence[float], dim: int, rank: int, element: ir.Type) -> ir.Value:
    """The weights of the output indices along ``dim``, shaped to broadcast."""
    return lw.reshape(_constant(lw, weights, element), [len(weights) if d == dim else 1 for d in range(rank)])


# -- one dim ---------------------------------------------------------------------------
def _resample_dim(lw: Lowering, x: ir.Value, dim: int, out_size: int, mode: str, align_corners: bool, scale: float | None) -> ir.Value:
    in_size = shape_of(x)[dim]
    if in_size == out_size:  # PyTorch leaves a dim that keeps its size as it is
        return x
    if mode != "linear":
        return gather_dim(lw, x, dim, nearest_indices(in_size, out_size, scale, mode == "nearest-exact"))
    first, second, w0, w1 = linear_weights(in_size, out_size, align_corners, scale)
    rank, element = len(shape_of(x)), element_of(x)
    a, b = gather_dim(lw, x, dim, first), gather_dim(lw, x, dim, second)
    weighted = lw.map("mul(_1, _2)", [a, _weights(lw, w0, dim, rank, element)], a.type)
    return lw.map("add(_1, mul(_2, _3))", [weighted, b, _weights(lw, w1, dim, rank, element)], a.type)


def _resample_grad_dim(lw: Lowering, g: ir.Value, dim: int, in_size: int, mode: str, align_corners: bool, scale: float | None) -> ir.Value:
    out_size = shape_of(g)[dim]
    if in_size == out_size:
        return g
    if mode != "linear":
        return scatter_add_dim(lw, g, dim, nearest_indices(in_size, out_size, scale, mode == "nearest-exact"), in_size)
    first, second, w0, w1 = linear_weights(in_size, out_size, align_corners, scale)
    rank, element = len(shape_of(g)), element_of(g)
    g0 = lw.map("mul(_1, _2)", [g, _weights(lw, w0, dim, rank, element)], g.type)
    g1 = lw.map("mul(_1, _2)", [g, _weights(lw, w1, dim, rank, element)], g.type)
    both = lw.concat([g0, g1], dim)
    return scatter_add_dim(lw, both, dim, first + second, in_size)


# -- the ops ---------------------------------------------------------------------------
def _arguments(lw: Lowering, op: ir.Operation, backward: bool) -> tuple[str, int, bool, list[float | None]]:
    """(mode, spatial dims, align_corners, scale of each spatial dim) of an upsample op."""
    name = torch_ir.aten_name(op)
    packet = name.split(".")[2].removesuffix("_backward")
    mode, spatial = _UPSAMPLE[packet]
    operands = list(op.operands)
    position = 3 if backward else 2  # after (grad_output, output_size, input_size) / (input, output_size)
    align_corners = False
    if mode == "linear":
        align_corners = bool(lw.const(operands[position], "align_corners"))
        position += 1
    if name.endswith(".vec"):
        factors = lw.const(operands[position], "scale_factors")
        scales: list[float | None] = list(factors) if factors is not None else [None] * spatial
    else:
        scales = [lw.const(v, "scale") for v in operands[position : position + spatial]]
        scales += [None] * (spatial - len(scales))
    if len(scales) != spatial:
        raise Unsupported(f"{len(scales)} scale factors for {spatial} spatial dims")
    return mode, spatial, align_corners, scales


def lower_upsample(lw: Lowering, op: ir.Operation) -> list[Any]:
    """``upsample_*(input, output_size, [align_corners], scales)`` (``.vec`` and default overloads)."""
    mode, spatial, align_corners, scales = _arguments(lw, op, backward=False)
    x = lw.v(op.operands[0])
    out = result_type(op)
    rank = len(shape_of(x))
    if rank != spatial + 2:
        raise Unsupported(f"{mode} upsampling over {spatial} spatial dims needs a rank-{spatial + 2} input [N, C, *spatial], got rank {rank}")
    for i in reversed(range(spatial)):
        dim = 2 + i
        x = _resample_dim(lw, x, dim, out.shape[dim], mode, align_corners, scales[i])
    return [x]


def lower_upsample_backward(lw: Lowering, op: ir.Operation) -> list[Any]:
    """``upsample_*_backward(grad_output, output_size, input_size, [align_corners], scales...)``."""
    mode, spatial, align_corners, scales = _arguments(lw, op, backward=True)
    g = lw.v(op.operands[0])
    out = result_type(op)
    if len(out.shape) != spatial + 2:
        raise Unsupported(f"{mode} upsampling gradient over {spatial} spatial dims needs rank {spatial + 2}, got {len(out.shape)}")
    for i in range(spatial):
        dim = 2 + i
        g = _resample_grad_dim(lw, g, dim, out.shape[dim], mode, align_corners, scales[i])
    return [g]


# -- antialiased bilinear (F.interpolate(..., mode="bilinear", antialias=True)) ----------
def aa_weights(in_size: int, out_size: int, align_corners: bool, scale: float | None) -> np.ndarray:
    """The [out_size, in_size] float32 matrix of the antialiased bilinear resampling of one
    dim, as ATen's ``_compute_weights_aa`` computes it (a triangle filter stretched by the
    scale when downsampling, normalised per output element), in its float32 / double steps."""
    if align_corners:
        s = _F32(in_size - 1) / _F32(out_size - 1) if out_size > 1 else _F32(0.0)
    else:
        s = _scale(in_size, out_size, scale)
    support = _F32(s) if s >= 1.0 else _F32(1.0)  # interp_size (2) * 0.5, stretched by the scale
    invscale = _F32(1.0 / float(s)) if s >= 1.0 else _F32(1.0)
    limit = int(math.ceil(float(support))) * 2 + 1
    matrix = np.zeros((out_size, in_size), dtype=_F32)
    for i in range(out_size):
        center = _F32(float(s) * (i + 0.5))
        low = max(int(float(center - support) + 0.5), 0)
        count = min(max(min(int(float(center + support) + 0.5), in_size) - low, 0), limit)
        weights = []
        for j in range(count):
            x = abs(_F32((float(_F32(j + low) - center) + 0.5) * float(invscale)))
            weights.append(_F32(1.0) - x if x < 1.0 else _F32(0.0))
        total = _F32(0.0)
        for w in weights:
            total = _F32(total + w)
        for j, w in enumerate(weights):
            matrix[i, low + j] = w / total if total != 0.0 else w
    return matrix


def _apply_matrix(lw: Lowering, x: ir.Value, dim: int, matrix: np.ndarray) -> ir.Value:
    """``x`` with dim ``dim`` (of size ``matrix``'s columns) replaced by ``matrix @`` it: a
    ``poplin_matmul`` of x (that dim last) with the constant transposed matrix."""
    shape, element = shape_of(x), element_of(x)
    rank = len(shape)
    order = [d for d in range(rank) if d != dim] + [dim]
    moved = lw.dim_shuffle(x, order) if dim != rank - 1 else x
    f32 = ir.F32Type.get()
    transposed = np.ascontiguousarray(matrix.T)
    constant = lw.emit(pd.ConstantOp, ir.DenseElementsAttr.get(transposed, type=tensor_type(list(transposed.shape), f32)), i64(0),
                       tensor_type(list(transposed.shape), f32))
    moved_shape = [shape[d] for d in order[:-1]] + [matrix.shape[0]]
    product = lw.matmul(moved, lw.cast(constant, element), tensor_type(moved_shape, element))
    if dim == rank - 1:
        return product
    return lw.dim_shuffle(product, [order.index(d) for d in range(rank)])


def _aa_arguments(lw: Lowering, op: ir.Operation, position: int) -> tuple[bool, list[float | None]]:
    """(align_corners, scale of each spatial dim) of ``_upsample_bilinear2d_aa(_backward)``."""
    align_corners = bool(lw.const(op.operands[position], "align_corners"))
    if torch_ir.aten_name(op).endswith(".vec"):
        factors = lw.const(op.operands[position + 1], "scale_factors")
        return align_corners, list(factors) if factors is not None else [None, None]
    return align_corners, [lw.const(v, "scale") for v in op.operands[position + 1 : position + 3]]


def lower_upsample_bilinear2d_aa(lw: Lowering, op: ir.Operation) -> list[Any]:
    """``_upsample_bilinear2d_aa(input, output_size, align_corners, scales_h, scales_w)`` (and
    ``.vec``): the width, then the height, each a matmul with its constant weight matrix
    (a dim whose size does not change is left as it is, as the CPU kernel does)."""
    x, out = lw.v(op.operands[0]), result_type(op)
    if len(shape_of(x)) != 4:
        raise Unsupported(f"antialiased bilinear upsampling of a rank-{len(shape_of(x))} input (it takes [N, C, H, W])")
    align_corners, scales = _aa_arguments(lw, op, 2)
    for dim in (3, 2):
        size = shape_of(x)[dim]
        if size != out.shape[dim]:
            x = _apply_matrix(lw, x, dim, aa_weights(size, out.shape[dim], align_corners, scales[dim - 2]))
    return [x]


def lower_upsample_bilinear2d_aa_backward(lw: Lowering, op: ir.Operation) -> list[Any]:
    """``_upsample_bilinear2d_aa_backward(grad_output, output_size, input_size, align_corners,
    scales_h, scales_w)``: the transposed weight matrices, height then width."""
    g, out = lw.v(op.operands[0]), result_type(op)
    if len(out.shape) != 4:
        raise Unsupported(f"antialiased bilinear upsampling gradient of rank {len(out.shape)} (it takes [N, C, H, W])")
    align_corners, scales = _aa_arguments(lw, op, 3)
    for dim in (2, 3):
        size = shape_of(g)[dim]
        if size != out.shape[dim]:
            g = _apply_matrix(lw, g, dim, aa_weights(out.shape[dim], size, align_corners, scales[dim - 2]).T)
    return [g]


def populate(patterns: Registry[Pattern]) -> None:
    """Register the lowerings of this family: nearest, nearest-exact, linear and antialiased
    bilinear upsampling and their gradients."""
    patterns.register("torch.aten._upsample_bilinear2d_aa")(lower_upsample_bilinear2d_aa)
    patterns.register("torch.aten._upsample_bilinear2d_aa_backward")(lower_upsample_bilinear2d_aa_backward)
    patterns.register(*(f"torch.aten.{packet}" for packet in _UPSAMPLE))(lower_upsample)
    patterns.register(*(f"torch.aten.{packet}_backward" for packet in _UPSAMPLE))(lower_upsample_backward)
