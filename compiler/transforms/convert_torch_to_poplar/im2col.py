"""Sliding-window lowerings: ``im2col`` (``F.unfold``: every kernel-sized patch of an
image as a column) and ``col2im`` (``F.fold``: columns summed back into an image), each
the other's gradient.

A patch element's position in the zero-padded image is a compile-time constant, so
``im2col`` is a gather at constant flat indices (``popops::multiSlice``) and ``col2im``
the matching scatter-add (``popops::multiUpdateAdd``); the padding is a ``popops::pad``
or a slice.
"""

from __future__ import annotations

import math
from typing import Any

from torch_mlir import ir

from ipu_mlir.dialects import poplar as pd
from ipu_mlir.support.ir_build import f64, i64, i64_array, tensor_type
from ipu_mlir.support.registry import Registry

from ...lowering import Lowering, Pattern, Unsupported, element_of, result_type, shape_of


def _pair(value: Any, what: str) -> list[int]:
    values = list(value) if isinstance(value, list | tuple) else [value]
    values = values * 2 if len(values) == 1 else values
    if len(values) != 2:
        raise Unsupported(f"{what} {value} must give 2 values (height, width)")
    return [int(v) for v in values]


def _window(lw: Lowering, operands: list[ir.Value]) -> tuple[list[int], list[int], list[int], list[int]]:
    """(kernel, dilation, padding, stride) from four constant operands."""
    kernel, dilation, padding, stride = (_pair(lw.const(v, what), what) for v, what in
                                         zip(operands, ("kernel_size", "dilation", "padding", "stride"), strict=True))
    if min(kernel) < 1 or min(dilation) < 1 or min(stride) < 1 or min(padding) < 0:
        raise Unsupported(f"kernel {kernel}, dilation {dilation} and stride {stride} must be positive and padding {padding} non-negative")
    return kernel, dilation, padding, stride


def _blocks(size: list[int], kernel: list[int], dilation: list[int], padding: list[int], stride: list[int]) -> list[int]:
    """The number of sliding-window positions along each spatial dim."""
    counts = [(s + 2 * p - d * (k - 1) - 1) // st + 1 for s, k, d, p, st in zip(size, kernel, dilation, padding, stride, strict=True)]
    if min(counts) < 1:
        raise Unsupported(f"a kernel of {kernel} (dilation {dilation}) does not fit in a padded image of {size} + 2 x {padding}")
    return counts


def _patch_indices(padded: list[int], kernel: list[int], dilation: list[int], stride: list[int], blocks: list[int]) -> list[int]:
    """The flat index in the padded image of each (kernel row, kernel col, block) element,
    in ``im2col``'s column order."""
    width = padded[1]
    return [(bh * stride[0] + kh * dilation[0]) * width + bw * stride[1] + kw * dilation[1]
            for kh in range(kernel[0]) for kw in range(kernel[1])
            for bh in range(blocks[0]) for bw in range(blocks[1])]


def _indices(lw: Lowering, values: list[int]) -> ir.Value:
    element = ir.IntegerType.get_signless(64)
    type_ = tensor_type([len(values)], element)
    attr = ir.DenseElementsAttr.get([ir.IntegerAttr.get(element, v) for v in values], type=type_)
    return lw.emit(pd.ConstantOp, attr, i64(0), type_)


def lower_im2col(lw: Lowering, op: ir.Operation) -> list[Any]:
    """``im2col(self [N, C, H, W] or [C, H, W], kernel_size, dilation, padding, stride)`` ->
    ``[N, C * kh * kw, L]``."""
    x = lw.v(op.operands[0])
    kernel, dilation, padding, stride = _window(lw, list(op.operands[1:5]))
    shape = shape_of(x)
    if len(shape) not in (3, 4):
        raise Unsupported(f"im2col of a rank-{len(shape)} tensor (it takes [N, C, H, W] or [C, H, W])")
    batch = shape[:-3]
    channels, size = shape[-3], shape[-2:]
    blocks = _blocks(size, kernel, dilation, padding, stride)
    if any(padding):
        low = [0] * (len(shape) - 2) + padding
        shape = shape[:-2] + [s + 2 * p for s, p in zip(size, padding, strict=True)]
        x = lw.emit(pd.PadOp, x, i64_array(low), i64_array(low), f64(0.0), tensor_type(shape, element_of(x)))
    padded = shape[-2:]
    flat = lw.reshape(x, [*batch, channels, math.prod(padded)])
    index = _patch_indices(padded, kernel, dilation, stride, blocks)
    gathered = lw.emit(pd.MultiSliceOp, flat, _indices(lw, index), i64(len(batch) + 1),
                       tensor_type([*batch, channels, len(index)], element_of(x)))
    out = result_type(op)
    return [lw.reshape(gathered, list(out.shape))]


def lower_col2im(lw: Lowering, op: ir.Operation) -> list[Any]:
    """``col2im(self [N, C * kh * kw, L] or [C * kh * kw, L], output_size, kernel_size,
    dilation, padding, stride)`` -> ``[N, C, H, W]``: overlapping patch elements add up."""
    cols = lw.v(op.operands[0])
    size = _pair(lw.const(op.operands[1], "output_size"), "output_size")
    kernel, dilation, padding, stride = _window(lw, list(op.operands[2:6]))
    shape = shape_of(cols)
    if len(shape) not in (2, 3):
        raise Unsupported(f"col2im of a rank-{len(shape)} tensor (it takes [N, C * kh * kw, L] or [C * kh * kw, L])")
    batch = shape[:-2]
    blocks = _blocks(size, kernel, dilation, padding, stride)
    patch = kernel[0] * kernel[1]
    if shape[-2] % patch or shape[-1] != math.prod(blocks):
        raise Unsupported(f"col2im input {shape} must be [N, C * {patch}, {math.prod(blocks)}] for this kernel and output size")
    channels = shape[-2] // patch
    padded = [s + 2 * p for s, p in zip(size, padding, strict=True)]
    index = _patch_indices(padded, kernel, dilation, stride, blocks)
    rows = math.prod(batch) * channels
    # [*batch, C, kh * kw * L] -> [kh * kw * L, *batch * C]: one update row per patch element.
    flat = lw.reshape(cols, [rows, len(index)])
    updates = lw.dim_shuffle(flat, [1, 0])
    element = element_of(cols)
    summed = lw.emit(pd.MultiUpdateAddOp, updates, _indices(lw, index), i64(-1), tensor_type([math.prod(padded), rows], element))
    image = lw.reshape(lw.dim_shuffle(summed, [1, 0]), [*batch, channels, *padded])
    if any(padding):
        rank = len(batch) + 3
        begin = [0] * (rank - 2) + padding
        end = [*batch, channels] + [p + s for p, s in zip(padding, size, strict=True)]
        image = lw.emit(pd.SliceOp, image, i64_array(begin), i64_array(end), i64_array([1] * rank),
                        tensor_type([*batch, channels, *size], element))
    out = result_type(op)
    return [lw.reshape(image, list(out.shape))]


def populate(patterns: Registry[Pattern]) -> None:
    """Register the lowerings of this family: im2col (F.unfold) and col2im (F.fold)."""
    patterns.register("torch.aten.im2col")(lower_im2col)
    patterns.register("torch.aten.col2im")(lower_col2im)
