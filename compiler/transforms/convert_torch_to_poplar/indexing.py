"""Indexing lowerings: advanced indexing (``index.Tensor``) and indexed assignment
(``index_put``), scatters (``scatter``, ``scatter_add``, ``scatter_reduce``,
``masked_scatter``), the static scatters of functionalised slice assignment
(``select_scatter``, ``slice_scatter``, ``diagonal_scatter``) and the strided views
(``as_strided``, ``diagonal``, ``flip``, ``repeat``, ``unfold``). A captured model's
``as_strided`` reaches the lowering as ``index.Tensor`` with constant indices: torch-mlir's
importer rewrites it against the real storage (``frontend/literals.py``).

Run-time indices become ``popops_multi_slice`` / ``popops_multi_update`` over the indexed
dims folded into one (as PopLibs' multiSlice and multiUpdate take them) and
``popops_scatter``; compile-time positions become views (``slice``, ``concat``,
``reverse``, ``broadcast``) where a view expresses them, else a multi-slice or
multi-update with constant indices.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from torch_mlir import ir

from ipu_mlir.dialects import poplar as pd
from ipu_mlir.support.ir_build import boolean, i64, i64_array, string, tensor_type
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

# scatter_reduce's reduce names -> popops_scatter's combining ops ("mean" is a sum
# divided by a count, both scatters).
_SCATTER_REDUCE = {"sum": "add", "prod": "mul", "amax": "max", "amin": "min"}

_MASK_INDEX = ("a boolean mask index selects a data-dependent number of elements, and IPU programs have "
               "static shapes; keep the shape with torch.where(mask, x, other), or mask a reduction "
               "((x * mask).sum())")


def _i64() -> ir.Type:
    return ir.IntegerType.get_signless(64)


def _is_mask(element: ir.Type) -> bool:
    """A boolean index (or a uint8 one, which torch also reads as a mask)."""
    if not isinstance(element, ir.IntegerType):
        return False
    integer = ir.IntegerType(element)
    return integer.width == 1 or (integer.width == 8 and integer.is_unsigned)


def _index_constant(lw: Lowering, values: np.ndarray) -> ir.Value:
    """An i64 ``poplar.constant`` holding ``values`` (compile-time positions)."""
    type_ = tensor_type(list(values.shape), _i64())
    attr = ir.DenseElementsAttr.get(np.ascontiguousarray(values, dtype=np.int64), type=type_)
    return lw.emit(pd.ConstantOp, attr, i64(0), type_)


def _slice(lw: Lowering, x: ir.Value, dim: int, begin: int, end: int, step: int = 1) -> ir.Value:
    shape = shape_of(x)
    begins, ends, strides = [0] * len(shape), list(shape), [1] * len(shape)
    begins[dim], ends[dim], strides[dim] = begin, end, step
    out = list(shape)
    out[dim] = -(-(end - begin) // step) if end > begin else 0
    return lw.emit(pd.SliceOp, x, i64_array(begins), i64_array(ends), i64_array(strides), tensor_type(out, element_of(x)))


def _optional_tensors(lw: Lowering, value: ir.Value) -> list[ir.Value | None]:
    """The entries of a ``list<optional<vtensor>>`` operand (None for a skipped dim)."""
    owner = value.owner
    if isinstance(owner, ir.Block) or owner.operation.name != "torch.prim.ListConstruct":
        raise Unsupported("an index list that is not built with prim.ListConstruct")
    return [None if torch_ir.is_none(v) else lw.v(v) for v in owner.operation.operands]


# An index operand with negative entries counted from the end of a dim (PopLibs'
# multiSlice and multiUpdate take offsets in [0, size)).
_WRAP = "select(lt({arg}, 0), add({arg}, {size}), {arg})"


def _wrapped(lw: Lowering, index: ir.Value, size: int) -> ir.Value:
    """``index`` as i64 with negative entries counted from the end of a dim of ``size``."""
    index = lw.cast(index, _i64())
    return lw.map(_WRAP.format(arg="_1", size=size), [index], index.type)


class _Advanced:
    """The layout of an advanced index ``x[i0, :, i2]``: which dims the index tensors
    index, their broadcast shape, and the table and flat index a multi-slice or
    multi-update reads (the indexed dims folded into one, moved to the front first when
    they are not adjacent, as torch then puts the index dims in front)."""

    def __init__(self, lw: Lowering, x: ir.Value, indices: list[ir.Value | None]) -> None:
        shape = shape_of(x)
        if len(indices) > len(shape):
            raise Unsupported(f"{len(indices)} indices for a tensor of rank {len(shape)}")
        indices = indices + [None] * (len(shape) - len(indices))
        self.dims = [d for d, t in enumerate(indices) if t is not None]
        if not self.dims:
            raise Unsupported("an index list with no index tensor")
        tensors = [indices[d] for d in self.dims]
        broadcast = pd.broadcast_shapes([shape_of(t) for t in tensors])
        if broadcast is None:
            raise Unsupported(f"index tensors of shapes {[shape_of(t) for t in tensors]}, which do not broadcast")
        self.index_shape: list[int] = broadcast
        self.shape = shape
        self.adjacent = self.dims == list(range(self.dims[0], self.dims[-1] + 1))
        if self.adjacent:
            self.permutation = list(range(len(shape)))
            self.dim = self.dims[0]
        else:
            self.permutation = self.dims + [d for d in range(len(shape)) if d not in self.dims]
            self.dim = 0
        permuted = [shape[p] for p in self.permutation]
        count = len(self.dims)
        # The permuted shape with the indexed dims folded into one.
        self.table_shape = permuted[: self.dim] + [math.prod(shape[d] for d in self.dims)] + permuted[self.dim + count:]
        # What a multi-slice of the table gives: the table's shape with the folded dim
        # replaced by the index shape; torch's result shape, as the indexed dims were
        # adjacent or moved to the front.
        self.sliced_shape = self.table_shape[: self.dim] + self.index_shape + self.table_shape[self.dim + 1:]
        self.flat = self._flat_index(lw, tensors)

    def _flat_index(self, lw: Lowering, tensors: list[ir.Value]) -> ir.Value:
        """The row of the folded dim each index position reads: the row-major offset of
        the (wrapped) indices within the indexed dims, one ``popops_map`` per index tensor
        (the maps broadcast the index tensors to their common shape)."""
        sizes = [self.shape[d] for d in self.dims]
        flat = None
        for k, tensor in enumerate(tensors):
            tensor = lw.cast(tensor, _i64())
            term = _WRAP.format(arg="_1" if flat is None else "_2", size=sizes[k])
            stride = math.prod(sizes[k + 1:])
            if stride != 1:
                term = f"mul({term}, {stride})"
            if flat is None:
                flat = lw.map(term, [tensor], tensor.type)
            else:
                shape = pd.broadcast_shapes([shape_of(flat), shape_of(tensor)])
                flat = lw.map(f"add({term}, _1)", [flat, tensor], tensor_type(shape, _i64()))
        assert flat is not None
        return lw.broadcast(flat, self.index_shape)

    def table(self, lw: Lowering, x: ir.Value) -> ir.Value:
        return lw.reshape(lw.dim_shuffle(x, self.permutation), self.table_shape)

    def untable(self, lw: Lowering, table: ir.Value) -> ir.Value:
        """The inverse of ``table``: back to the tensor's own layout."""
        permuted = lw.reshape(table, [self.shape[p] for p in self.permutation])
        inverse = [self.permutation.index(d) for d in range(len(self.shape))]
        return lw.dim_shuffle(permuted, inverse)


