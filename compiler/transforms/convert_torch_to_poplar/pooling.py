"""Pooling lowerings: max / average pooling (dilation, ceil mode, divisor override),
adaptive average and max pooling, and the gradients of all of them, on ``popnn_pool``.

``popnn::pooling::pool`` takes one fixed window (kernel, stride, padding) per spatial
dim. Pools it cannot express directly (a dilated max window, adaptive windows whose
sizes vary) gather each output's window into a dense block first (``popops_multi_slice``
per spatial dim, as PopLibs would with ``popops::multiSlice``) and pool the blocks with
kernel = stride = block size; their gradients pool-grad the blocks and scatter-add them
back (``popops_multi_update_add``)."""

from __future__ import annotations

import math
import re
from typing import Any

import numpy as np
from torch_mlir import ir

from ipu_mlir.dialects import poplar as pd
from ipu_mlir.support.ir_build import boolean, f64, i64, i64_array, string, tensor_type
from ipu_mlir.support.registry import Registry

from ... import torch_ir
from ...lowering import (
    Lowering,
    Pattern,
    Unsupported,
    element_of,
    literal,
    pool_window,
    result_type,
    shape_of,
    spatial_list,
)
from ...torch_ir import is_none

# A window per output position of one spatial dim: the input positions it reads, in order.
Windows = list[list[int]]


# -- windows and their blocks ---------------------------------------------------------------
def _pool_out_size(size: int, kernel: int, stride: int, padding: int, dilation: int, ceil: bool) -> int:
    """PyTorch's pooling output size (ATen ``pooling_output_shape``)."""
    span = size + 2 * padding - dilation * (kernel - 1) - 1
    out = (-(-span // stride) if ceil else span // stride) + 1
    if ceil and (out - 1) * stride >= size + padding:
        out -= 1
    return out


def _dilated_windows(size: int, kernel: int, stride: int, padding: int, dilation: int, ceil: bool) -> Windows:
    """The in-range input positions of each window of a (dilated, padded) max pool."""
    count = _pool_out_size(size, kernel, stride, padding, dilation, ceil)
    windows = []
    for i in range(count):
        taps = [i * stride - padding + j * dilation for j in range(kernel)]
        windows.append([t for t in taps if 0 <= t < size])
    return windows


def _adaptive_windows(size: int, out: int) -> Windows:
    """ATen's adaptive pooling windows: [floor(i*size/out), ceil((i+1)*size/out))."""
    return [list(range((i * size) // out, -(-((i + 1) * size) // out))) for i in range(out)]


def _block_indices(windows: Windows, fill: int | None) -> list[int]:
    """The gather indices of the blocks of ``windows``: each window padded to the longest
    with ``fill`` (a padding slot) or, when None, by repeating its last position (which
    changes neither a max nor which of equal maxima comes first)."""
    width = max(len(w) for w in windows)
    flat: list[int] = []
    for window in windows:
        pad = fill if fill is not None else window[-1]
        flat += window + [pad] * (width - len(window))
    return flat


def _index_constant(lw: Lowering, values: list[int]) -> ir.Value:
    type_ = tensor_type([len(values)], ir.IntegerType.get_signless(64))
    return lw.emit(pd.ConstantOp, ir.DenseElementsAttr.get(np.array(values, dtype=np.int64), type=type_), i64(0), type_)


def _gather_blocks(lw: Lowering, x: ir.Value, windows: list[Windows], fill: float | None) -> ir.Value:
    """``x`` ``[N, C, *spatial]`` with each spatial dim replaced by its windows' blocks laid
    end to end (``popops_multi_slice`` along the dim); with ``fill``, short windows are
    padded with that value (a slot appended to the dim) instead of a repeated position."""
    for axis, dim_windows in enumerate(windows):
        dim = 2 + axis
        shape = shape_of(x)
        slot = None
        if fill is not None and len({len(w) for w in dim_windows}) > 1:
            low, high = [0] * len(shape), [0] * len(shape)
            high[dim] = 1
            slot = shape[dim]
            shape[dim] += 1
            x = lw.emit(pd.PadOp, x, i64_array(low), i64_array(high), f64(fill), tensor_type(shape, element_of(x)))
        indices = _block_indices(dim_windows, slot)
        shape[dim] = len(indices)
        x = lw.emit(pd.MultiSliceOp, x, _index_constant(lw, indices), i64(dim), tensor_type(shape, element_of(x)))
    return x


def _scatter_blocks(lw: Lowering, grad: ir.Value, windows: list[Windows], input_shape: list[int], fill: bool) -> ir.Value:
    """The gradient of :func:`_gather_blocks`: each block element's gradient is added to
    the input position it was gathered from (``popops_multi_update_add`` along each dim,
    last dim first); padding slots get none."""
    element = element_of(grad)
    for axis in reversed(range(len(windows))):
        dim = 2 + axis
        size = input_shape[dim]
        slot = size if fill and len({len(w) for w in windows[axis]}) > 1 else None
        indices = _block_indices(windows[axis], slot)
        shape = shape_of(grad)
        rank = len(shape)
        front = [dim] + [d for d in range(rank) if d != dim]
        rows = math.prod(shape) // shape[dim]
        flat = lw.reshape(lw.dim_shuffle(grad, front), [shape[dim], rows])
        table_rows = size + (1 if slot is not None else 0)
        summed = lw.emit(pd.MultiUpdateAddOp, flat, _index_constant(lw, indices), i64(-1), tensor_type([table_rows, rows], element))
        if slot is not None:
            summed = lw.emit(pd.SliceOp, summed, i64_array([0, 0]), i64_array([size, rows]), i64_array([1, 1]), tensor_type([size, rows], element))
        moved = [size] + [shape[d] for d in front[1:]]
        grad = lw.dim_shuffle(lw.reshape(summed, moved), [front.index(d) for d in range(rank)])
    return grad


def _block_pool(lw: Lowering, blocks: ir.Value, windows: list[Windows], kind: str, out: ir.RankedTensorType) -> ir.Value:
    widths = [max(len(w) for w in dim_windows) for dim_windows in windows]
    return lw.emit(pd.PoolOp, blocks, i64_array(widths), i64_array(widths), i64_array([0] * len(widths)), boolean(False),
                   string(kind), boolean(True), out)


def _block_pool_grad(lw: Lowering, blocks: ir.Value, windows: list[Windows], kind: str, grad: ir.Value) -> ir.Value:
    widths = [max(len(w) for w in dim_windows) for dim_windows in windows]
    return lw.emit(pd.PoolGradOp, blocks, i64_array(widths), i64_array(widths), i64_array([0] * len(widths)), boolean(False),
                   string(kind), boolean(True), grad, blocks.type)


def _window_counts(lw: Lowering, windows: list[Windows], element: ir.Type) -> ir.Value:
    """The number of input elements in each output's window, ``[*out]`` (adaptive average)."""
    counts = np.ones([len(w) for w in windows], dtype=np.float64)
    for axis, dim_windows in enumerate(windows):
        sizes = np.array([len(w) for w in dim_windows], dtype=np.float64)
        counts = counts * sizes.reshape([-1 if a == axis else 1 for a in range(len(windows))])
    type_ = tensor_type(list(counts.shape), ir.F32Type.get())
    constant = lw.emit(pd.ConstantOp, ir.DenseElementsAttr.get(counts.astype(np.float32), type=type_), i64(0), type_)
    return lw.cast(constant, element)


def _accumulation_type(out: ir.RankedTensorType) -> ir.RankedTensorType:
    """``out`` with f32 elements when it holds f16 / bf16 (what ATen accumulates sums in)."""
    if isinstance(out.element_type, ir.F16Type | ir.BF16Type):
        return tensor_type(list(out.shape), ir.F32Type.get())
    return out


# -- inputs without a batch dim -------------------------------------------------------------
# The pools of ATen take [C, *spatial] as well as [N, C, *spatial]; popnn pools take the
# latter, so an unbatched op runs on a batch of one.
def _spatial_dims(op: ir.Operation) -> int:
    match = re.search(r"(\d)d", torch_ir.aten_name(op))
    return int(match.group(1)) if match else len(_source_shape(op.operands[0])) - 2


def _source_shape(value: ir.Value) -> list[int]:
    """The shape of a Torch-dialect tensor operand."""
    return list(torch_ir.vtensor_shape_dtype(value.type)[0])


def _unbatched(op: ir.Operation) -> bool:
    return len(_source_shape(op.operands[0])) == _spatial_dims(op) + 1


def _operand(lw: Lowering, op: ir.Operation, index: int) -> ir.Value:
    """Tensor operand ``index``, with a batch of one when the op has no batch dim."""
    value = lw.v(op.operands[index])
    return lw.reshape(value, [1, *shape_of(value)]) if _unbatched(op) else value


def _result(op: ir.Operation, index: int = 0) -> ir.RankedTensorType:
    type_ = result_type(op, index)
    return tensor_type([1, *type_.shape], type_.element_type) if _unbatched(op) else type_


def _accepts_unbatched(fn: Pattern) -> Pattern:
    """``fn`` (which reads its tensors with ``_operand`` / ``_result``), with its results
    reshaped to the op's own result shapes."""

    def lower(lw: Lowering, op: ir.Operation) -> list[Any]:
        results = fn(lw, op)
        if not _unbatched(op):
            return results
        return [None if v is None else lw.reshape(v, list(result_type(op, i).shape)) for i, v in enumerate(results)]

    lower.__name__, lower.__doc__, lower.__module__ = fn.__name__, fn.__doc__, fn.__module__
    return lower


# -- max and average pooling ---------------------------------------------------------------
def _max_windows(lw: Lowering, op: ir.Operation, x_shape: list[int], first: int) -> tuple[list[int], list[int], list[int], list[int], bool]:
    """(kernel, stride, padding, dilation, ceil_mode) of a max pool (or its gradient) whose
    window operands start at ``first``."""
    spatial = len(x_shape) - 2
    kernel, stride, padding = pool_window(lw, op, first, spatial)
    dilation = spatial_list(lw.const(op.operands[first + 3], "dilation"), spatial)
    ceil = lw.const(op.operands[first + 4], "ceil_mode")
    return kernel, stride, padding, dilation, ceil


def _check_padding(kernel: list[int], padding: list[int]) -> None:
    if any(2 * p > k for p, k in zip(padding, kernel, strict=True)):
        raise Unsupported(f"padding {padding} larger than half the kernel {kernel} (PyTorch rejects it too)")


def lower_max_pool(lw: Lowering, op: ir.Operation) -> list[Any]:
    x = _operand(lw, op, 0)
    shape = shape_of(x)
    kernel, stride, padding, dilation, ceil = _max_windows(lw, op, shape, 1)
    _check_padding(kernel, padding)
    out = _result(op)
    if all(d == 1 for d in dilation):
        if len(op.results) > 1 and _has_forward_users(op.results[1]):
            return list(_max_pool_with_indices(lw, x, kernel, stride, padding, ceil, out, _result(op, 1)))
        pooled = lw.emit(pd.PoolOp, x, i64_array(kernel), i64_array(stride), i64_array(padding), boolean(ceil), string("max"), boolean(True), out)
        return [pooled, None] if len(op.results) > 1 else [pooled]
    windows = [_dilated_windows(shape[2 + i], kernel[i], stride[i], padding[i], dilation[i], ceil) for i in range(len(kernel))]
    return _pool_blocks_with_indices(lw, op, x, windows, out)


def _has_forward_users(value: ir.Value) -> bool:
    """Whether a pool's indices feed anything but a pooling gradient (which recomputes them)."""
    return any(not torch_ir.aten_name(getattr(use.owner, "operation", use.owner)).endswith("_backward") for use in value.uses)


def _max_pool_with_indices(lw: Lowering, x: ir.Value, kernel: list[int], stride: list[int], padding: list[int], ceil: bool,
                           out: ir.RankedTensorType, index_type: ir.RankedTensorType) -> tuple[ir.Value, ir.Value]:
    pool = lw.emit(pd.MaxPoolWithIndicesOp, x, i64_array(kernel), i64_array(stride), i64_array(padding), boolean(ceil), out, index_type)
    return pool.operation.results[0], pool.operation.results[1]


def _pool_blocks_with_indices(lw: Lowering, op: ir.Operation, x: ir.Value, windows: list[Windows], out: ir.RankedTensorType) -> list[Any]:
    """Max pooling over gathered window blocks; the indices (when something reads them)
    are mapped from the block plane back to the input plane through a constant table."""
    blocks = _gather_blocks(lw, x, windows, None)
    if len(op.results) == 1 or not _has_forward_users(op.results[1]):
        pooled = _block_pool(lw, blocks, windows, "max", out)
        return [pooled, None] if len(op.results) > 1 else [pooled]
    widths = [max(len(w) for w in dim_windows) for dim_windows in windows]
    index_type = _result(op, 1)
    pooled, block_indices = _max_pool_with_indices(lw, blocks, widths, widths, [0] * len(widths), False, out, index_type)
    # Block-plane position -> input-plane flat index.
    per_dim = [np.array(_block_indices(w, None)) for w in windows]
    grids = np.meshgrid(*per_dim, indexing="ij")
    input_spatial = shape_of(x)[2:]
    table = np.ravel_multi_index(tuple(grids), input_spatial).reshape(-1).tolist()
    count = math.prod(index_type.shape)
    flat = lw.reshape(block_indices, [count])
    mapped = lw.emit(pd.MultiSliceOp, _index_constant(lw, table), flat, i64(0), tensor_type([count], ir.IntegerType.get_signless(64)))
    return [pooled, lw.reshape(lw.cast(mapped, index_type.element_type), list(index_type.shape))]


def lower_avg_pool(lw: Lowering, op: ir.Operation) -> list[Any]:
    x = _operand(lw, op, 0)
    spatial = len(shape_of(x)) - 2
    kernel, stride, padding = pool_window(lw, op, 1, spatial)
    _check_padding(kernel, padding)
    ceil = lw.const(op.operands[4], "ceil_mode")
    include_pad = lw.const(op.operands[5], "count_include_pad")
    divisor = lw.const(op.operands[6], "divisor_override") if len(op.operands) > 6 else None
    out = _result(op)
    window = (x, i64_array(kernel), i64_array(stride), i64_array(padding), boolean(ceil))
    if divisor is None:
        return [lw.emit(pd.PoolOp, *window, string("avg"), boolean(include_pad), out)]
    if divisor == 0:
        raise Unsupported("divisor_override=0 (PyTorch rejects it: division by zero)")
    # The window sums divided by the override, as ATen's avg_pool computes them (in f32
    # for half-precision inputs, its accumulation type).
    wide = _accumulation_type(out)
    summed = lw.emit(pd.PoolOp, lw.cast(x, wide.element_type), *window[1:], string("sum"), boolean(True), wide)
    return [lw.cast(lw.map(f"div(_1, {literal(float(divisor))})", [summed], wide), out.element_type)]


def lower_max_pool_grad(lw: Lowering, op: ir.Operation) -> list[Any]:
    grad, x = _operand(lw, op, 0), _operand(lw, op, 1)
    shape = shape_of(x)
    kernel, stride, padding, dilation, ceil = _max_windows(lw, op, shape, 2)
    if all(d == 1 for d in dilation):
        return [lw.emit(pd.PoolGradOp, x, i64_array(kernel), i64_array(stride), i64_array(padding), boolean(ceil), string("max"),
                        boolean(True), grad, _result(op))]
    windows = [_dilated_windows(shape[2 + i], kernel[i], stride[i], padding[i], dilation[i], ceil) for i in range(len(kernel))]
    blocks = _gather_blocks(lw, x, windows, None)
    return [_scatter_blocks(lw, _block_pool_grad(lw, blocks, windows, "max", grad), windows, shape, False)]


def lower_avg_pool_grad(lw: Lowering, op: ir.Operation) -> list[Any]:
    grad, x = _operand(lw, op, 0), _operand(lw, op, 1)
    spatial = len(shape_of(x)) - 2
    kernel, stride, padding = pool_window(lw, op, 2, spatial)
    ceil, include = lw.const(op.operands[5], "ceil_mode"), lw.const(op.operands[6], "count_include_pad")
    divisor = None if is_none(op.operands[7]) else lw.const(op.operands[7], "divisor_override")
    window = (x, i64_array(kernel), i64_array(stride), i64_array(padding), boolean(ceil))
    if divisor is None:
        return [lw.emit(pd.PoolGradOp, *window, string("avg"), boolean(include), grad, _result(op))]
    scaled = lw.map(f"div(_1, {literal(float(divisor))})", [grad], grad.type)
    return [lw.emit(pd.PoolGradOp, *window, string("sum"), boolean(True), scaled, _result(op))]


# -- adaptive pooling ------------------------------------------------------------------------
def _adaptive_sizes(lw: Lowering, op: ir.Operation, shape: list[int]) -> list[int]:
    spatial = len(shape) - 2
    sizes = spatial_list(lw.const(op.operands[1], "output_size"), spatial)
    if len(sizes) != spatial:
        raise Unsupported(f"output_size {sizes} for {spatial} spatial dims")
    sizes = [s if s is not None else shape[2 + i] for i, s in enumerate(sizes)]
    if any(s <= 0 for s in sizes):
        raise Unsupported(f"adaptive pooling to output size {sizes}: sizes must be >= 1")
    return sizes


def _equal_windows(shape: list[int], sizes: list[int]) -> list[int] | None:
    """The kernel (= stride) of an adaptive pool whose output sizes divide the input's
    spatial sizes, so one popnn pool with equal windows does it; None otherwise."""
    if all(shape[2 + i] % s == 0 for i, s in enumerate(sizes)):
        return [shape[2 + i] // s for i, s in enumerate(sizes)]
    return None


def lower_adaptive_avg_pool(lw: Lowering, op: ir.Operation) -> list[Any]:
    x = _operand(lw, op, 0)
    shape = shape_of(x)
    sizes = _adaptive_sizes(lw, op, shape)
    out = _result(op)
    if (kernel := _equal_windows(shape, sizes)) is not None:
        return [lw.emit(pd.PoolOp, x, i64_array(kernel), i64_array(kernel), i64_array([0] * len(sizes)), boolean(False),
                        string("avg"), boolean(True), out)]
    windows = [_adaptive_windows(shape[2 + i], s) for i, s in enumerate(sizes)]
    wide = _accumulation_type(out)
    summed = _block_pool(lw, _gather_blocks(lw, lw.cast(x, wide.element_type), windows, 0.0), windows, "sum", wide)
    return [lw.cast(lw.map("div(_1, _2)", [summed, _window_counts(lw, windows, wide.element_type)], wide), out.element_type)]


def lower_adaptive_avg_pool_grad(lw: Lowering, op: ir.Operation) -> list[Any]:
    grad, x = _operand(lw, op, 0), _operand(lw, op, 1)
    shape = shape_of(x)
    sizes = shape_of(grad)[2:]
    if (kernel := _equal_windows(shape, sizes)) is not None:
        return [lw.emit(pd.PoolGradOp, x, i64_array(kernel), i64_array(kernel), i64_array([0] * len(sizes)), boolean(False),
                        string("avg"), boolean(True), grad, _result(op))]
    windows = [_adaptive_windows(shape[2 + i], s) for i, s in enumerate(sizes)]
    scaled = lw.map("div(_1, _2)", [grad, _window_counts(lw, windows, element_of(grad))], grad.type)
    blocks = _gather_blocks(lw, x, windows, 0.0)
    return [_scatter_blocks(lw, _block_pool_grad(lw, blocks, windows, "sum", scaled), windows, shape, True)]


def lower_adaptive_max_pool(lw: Lowering, op: ir.Operation) -> list[Any]:
    x = _operand(lw, op, 0)
    shape = shape_of(x)
    sizes = _adaptive_sizes(lw, op, shape)
    out = _result(op)
    if (kernel := _equal_windows(shape, sizes)) is not None:
        zeros = [0] * len(sizes)
        if len(op.results) > 1 and _has_forward_users(op.results[1]):
            return list(_max_pool_with_indices(lw, x, kernel, kernel, zeros, False, out, _result(op, 1)))
        pooled = lw.emit(pd.PoolOp, x, i64_array(kernel), i64_array(kernel), i64_array(zeros), boolean(False), string("max"), boolean(True), out)
        return [pooled, None] if len(op.results) > 1 else [pooled]
    windows = [_adaptive_windows(shape[2 + i], s) for i, s in enumerate(sizes)]
    return _pool_blocks_with_indices(lw, op, x, windows, out)


def lower_adaptive_max_pool_grad(lw: Lowering, op: ir.Operation) -> list[Any]:
    """From the forward input (the argmax is found again, as ``poolInputGradient`` does)."""
    grad, x = _operand(lw, op, 0), _operand(lw, op, 1)
    shape = shape_of(x)
    sizes = shape_of(grad)[2:]
    if (kernel := _equal_windows(shape, sizes)) is not None:
        return [lw.emit(pd.PoolGradOp, x, i64_array(kernel), i64_array(kernel), i64_array([0] * len(sizes)), boolean(False),
                        string("max"), boolean(True), grad, _result(op))]
    windows = [_adaptive_windows(shape[2 + i], s) for i, s in enumerate(sizes)]
    blocks = _gather_blocks(lw, x, windows, None)
    return [_scatter_blocks(lw, _block_pool_grad(lw, blocks, windows, "max", grad), windows, shape, False)]


def populate(patterns: Registry[Pattern]) -> None:
    """Register the lowerings of this family: pooling and its gradients."""
    patterns.register("torch.aten.max_pool1d", "torch.aten.max_pool2d", "torch.aten.max_pool3d", "torch.aten.max_pool2d_with_indices",
                      "torch.aten.max_pool3d_with_indices")(_accepts_unbatched(lower_max_pool))
    patterns.register("torch.aten.avg_pool1d", "torch.aten.avg_pool2d", "torch.aten.avg_pool3d")(_accepts_unbatched(lower_avg_pool))
    patterns.register("torch.aten.max_pool2d_with_indices_backward", "torch.aten.max_pool3d_with_indices_backward")(_accepts_unbatched(lower_max_pool_grad))
    patterns.register("torch.aten.avg_pool2d_backward", "torch.aten.avg_pool3d_backward")(_accepts_unbatched(lower_avg_pool_grad))
    patterns.register("torch.aten.adaptive_avg_pool1d", "torch.aten.adaptive_avg_pool2d", "torch.aten.adaptive_avg_pool3d",
                      "torch.aten._adaptive_avg_pool2d", "torch.aten._adaptive_avg_pool3d")(_accepts_unbatched(lower_adaptive_avg_pool))
    patterns.register("torch.aten._adaptive_avg_pool2d_backward", "torch.aten._adaptive_avg_pool3d_backward")(_accepts_unbatched(lower_adaptive_avg_pool_grad))
    patterns.register("torch.aten.adaptive_max_pool1d", "torch.aten.adaptive_max_pool2d", "torch.aten.adaptive_max_pool3d")(_accepts_unbatched(lower_adaptive_max_pool))
    patterns.register("torch.aten.adaptive_max_pool2d_backward", "torch.aten.adaptive_max_pool3d_backward")(_accepts_unbatched(lower_adaptive_max_pool_grad))