def _check_index_tensors(indices: list[ir.Value | None]) -> None:
    for t in indices:
        if t is not None and _is_mask(element_of(t)):
            raise Unsupported(_MASK_INDEX)
        if t is not None and not isinstance(element_of(t), ir.IntegerType):
            raise Unsupported(f"an index tensor of element type {element_of(t)} (indices must be integers)")


def lower_index(lw: Lowering, op: ir.Operation) -> list[Any]:
    """``x[i0, None, i2]``: one ``popops_multi_slice`` of the indexed dims folded into one."""
    x = lw.v(op.operands[0])
    indices = _optional_tensors(lw, op.operands[1])
    _check_index_tensors(indices)
    out = result_type(op)
    if all(t is None for t in indices) and math.prod(shape_of(x)) == math.prod(out.shape):
        # x[()] / x[:, :]: nothing indexed (torch-mlir's as_strided rewrite of a 0-d
        # tensor as a [1] view makes one with a shape of one element).
        return [lw.reshape(x, out.shape)]
    advanced = _Advanced(lw, x, indices)
    sliced_type = tensor_type(advanced.sliced_shape, element_of(x))
    if list(out.shape) != advanced.sliced_shape:
        raise Unsupported(f"x[indices] of shape {list(out.shape)}, where the indices give {advanced.sliced_shape}")
    return [lw.emit(pd.MultiSliceOp, advanced.table(lw, x), advanced.flat, i64(advanced.dim), sliced_type)]


def lower_index_put(lw: Lowering, op: ir.Operation) -> list[Any]:
    """``x[i0, :, i2] = v`` (``accumulate``: ``+=``): one ``popops_multi_update`` of the
    indexed dims folded into one; a boolean mask index: a select."""
    x = lw.v(op.operands[0])
    indices = _optional_tensors(lw, op.operands[1])
    values = lw.cast(lw.v(op.operands[2]), element_of(x))
    accumulate = bool(lw.const(op.operands[3], "accumulate"))
    masks = [t for t in indices if t is not None and _is_mask(element_of(t))]
    if masks:
        return [_masked_put(lw, x, indices, values, accumulate)]
    _check_index_tensors(indices)
    advanced = _Advanced(lw, x, indices)
    # x[indices] has the shape a multi-slice of the table gives (torch's layout).
    indexed = advanced.sliced_shape
    if pd.broadcast_shapes([shape_of(values), indexed]) != indexed:
        raise Unsupported(f"values of shape {shape_of(values)} do not broadcast to the indexed shape {indexed}")
    updates = lw.broadcast(values, indexed)
    table = advanced.table(lw, x)
    updated = lw.emit(pd.MultiUpdateOp, table, updates, advanced.flat, i64(advanced.dim),
                      string("add" if accumulate else "copy"), table.type)
    return [advanced.untable(lw, updated)]


def _masked_put(lw: Lowering, x: ir.Value, indices: list[ir.Value | None], values: ir.Value, accumulate: bool) -> ir.Value:
    """``x[mask] = v`` with ``v`` the same for every selected element (a scalar, or a
    value per trailing dim): ``select(mask, v, x)``, static whatever the mask holds."""
    shape = shape_of(x)
    tensors = [(d, t) for d, t in enumerate(indices) if t is not None]
    if len(tensors) != 1:
        raise Unsupported("a boolean mask mixed with other index tensors; " + _MASK_INDEX)
    first, mask = tensors[0]
    mask_shape = shape_of(mask)
    if shape[first:first + len(mask_shape)] != mask_shape:
        raise Unsupported(f"a mask of shape {mask_shape} for dims {first}.. of a tensor of shape {shape}")
    before, after = shape[:first], shape[first + len(mask_shape):]
    # Torch's values shape is before + [number of selected elements] + after; only a
    # values tensor whose count dim is 1 (or absent) is the same for every selection.
    selected = before + [1] + after
    if pd.broadcast_shapes([shape_of(values), selected]) != selected:
        raise Unsupported(f"values of shape {shape_of(values)} for x[mask] = values: the number of selected elements "
                          f"is data-dependent, so only values that broadcast to {selected} (the same values for "
                          "every selected element) have a static lowering; use torch.where(mask, values, x) "
                          "with values of x's shape")
    values = lw.reshape(lw.broadcast(values, selected), before + [1] * len(mask_shape) + after)
    mask = lw.reshape(lw.cast(mask, ir.IntegerType.get_signless(1)), [1] * len(before) + mask_shape + [1] * len(after))
    if accumulate:
        return lw.map("select(_1, add(_3, _2), _3)", [mask, values, x], x.type)
    return lw.map("select(_1, _2, _3)", [mask, values, x], x.type)


def _scatter(lw: Lowering, x: ir.Value, dim: int, index: ir.Value, updates: ir.Value, kind: str, include_self: bool) -> ir.Value:
    return lw.emit(pd.ScatterOp, x, index, updates, i64(dim), string(kind), boolean(include_self), x.type)


def _scatter_operands(lw: Lowering, op: ir.Operation) -> tuple[ir.Value, int, ir.Value]:
    x = lw.v(op.operands[0])
    dim = dim_arg(lw.const(op.operands[1], "dim"), len(shape_of(x)))
    index = lw.v(op.operands[2])
    if _is_mask(element_of(index)) or not isinstance(element_of(index), ir.IntegerType):
        raise Unsupported(f"a scatter index of element type {element_of(index)} (indices must be integers)")
    if len(shape_of(index)) != len(shape_of(x)):
        raise Unsupported(f"a scatter index of rank {len(shape_of(index))} into a tensor of rank {len(shape_of(x))} (they must be equal)")
    return x, dim, index


def _updates(lw: Lowering, src: ir.Value, index: ir.Value, element: ir.Type) -> ir.Value:
    """The part of ``src`` a scatter reads: its leading ``index.shape`` block."""
    src_shape, index_shape = shape_of(src), shape_of(index)
    if len(src_shape) != len(index_shape) or any(i > s for i, s in zip(index_shape, src_shape, strict=True)):
        raise Unsupported(f"a scatter source of shape {src_shape} smaller than its index {index_shape}")
    if src_shape != index_shape:
        begins = [0] * len(src_shape)
        src = lw.emit(pd.SliceOp, src, i64_array(begins), i64_array(index_shape), i64_array([1] * len(src_shape)),
                      tensor_type(index_shape, element_of(src)))
    return lw.cast(src, element)


# torch.scatter's ``reduce`` argument (scatter.reduce, scatter.value_reduce) -> popops_scatter's op.
_SCATTER_ARGUMENT_REDUCE = {"add": "add", "multiply": "mul"}


def _scatter_kind(lw: Lowering, op: ir.Operation) -> str:
    """``copy``, or the combining op of ``scatter_add`` and of torch.scatter's ``reduce``."""
    if torch_ir.aten_name(op).startswith("torch.aten.scatter_add"):
        return "add"
    if len(op.operands) < 5:
        return "copy"
    reduce = lw.const(op.operands[4], "reduce")
    if reduce not in _SCATTER_ARGUMENT_REDUCE:
        raise Unsupported(f"scatter with reduce '{reduce}' (one of 'add', 'multiply')")
    return _SCATTER_ARGUMENT_REDUCE[reduce]


def lower_scatter_src(lw: Lowering, op: ir.Operation) -> list[Any]:
    """``torch.scatter(x, dim, index, src[, reduce])`` and ``scatter_add``: ``popops_scatter``."""
    x, dim, index = _scatter_operands(lw, op)
    updates = _updates(lw, lw.v(op.operands[3]), index, element_of(x))
    return [_scatter(lw, x, dim, index, updates, _scatter_kind(lw, op), True)]


def lower_scatter_value(lw: Lowering, op: ir.Operation) -> list[Any]:
    """``torch.scatter(x, dim, index, value[, reduce])``: a scatter of a splat of ``value``."""
    x, dim, index = _scatter_operands(lw, op)
    value = lw.const(op.operands[3], "scatter value")
    updates = lw.zeros_or_ones(value, shape_of(index), element_of(x))
    return [_scatter(lw, x, dim, index, updates, _scatter_kind(lw, op), True)]


def lower_scatter_reduce(lw: Lowering, op: ir.Operation) -> list[Any]:
    """``scatter_reduce(x, dim, index, src, reduce, include_self)``: ``popops_scatter``;
    ``mean`` as eager computes it: the sum over a count of the values each element got
    (itself included when ``include_self``), a count of 0 read as 1."""
    x, dim, index = _scatter_operands(lw, op)
    updates = _updates(lw, lw.v(op.operands[3]), index, element_of(x))
    reduce = lw.const(op.operands[4], "reduce")
    include_self = bool(lw.const(op.operands[5], "include_self")) if len(op.operands) > 5 else True
    if reduce not in (*_SCATTER_REDUCE, "mean"):
        raise Unsupported(f"scatter_reduce with reduce '{reduce}' (one of 'sum', 'prod', 'mean', 'amax', 'amin')")
    return [_scatter_reduce(lw, x, dim, index, updates, reduce, include_self)]


def _scatter_reduce(lw: Lowering, x: ir.Value, dim: int, index: ir.Value, updates: ir.Value, reduce: str, include_self: bool) -> ir.Value:
    if reduce in _SCATTER_REDUCE:
        return _scatter(lw, x, dim, index, updates, _SCATTER_REDUCE[reduce], include_self)
    element = element_of(x)
    total = _scatter(lw, x, dim, index, updates, "add", include_self)
    base = lw.zeros_or_ones(1 if include_self else 0, shape_of(x), element)
    count = _scatter(lw, base, dim, index, lw.zeros_or_ones(1, shape_of(index), element), "add", True)
    count = lw.map("select(eq(_1, 0), 1, _1)", [count], x.type)
    return lw.map("div(_1, _2)" if is_float(element) else "floor_div(_1, _2)", [total, count], x.type)


def lower_masked_scatter(lw: Lowering, op: ir.Operation) -> list[Any]:
    """``x.masked_scatter(mask, source)``: the k-th selected element (row-major) takes
    ``source.flatten()[k]``. The running count of the mask says which: a
    ``popops_cumulative_sum``, a multi-slice of the source and a select."""
    out = result_type(op)
    x = lw.broadcast(lw.cast(lw.v(op.operands[0]), out.element_type), out.shape)
    mask = lw.v(op.operands[1])
    if not _is_mask(element_of(mask)):
        raise Unsupported(f"masked_scatter with a mask of element type {element_of(mask)} (it must be bool)")
    source = lw.cast(lw.v(op.operands[2]), out.element_type)
    count, available = math.prod(out.shape), math.prod(shape_of(source))
    mask = lw.reshape(lw.broadcast(lw.cast(mask, ir.IntegerType.get_signless(1)), out.shape), [count])
    if available == 0:
        return [x]  # no element can be selected (eager would fail if one were)
    running = lw.emit(pd.CumulativeSumOp, lw.cast(mask, _i64()), i64(0), tensor_type([count], _i64()))
    # Unselected positions read any in-range element: the select drops it.
    position = lw.map(f"clamp(sub(_1, 1), 0, {available - 1})", [running], running.type)
    picked = lw.emit(pd.MultiSliceOp, lw.reshape(source, [available]), position, i64(0), tensor_type([count], out.element_type))
    flat = lw.map("select(_1, _2, _3)", [mask, picked, lw.reshape(x, [count])], tensor_type([count], out.element_type))
    return [lw.reshape(flat, out.shape)]


def lower_masked_scatter_backward(lw: Lowering, op: ir.Operation) -> list[Any]:
    """The gradient of ``masked_scatter``'s source: the selected gradient elements in
    order (``grad.masked_select(mask)``), zeros after them, in the source's shape. The
    running count of the mask says where each goes: a ``popops_multi_update`` into one
    spare row more than the source has, which takes every unselected element."""
    grad = lw.v(op.operands[0])
    mask = lw.v(op.operands[1])
    out = result_type(op)
    if not _is_mask(element_of(mask)):
        raise Unsupported(f"masked_scatter_backward with a mask of element type {element_of(mask)} (it must be bool)")
    count, available = math.prod(shape_of(grad)), math.prod(out.shape)
    if available == 0:
        return [lw.zeros_or_ones(0, out.shape, out.element_type)]
    mask = lw.reshape(lw.broadcast(lw.cast(mask, ir.IntegerType.get_signless(1)), shape_of(grad)), [count])
    running = lw.emit(pd.CumulativeSumOp, lw.cast(mask, _i64()), i64(0), tensor_type([count], _i64()))
    position = lw.map(f"select(_1, min(sub(_2, 1), {available}), {available})", [mask, running], running.type)
    table = lw.zeros_or_ones(0, [available + 1], out.element_type)
    flat = lw.cast(lw.reshape(grad, [count]), out.element_type)
    placed = lw.emit(pd.MultiUpdateOp, table, flat, position, i64(0), string("copy"), table.type)
    return [lw.reshape(_slice(lw, placed, 0, 0, available), out.shape)]


def place_along(lw: Lowering, x: ir.Value, src: ir.Value, dim: int, begin: int, end: int, step: int) -> ir.Value:
    """``x`` with ``src`` in its elements ``begin:end:step`` along ``dim``: views (a
    concat of slices) for a contiguous range, else a ``popops_multi_update`` at
    constant indices. (Also the gradient of a strided slice, in ``backward``.)"""
    size = shape_of(x)[dim]
    src = lw.cast(src, element_of(x))
    if step == 1 or end - begin <= 1:
        pieces = [p for p in (_slice(lw, x, dim, 0, begin), src, _slice(lw, x, dim, min(end, size), size))
                  if shape_of(p)[dim] > 0]
        return lw.concat(pieces, dim) if pieces else x
    positions = _index_constant(lw, np.arange(begin, end, step))
    return lw.emit(pd.MultiUpdateOp, x, src, positions, i64(dim), string("copy"), x.type)


def lower_slice_scatter(lw: Lowering, op: ir.Operation) -> list[Any]:
    """``x[..., start:end:step] = src`` after functionalisation."""
    x, src = lw.v(op.operands[0]), lw.v(op.operands[1])
    shape = shape_of(x)
    dim = dim_arg(lw.const(op.operands[2], "dim"), len(shape))
    start, end = lw.const(op.operands[3], "start"), lw.const(op.operands[4], "end")
    step = lw.const(op.operands[5], "step")
    if step is None or step < 1:
        raise Unsupported(f"slice_scatter with step {step} (it must be >= 1)")
    begin, stop, _ = slice(start, end, step).indices(shape[dim])
    stop = max(stop, begin)
    if shape_of(src)[dim] != len(range(begin, stop, step)):
        raise Unsupported(f"slice_scatter of {shape_of(src)[dim]} elements into the {len(range(begin, stop, step))} of {begin}:{stop}:{step}")
    if shape_of(src)[dim] == 0:
        return [x]
    return [place_along(lw, x, src, dim, begin, stop, step)]


def lower_select_scatter(lw: Lowering, op: ir.Operation) -> list[Any]:
    """``x[..., i] = src`` after functionalisation: a concat of views."""
    x, src = lw.v(op.operands[0]), lw.v(op.operands[1])
    shape = shape_of(x)
    dim = dim_arg(lw.const(op.operands[2], "dim"), len(shape))
    index = lw.const(op.operands[3], "index")
    index = index + shape[dim] if index < 0 else index
    if not 0 <= index < shape[dim]:
        raise Unsupported(f"select_scatter at index {index} of a dim of size {shape[dim]}")
    src = lw.reshape(src, shape[:dim] + [1] + shape[dim + 1:])
    return [place_along(lw, x, src, dim, index, index + 1, 1)]


def _diagonal_plane(lw: Lowering, x: ir.Value, op: ir.Operation, first: int) -> tuple[ir.Value, list[int], int, int, int]:
    """``x`` with dims ``dim1``, ``dim2`` (operands ``first + 1``, ``first + 2``) moved
    last and folded into one, the permutation, and where its diagonal ``offset``
    (operand ``first``) lies in the folded dim: (begin, count, stride)."""
    shape = shape_of(x)
    offset = lw.const(op.operands[first], "offset")
    dim1 = dim_arg(lw.const(op.operands[first + 1], "dim1"), len(shape))
    dim2 = dim_arg(lw.const(op.operands[first + 2], "dim2"), len(shape))
    if dim1 == dim2:
        raise Unsupported(f"a diagonal of dims {dim1} and {dim2} (they must differ)")
    permutation = [d for d in range(len(shape)) if d not in (dim1, dim2)] + [dim1, dim2]
    rows, cols = shape[dim1], shape[dim2]
    count = max(0, min(rows, cols - offset) if offset >= 0 else min(rows + offset, cols))
    begin = offset if offset >= 0 else -offset * cols
    plane = lw.reshape(lw.dim_shuffle(x, permutation), [shape[p] for p in permutation[:-2]] + [rows * cols])
    return plane, permutation, begin, count, cols + 1


def lower_diagonal(lw: Lowering, op: ir.Operation) -> list[Any]:
    """``torch.diagonal(x, offset, dim1, dim2)``: views: the two dims moved last and
    folded, then a strided slice (stride columns + 1)."""
    x = lw.v(op.operands[0])
    plane, _, begin, count, stride = _diagonal_plane(lw, x, op, 1)
    last = len(shape_of(plane)) - 1
    if count == 0:
        return [_slice(lw, plane, last, 0, 0)]
    return [_slice(lw, plane, last, begin, begin + (count - 1) * stride + 1, stride)]


def lower_diagonal_scatter(lw: Lowering, op: ir.Operation) -> list[Any]:
    """``x.diagonal(offset, dim1, dim2) = src`` after functionalisation (and the gradient
    of ``diagonal``): the strided positions of the folded plane get ``src``."""
    x, src = lw.v(op.operands[0]), lw.v(op.operands[1])
    shape = shape_of(x)
    plane, permutation, begin, count, stride = _diagonal_plane(lw, x, op, 2)
    if shape_of(src)[-1:] != [count]:
        raise Unsupported(f"diagonal_scatter of a source of shape {shape_of(src)} into a diagonal of {count} elements")
    if count == 0:
        return [x]
    placed = place_along(lw, plane, src, len(shape_of(plane)) - 1, begin, begin + (count - 1) * stride + 1, stride)
    permuted = lw.reshape(placed, [shape[p] for p in permutation])
    return [lw.dim_shuffle(permuted, [permutation.index(d) for d in range(len(shape))])]


def lower_flip(lw: Lowering, op: ir.Operation) -> list[Any]:
    """``torch.flip(x, dims)``: the ``reverse`` view."""
    x = lw.v(op.operands[0])
    rank = len(shape_of(x))
    dims = sorted({dim_arg(d, rank) for d in lw.const(op.operands[1], "dims")})
    dims = [d for d in dims if rank and shape_of(x)[d] > 1]
    if not dims:
        return [x]
    return [lw.emit(pd.ReverseOp, x, i64_array(dims), x.type)]


def lower_repeat(lw: Lowering, op: ir.Operation) -> list[Any]:
    """``x.repeat(r0, r1, ...)``: views: a size-1 dim before each dim, broadcast to the
    repeat count, folded into the dim (as ``Tensor::broadcast(n, dim)`` tiles)."""
    x = lw.v(op.operands[0])
    repeats = lw.const(op.operands[1], "repeats")
    shape = shape_of(x)
    if len(repeats) < len(shape):
        raise Unsupported(f"repeat with {len(repeats)} counts for a tensor of rank {len(shape)} (it needs at least one per dim)")
    if any(r < 0 for r in repeats):
        raise Unsupported(f"repeat with negative counts {repeats}")
    shape = [1] * (len(repeats) - len(shape)) + shape
    out = result_type(op)
    if math.prod(out.shape) == 0:
        return [lw.zeros_or_ones(0, out.shape, out.element_type)]
    interleaved = [v for s in shape for v in (1, s)]
    tiled = [v for r, s in zip(repeats, shape, strict=True) for v in (r, s)]
    return [lw.reshape(lw.broadcast(lw.reshape(x, interleaved), tiled), out.shape)]


def _windows(lw: Lowering, op: ir.Operation, shape: list[int], first: int) -> tuple[int, int, int, int]:
    """(dim, size, step, count) of ``unfold`` / ``unfold_backward`` (operands ``first`` to
    ``first + 2``) over a tensor of ``shape``: ``count`` windows of ``size`` elements,
    ``step`` apart, along ``dim``."""
    dim = dim_arg(lw.const(op.operands[first], "dimension"), len(shape))
    size, step = lw.const(op.operands[first + 1], "size"), lw.const(op.operands[first + 2], "step")
    length = shape[dim] if shape else 1
    if step < 1 or not 0 <= size <= length:
        raise Unsupported(f"unfold with size {size} and step {step} along a dim of {length} elements")
    return dim, size, step, (length - size) // step + 1


def _window_positions(lw: Lowering, size: int, step: int, count: int) -> ir.Value:
    """The constant ``[count, size]`` element positions of the windows."""
    return _index_constant(lw, np.arange(count)[:, None] * step + np.arange(size)[None, :])


def lower_unfold(lw: Lowering, op: ir.Operation) -> list[Any]:
    """``x.unfold(dim, size, step)``: windows along ``dim`` in a new last dim. Windows
    that do not overlap are views (a slice and a reshape); overlapping ones a
    ``popops_multi_slice`` at the constant window positions."""
    x = lw.v(op.operands[0])
    shape = shape_of(x)
    out = result_type(op)
    if not shape:
        return [lw.reshape(x, out.shape)]
    dim, size, step, count = _windows(lw, op, shape, 1)
    if size == step:
        blocks = lw.reshape(_slice(lw, x, dim, 0, count * size), shape[:dim] + [count, size] + shape[dim + 1:])
    else:
        blocks = lw.emit(pd.MultiSliceOp, x, _window_positions(lw, size, step, count), i64(dim),
                         tensor_type(shape[:dim] + [count, size] + shape[dim + 1:], element_of(x)))
    rank = len(shape) + 1
    last = [d for d in range(rank) if d != dim + 1] + [dim + 1]  # the window dim goes last
    return [lw.dim_shuffle(blocks, last)]


def lower_unfold_backward(lw: Lowering, op: ir.Operation) -> list[Any]:
    """The gradient of ``unfold``: each window's gradient added at its elements, a
    ``popops_multi_update`` (add) into zeros at the constant window positions."""
    grad = lw.v(op.operands[0])
    out = result_type(op)
    shape = list(out.shape)
    if not shape:
        return [lw.reshape(grad, shape)]
    dim, size, step, count = _windows(lw, op, shape, 2)
    rank = len(shape) + 1
    # [..., count, ..., size] -> [..., count, size, ...]: the layout a multi-update takes.
    order = list(range(dim + 1)) + [rank - 1] + list(range(dim + 1, rank - 1))
    updates = lw.cast(lw.dim_shuffle(grad, order), out.element_type)
    zeros = lw.zeros_or_ones(0, shape, out.element_type)
    return [lw.emit(pd.MultiUpdateOp, zeros, updates, _window_positions(lw, size, step, count), i64(dim), string("add"), zeros.type)]


def lower_put(lw: Lowering, op: ir.Operation) -> list[Any]:
    """``x.put(index, source, accumulate)`` (and the gradient of ``torch.take``): a
    ``popops_multi_update`` of the flat tensor at the (wrapped) flat indices."""
    x = lw.v(op.operands[0])
    index, source = lw.v(op.operands[1]), lw.v(op.operands[2])
    accumulate = bool(lw.const(op.operands[3], "accumulate"))
    _check_index_tensors([index])
    numel = math.prod(shape_of(x))
    if math.prod(shape_of(index)) != math.prod(shape_of(source)):
        raise Unsupported(f"put of a source of shape {shape_of(source)} at an index of shape {shape_of(index)} (they must have as many elements)")
    flat_index = lw.reshape(_wrapped(lw, index, numel), [math.prod(shape_of(index))])
    flat_source = lw.reshape(lw.cast(source, element_of(x)), shape_of(flat_index))
    flat = lw.reshape(x, [numel])
    placed = lw.emit(pd.MultiUpdateOp, flat, flat_source, flat_index, i64(0), string("add" if accumulate else "copy"), flat.type)
    return [lw.reshape(placed, shape_of(x))]


def lower_take(lw: Lowering, op: ir.Operation) -> list[Any]:
    """``torch.take(x, index)``: a ``popops_multi_slice`` of the flat tensor at the
    (wrapped) flat indices."""
    x, index = lw.v(op.operands[0]), lw.v(op.operands[1])
    _check_index_tensors([index])
    out = result_type(op)
    numel = math.prod(shape_of(x))
    return [lw.emit(pd.MultiSliceOp, lw.reshape(x, [numel]), _wrapped(lw, index, numel), i64(0), out)]


def _strided_positions(lw: Lowering, op: ir.Operation, first: int, numel: int) -> np.ndarray:
    """The element positions ``as_strided(size, stride, storage_offset)`` (operands
    ``first`` to ``first + 2``) reads from a row-major tensor of ``numel`` elements."""
    size, stride = lw.const(op.operands[first], "size"), lw.const(op.operands[first + 1], "stride")
    offset = lw.const(op.operands[first + 2], "storage_offset") if len(op.operands) > first + 2 else None
    offset = offset or 0
    if len(size) != len(stride) or any(v < 0 for v in [*size, *stride, offset]):
        raise Unsupported(f"as_strided with size {size}, stride {stride} and offset {offset}")
    positions = np.full(size, offset, dtype=np.int64)
    for k, (n, s) in enumerate(zip(size, stride, strict=True)):
        shape = [1] * len(size)
        shape[k] = n
        positions = positions + (np.arange(n, dtype=np.int64) * s).reshape(shape)
    if positions.size and int(positions.max()) >= numel:
        raise Unsupported(f"as_strided reads element {int(positions.max())} of a tensor of {numel} elements "
                          f"(size {size}, stride {stride}, offset {offset})")
    return positions


def lower_as_strided(lw: Lowering, op: ir.Operation) -> list[Any]:
    """``x.as_strided(size, stride, offset)`` over ``x``'s row-major elements (its
    storage in value semantics): a slice when they are one contiguous run, else a
    ``popops_multi_slice`` of the flat tensor at the constant positions. (Models captured
    by the frontend never get here: torch-mlir's importer rewrites as_strided into
    index.Tensor against the real storage.)"""
    x = lw.v(op.operands[0])
    out = result_type(op)
    numel = math.prod(shape_of(x))
    positions = _strided_positions(lw, op, 1, numel)
    flat = lw.reshape(x, [numel])
    if positions.size == 0:
        return [lw.zeros_or_ones(0, out.shape, out.element_type)]
    start = int(positions.flat[0])
    if np.array_equal(positions.reshape(-1), np.arange(start, start + positions.size)):
        return [lw.reshape(_slice(lw, flat, 0, start, start + positions.size), out.shape)]
    return [lw.emit(pd.MultiSliceOp, flat, _index_constant(lw, positions), i64(0), out)]


def lower_as_strided_scatter(lw: Lowering, op: ir.Operation) -> list[Any]:
    """``x.as_strided(size, stride, offset) = src`` after functionalisation (and the
    gradient of ``as_strided``): a ``popops_multi_update`` of the flat tensor at the
    constant positions."""
    x, src = lw.v(op.operands[0]), lw.v(op.operands[1])
    numel = math.prod(shape_of(x))
    positions = _strided_positions(lw, op, 2, numel).reshape(-1)
    if positions.size == 0:
        return [x]
    if math.prod(shape_of(src)) != positions.size:
        raise Unsupported(f"as_strided_scatter of a source of shape {shape_of(src)} into {positions.size} positions")
    flat = lw.reshape(x, [numel])
    updates = lw.reshape(lw.cast(src, element_of(x)), [positions.size])
    placed = lw.emit(pd.MultiUpdateOp, flat, updates, _index_constant(lw, positions), i64(0), string("copy"), flat.type)
    return [lw.reshape(placed, shape_of(x))]


def lower_index_reduce(lw: Lowering, op: ir.Operation) -> list[Any]:
    """``x.index_reduce(dim, index, source, reduce, include_self)``: the scatter of
    ``scatter_reduce`` with the index repeated along the other dims of ``source``."""
    x = lw.v(op.operands[0])
    out_shape = shape_of(x)
    index, source = lw.v(op.operands[2]), lw.v(op.operands[3])
    if not out_shape:  # a 0-d tensor indexes as one of one element
        x, source = lw.reshape(x, [1]), lw.reshape(source, [math.prod(shape_of(source))])
    shape = shape_of(x)
    dim = dim_arg(lw.const(op.operands[1], "dim"), len(shape))
    _check_index_tensors([index])
    source_shape = shape_of(source)
    if len(shape_of(index)) > 1 or len(source_shape) != len(shape):
        raise Unsupported(f"index_reduce with an index of shape {shape_of(index)} and a source of shape {source_shape}")
    along = [1] * len(shape)
    along[dim] = source_shape[dim]
    spread = lw.broadcast(lw.reshape(_wrapped(lw, index, shape[dim]), along), source_shape)
    reduce = lw.const(op.operands[4], "reduce")
    include_self = bool(lw.const(op.operands[5], "include_self")) if len(op.operands) > 5 else True
    if reduce not in ("prod", "mean", "amax", "amin"):
        raise Unsupported(f"index_reduce with reduce '{reduce}' (one of 'prod', 'mean', 'amax', 'amin')")
    reduced = _scatter_reduce(lw, x, dim, spread, lw.cast(source, element_of(x)), reduce, include_self)
    return [lw.reshape(reduced, out_shape)]


def _index_grid(lw: Lowering, op: ir.Operation, upper: bool) -> list[Any]:
    """``torch.tril_indices`` / ``triu_indices(row, col, offset)``: a constant."""
    out = result_type(op)
    rows, cols = lw.const(op.operands[0], "row"), lw.const(op.operands[1], "col")
    offset = lw.const(op.operands[2], "offset") if len(op.operands) > 2 else 0
    grid = np.triu(np.ones((rows, cols), dtype=bool), offset) if upper else np.tril(np.ones((rows, cols), dtype=bool), offset)
    positions = np.stack(np.nonzero(grid)).astype(np.int64)
    if list(positions.shape) != list(out.shape):
        raise Unsupported(f"{'triu' if upper else 'tril'}_indices of shape {list(out.shape)}, where the grid gives {list(positions.shape)}")
    return [lw.cast(_index_constant(lw, positions), out.element_type)]


def lower_tril_indices(lw: Lowering, op: ir.Operation) -> list[Any]:
    return _index_grid(lw, op, upper=False)


def lower_triu_indices(lw: Lowering, op: ir.Operation) -> list[Any]:
    return _index_grid(lw, op, upper=True)


def populate(patterns: Registry[Pattern]) -> None:
    """Register the lowerings of this family: advanced indexing, indexed assignment,
    scatters, static scatters and strided views."""
    patterns.register("torch.aten.index.Tensor", "torch.aten._unsafe_index.Tensor")(lower_index)
    patterns.register("torch.aten.index_put", "torch.aten._unsafe_index_put")(lower_index_put)
    patterns.register("torch.aten.scatter.src", "torch.aten.scatter.reduce", "torch.aten.scatter_add")(lower_scatter_src)
    patterns.register("torch.aten.scatter.value", "torch.aten.scatter.value_reduce")(lower_scatter_value)
    patterns.register("torch.aten.scatter_reduce.two")(lower_scatter_reduce)
    patterns.register("torch.aten.masked_scatter")(lower_masked_scatter)
    patterns.register("torch.aten.masked_scatter_backward")(lower_masked_scatter_backward)
    patterns.register("torch.aten.slice_scatter")(lower_slice_scatter)
    patterns.register("torch.aten.select_scatter")(lower_select_scatter)
    patterns.register("torch.aten.diagonal")(lower_diagonal)
    patterns.register("torch.aten.diagonal_scatter")(lower_diagonal_scatter)
    patterns.register("torch.aten.flip")(lower_flip)
    patterns.register("torch.aten.repeat")(lower_repeat)
    patterns.register("torch.aten.unfold")(lower_unfold)
    patterns.register("torch.aten.unfold_backward")(lower_unfold_backward)
    patterns.register("torch.aten.put")(lower_put)
    patterns.register("torch.aten.take")(lower_take)
    patterns.register("torch.aten.as_strided")(lower_as_strided)
    patterns.register("torch.aten.as_strided_scatter")(lower_as_strided_scatter)
    patterns.register("torch.aten.index_reduce")(lower_index_reduce)
    patterns.register("torch.aten.tril_indices")(lower_tril_indices)
    patterns.register("torch.aten.triu_indices")(lower_triu_indices)
