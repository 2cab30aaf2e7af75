"""Data-movement lowerings: views (reshape, permute, expand), slices, gathers,
concatenation, padding, tensor lists, copies, and constant tensors (literals, full, arange)."""

from __future__ import annotations

import math
from typing import Any

from torch_mlir import ir

from ipu_mlir.dialects import poplar as pd
from ipu_mlir.support.ir_build import boolean, f64, i64, i64_array, tensor_type
from ipu_mlir.support.registry import Registry

from ... import torch_ir
from ...lowering import (
    Lowering,
    Pattern,
    Unsupported,
    dim_arg,
    element_of,
    is_float,
    literal,
    result_type,
    shape_of,
)


def lower_identity(lw: Lowering, op: ir.Operation) -> list[Any]:
    """Copies and aliases: values are immutable here, so the input itself."""
    return [lw.v(op.operands[0])]


def lower_reshape(lw: Lowering, op: ir.Operation) -> list[Any]:
    out = result_type(op)
    return [lw.reshape(lw.v(op.operands[0]), out.shape)]


def lower_permute(lw: Lowering, op: ir.Operation) -> list[Any]:
    x = lw.v(op.operands[0])
    rank = len(shape_of(x))
    perm = [dim_arg(d, rank) for d in lw.const(op.operands[1], "permutation")]
    return [lw.dim_shuffle(x, perm)]


def lower_transpose(lw: Lowering, op: ir.Operation) -> list[Any]:
    x = lw.v(op.operands[0])
    rank = len(shape_of(x))
    if rank < 2:
        return [x]
    if len(op.operands) >= 3:
        a, b = (dim_arg(lw.const(v, "dim"), rank) for v in op.operands[1:3])
    else:
        a, b = 0, 1
    perm = list(range(rank))
    perm[a], perm[b] = perm[b], perm[a]
    return [lw.dim_shuffle(x, perm)]


def lower_expand(lw: Lowering, op: ir.Operation) -> list[Any]:
    out = result_type(op)
    return [lw.broadcast(lw.v(op.operands[0]), out.shape)]


def lower_broadcast_tensors(lw: Lowering, op: ir.Operation) -> list[Any]:
    tensors = lw.list_operand(op.operands[0])
    shape = pd.broadcast_shapes([shape_of(t) for t in tensors])
    if shape is None:
        raise Unsupported("tensors whose shapes do not broadcast")
    return [[lw.broadcast(t, shape) for t in tensors]]


def lower_slice(lw: Lowering, op: ir.Operation) -> list[Any]:
    x = lw.v(op.operands[0])
    shape = shape_of(x)
    dim = dim_arg(lw.const(op.operands[1], "dim"), len(shape))
    start = lw.const(op.operands[2], "start")
    end = lw.const(op.operands[3], "end")
    step = lw.const(op.operands[4], "step")
    begin_i, end_i, step_i = slice(start, end, step).indices(shape[dim])
    begin, stop, stride = [0] * len(shape), list(shape), [1] * len(shape)
    begin[dim], stop[dim], stride[dim] = begin_i, max(end_i, begin_i), step_i
    return [lw.emit(pd.SliceOp, x, i64_array(begin), i64_array(stop), i64_array(stride), result_type(op))]


def lower_narrow(lw: Lowering, op: ir.Operation) -> list[Any]:
    """``narrow_copy(x, dim, start, length)``: the slice ``start:start + length``."""
    x = lw.v(op.operands[0])
    shape = shape_of(x)
    dim = dim_arg(lw.const(op.operands[1], "dim"), len(shape))
    start, length = lw.const(op.operands[2], "start"), lw.const(op.operands[3], "length")
    start = start + shape[dim] if start < 0 else start
    if not (0 <= start and length >= 0 and start + length <= shape[dim]):
        raise Unsupported(f"narrow of {length} elements from {start} along a dim of {shape[dim]}")
    begin, stop, stride = [0] * len(shape), list(shape), [1] * len(shape)
    begin[dim], stop[dim] = start, start + length
    return [lw.emit(pd.SliceOp, x, i64_array(begin), i64_array(stop), i64_array(stride), result_type(op))]


def lower_select(lw: Lowering, op: ir.Operation) -> list[Any]:
    x = lw.v(op.operands[0])
    shape = shape_of(x)
    dim = dim_arg(lw.const(op.operands[1], "dim"), len(shape))
    index = lw.const(op.operands[2], "index")
    index = index + shape[dim] if index < 0 else index
    begin, stop, stride = [0] * len(shape), list(shape), [1] * len(shape)
    begin[dim], stop[dim] = index, index + 1
    sliced_shape = list(shape)
    sliced_shape[dim] = 1
    sliced = lw.emit(pd.SliceOp, x, i64_array(begin), i64_array(stop), i64_array(stride), tensor_type(sliced_shape, element_of(x)))
    return [lw.reshape(sliced, result_type(op).shape)]


def lower_cat(lw: Lowering, op: ir.Operation) -> list[Any]:
    out = result_type(op)
    tensors = lw.list_operand(op.operands[0])
    dim = dim_arg(lw.const(op.operands[1], "dim"), len(out.shape))
    tensors = [lw.cast(t, out.element_type) for t in tensors if math.prod(shape_of(t)) > 0 or len(tensors) == 1]
    if not tensors:  # every piece empty (glu's gradient of a [0, 2] input): an empty result
        return [lw.zeros_or_ones(0, out.shape, out.element_type)]
    return [lw.reshape(lw.concat(tensors, dim), out.shape)]


def lower_stack(lw: Lowering, op: ir.Operation) -> list[Any]:
    out = result_type(op)
    tensors = lw.list_operand(op.operands[0])
    dim = dim_arg(lw.const(op.operands[1], "dim"), len(out.shape))
    expanded = []
    for t in tensors:
        shape = shape_of(t)
        expanded.append(lw.cast(lw.reshape(t, shape[:dim] + [1] + shape[dim:]), out.element_type))
    return [lw.concat(expanded, dim)]


def lower_split(lw: Lowering, op: ir.Operation) -> list[Any]:
    x = lw.v(op.operands[0])
    shape = shape_of(x)
    name = torch_ir.aten_name(op)
    if name == "torch.aten.unbind.int":
        dim = dim_arg(lw.const(op.operands[1], "dim"), len(shape))
        sizes = [1] * shape[dim]
    else:
        dim = dim_arg(lw.const(op.operands[2], "dim"), len(shape))
        arg = lw.const(op.operands[1], "split size")
        if name == "torch.aten.chunk":
            size = -(-shape[dim] // arg)
            sizes = [min(size, shape[dim] - i) for i in range(0, shape[dim], size)]
        elif isinstance(arg, list):
            sizes = arg
        else:
            sizes = [min(arg, shape[dim] - i) for i in range(0, shape[dim], arg)]
    pieces, offset = [], 0
    for size in sizes:
        begin, stop, stride = [0] * len(shape), list(shape), [1] * len(shape)
        begin[dim], stop[dim] = offset, offset + size
        piece_shape = list(shape)
        piece_shape[dim] = size
        piece = lw.emit(pd.SliceOp, x, i64_array(begin), i64_array(stop), i64_array(stride), tensor_type(piece_shape, element_of(x)))
        if name == "torch.aten.unbind.int":
            piece = lw.reshape(piece, shape[:dim] + shape[dim + 1 :])
        pieces.append(piece)
        offset += size
    return [pieces]


def lower_list_construct(lw: Lowering, op: ir.Operation) -> list[Any]:
    if all(torch_ir.is_vtensor(v.type) for v in op.operands) and op.operands:
        return [[lw.v(v) for v in op.operands]]
    return [None]  # a constant list: read by users through constant_value


def lower_list_unpack(lw: Lowering, op: ir.Operation) -> list[Any]:
    items = lw.values.get(op.operands[0])
    if not isinstance(items, list):
        raise Unsupported("unpacking a list this lowering did not produce")
    return list(items)


def lower_getitem(lw: Lowering, op: ir.Operation) -> list[Any]:
    items = lw.values.get(op.operands[0])
    index = lw.const(op.operands[1], "list index")
    if not isinstance(items, list):
        raise Unsupported("indexing a list this lowering did not produce")
    return [items[index]]


def lower_gather(lw: Lowering, op: ir.Operation) -> list[Any]:
    x = lw.v(op.operands[0])
    dim = dim_arg(lw.const(op.operands[1], "dim"), len(shape_of(x)))
    return [lw.emit(pd.GatherOp, x, lw.v(op.operands[2]), i64(dim), result_type(op))]


def lower_index_select(lw: Lowering, op: ir.Operation) -> list[Any]:
    """``index_select``: a multi-slice; a 0-d index picks one slice (the dim stays), a
    0-d tensor is a tensor of one element."""
    x, index, out = lw.v(op.operands[0]), lw.v(op.operands[2]), result_type(op)
    dim = dim_arg(lw.const(op.operands[1], "dim"), len(shape_of(x)))
    x = lw.reshape(x, shape_of(x) or [1])
    index = lw.reshape(index, [math.prod(shape_of(index))])
    shape = shape_of(x)
    sliced = tensor_type(shape[:dim] + shape_of(index) + shape[dim + 1:], out.element_type)
    return [lw.reshape(lw.emit(pd.MultiSliceOp, x, index, i64(dim), sliced), out.shape)]


def lower_embedding(lw: Lowering, op: ir.Operation) -> list[Any]:
    return [lw.emit(pd.MultiSliceOp, lw.v(op.operands[0]), lw.v(op.operands[1]), i64(0), result_type(op))]


def lower_pad(lw: Lowering, op: ir.Operation) -> list[Any]:
    x = lw.v(op.operands[0])
    pads = lw.const(op.operands[1], "padding")
    value = lw.const(op.operands[2], "pad value") if len(op.operands) > 2 else 0.0
    rank = len(shape_of(x))
    low, high = [0] * rank, [0] * rank
    for i in range(len(pads) // 2):
        low[rank - 1 - i], high[rank - 1 - i] = pads[2 * i], pads[2 * i + 1]
    if any(p < 0 for p in low + high):  # negative padding crops (the gradient of a pad): a slice first
        shape = shape_of(x)
        begin, end = [max(-p, 0) for p in low], [s + min(p, 0) for s, p in zip(shape, high, strict=True)]
        if any(b > e for b, e in zip(begin, end, strict=True)):
            raise Unsupported(f"padding {pads} crops more than the {shape} tensor holds")
        cropped = tensor_type([e - b for b, e in zip(begin, end, strict=True)], element_of(x))
        x = lw.emit(pd.SliceOp, x, i64_array(begin), i64_array(end), i64_array([1] * rank), cropped)
        low, high = [max(p, 0) for p in low], [max(p, 0) for p in high]
    return [lw.emit(pd.PadOp, x, i64_array(low), i64_array(high), f64(value or 0.0), result_type(op))]


def lower_resize(lw: Lowering, op: ir.Operation) -> list[Any]:
    """resize (self, size, memory_format) and resize_ (``x.resize_(size)``,
    ``x.resize_as_(y)``): the result holds self's first elements in row-major order, as
    eager's storage does; a resize that grows the tensor leaves the new elements
    uninitialised in eager (no program may depend on them) and zero on the IPU, as
    ``empty`` does."""
    x, out = lw.v(op.operands[0]), result_type(op)
    have, want = math.prod(shape_of(x)), math.prod(out.shape)
    flat = lw.reshape(x, [have])
    if want < have:
        flat = lw.emit(pd.SliceOp, flat, i64_array([0]), i64_array([want]), i64_array([1]), tensor_type([want], element_of(x)))
    elif want > have:
        zeros = lw.zeros_or_ones(0, [want - have], element_of(x))
        flat = lw.concat([flat, zeros], 0) if have else zeros
    return [lw.reshape(flat, out.shape)]


def lower_nonzero_static(lw: Lowering, op: ir.Operation) -> list[Any]:
    """nonzero_static (self, size, fill_value): the coordinates of self's first ``size``
    non-zero elements in row-major order (an int64 ``[size, rank]`` tensor, as ``nonzero``),
    rows past the non-zero count filled with ``fill_value``. A stable ``popops_sort_key_value``
    of the keys "element is zero" (0 / 1) carries the flat positions of the non-zero elements
    to the front; each coordinate is ``position // stride % extent``."""
    x, out = lw.v(op.operands[0]), result_type(op)
    size, fill = lw.const(op.operands[1], "size"), lw.const(op.operands[2], "fill_value")
    shape = shape_of(x)
    n, rank, index = math.prod(shape), len(shape), out.element_type
    if size == 0 or rank == 0 and n == 0:
        return [lw.zeros_or_ones(fill, out.shape, index)]
    if rank == 0:  # a scalar has no coordinate: [size, 0]
        return [lw.zeros_or_ones(0, out.shape, index)]
    if n == 0:
        return [lw.zeros_or_ones(fill, out.shape, index)]
    flat = lw.reshape(x, [n])
    zero = "not(_1)" if isinstance(element_of(x), ir.IntegerType) and ir.IntegerType(element_of(x)).width == 1 else "eq(_1, 0)"
    keys = lw.cast(lw.map(zero, [flat], tensor_type([n], ir.IntegerType.get_signless(1))), index)
    vector = tensor_type([n], index)
    iota = lw.emit(pd.ConstantOp, ir.DenseElementsAttr.get([ir.IntegerAttr.get(index, i) for i in range(n)], type=vector), i64(0), vector)
    sort = lw.emit(pd.SortKeyValueOp, keys, iota, i64(0), boolean(False), boolean(True), vector, vector)
    is_zero, positions = list(sort.operation.results)
    taken = min(size, n)
    if taken < n:
        part = tensor_type([taken], index)
        is_zero, positions = (lw.emit(pd.SliceOp, t, i64_array([0]), i64_array([taken]), i64_array([1]), part) for t in (is_zero, positions))
    if size > n:  # more rows than elements: the rest are padding
        is_zero = lw.concat([is_zero, lw.zeros_or_ones(1, [size - n], index)], 0)
        positions = lw.concat([positions, lw.zeros_or_ones(0, [size - n], index)], 0)
    column = tensor_type([size], index)
    columns = []
    for dim in range(rank):
        stride = math.prod(shape[dim + 1 :])
        expr = f"select(eq(_2, 1), {literal(int(fill))}, rem(floor_div(_1, {stride}), {shape[dim]}))"
        columns.append(lw.reshape(lw.map(expr, [positions, is_zero], column), [size, 1]))
    return [lw.concat(columns, 1) if rank > 1 else columns[0]]


def lower_literal(lw: Lowering, op: ir.Operation) -> list[Any]:
    out = result_type(op)
    attr = op.attributes["value"]
    if isinstance(attr, ir.DenseElementsAttr | ir.DenseResourceElementsAttr) and attr.type != out:
        attr = _retype_dense(attr, out)
    return [lw.emit(pd.ConstantOp, attr, i64(0), out)]


def _retype_dense(attr: ir.DenseElementsAttr, out: ir.RankedTensorType) -> ir.Attribute:
    text = str(attr)
    body = text[: text.rindex(":")].strip()
    return ir.Attribute.parse(f"{body} : {out}")


def lower_full(lw: Lowering, op: ir.Operation) -> list[Any]:
    out = result_type(op)
    name = torch_ir.aten_name(op)
    if name.endswith("zeros") or name.endswith("zeros_like"):
        value = 0
    elif name.endswith("ones") or name.endswith("ones_like"):
        value = 1
    elif name in ("torch.aten.full", "torch.aten.full_like", "torch.aten.new_full"):
        value = lw.const(op.operands[1 if name != "torch.aten.new_full" else 2], "fill value")
    else:
        value = lw.const(op.operands[0], "scalar value")
    return [lw.zeros_or_ones(value, out.shape, out.element_type)]


def lower_arange(lw: Lowering, op: ir.Operation) -> list[Any]:
    out = result_type(op)
    args = [lw.const(v, "arange bound") for v in op.operands[:3] if torch_ir.is_vtensor(v.type) is False]
    numbers = [a for a in args if isinstance(a, int | float) and not isinstance(a, bool)]
    name = torch_ir.aten_name(op)
    if name == "torch.aten.arange":
        start, step = 0, 1
    elif name == "torch.aten.arange.start":
        start, step = numbers[0], 1
    else:
        start, step = numbers[0], numbers[2]
    values = [start + i * step for i in range(out.shape[0])]
    if not values:  # an empty range: a dense attribute needs at least one element, a splat has none
        return [lw.zeros_or_ones(0, out.shape, out.element_type)]
    if is_float(out.element_type):
        attr = ir.DenseElementsAttr.get([ir.FloatAttr.get(out.element_type, float(v)) for v in values], type=out)
    else:
        attr = ir.DenseElementsAttr.get([ir.IntegerAttr.get(out.element_type, int(v)) for v in values], type=out)
    return [lw.emit(pd.ConstantOp, attr, i64(0), out)]


def populate(patterns: Registry[Pattern]) -> None:
    """Register the lowerings of this family: views, slices, gathers, concatenation, padding, lists, copies and constant tensors."""
    patterns.register("torch.aten.clone", "torch.aten.contiguous", "torch.aten.detach", "torch.aten.alias", "torch.aten.lift_fresh_copy",
                      "torch.aten.positive")(lower_identity)
    patterns.register("torch.aten.view", "torch.aten.reshape", "torch.aten._unsafe_view", "torch.aten.flatten", "torch.aten.unflatten",
        "torch.aten.squeeze", "torch.aten.unsqueeze", "torch.aten.view_as", "torch.aten.reshape_as")(lower_reshape)
    patterns.register("torch.aten.permute")(lower_permute)
    patterns.register("torch.aten.transpose", "torch.aten.t", "torch.aten.numpy_T")(lower_transpose)
    patterns.register("torch.aten.expand", "torch.aten.broadcast_to", "torch.aten.expand_as")(lower_expand)
    patterns.register("torch.aten.broadcast_tensors")(lower_broadcast_tensors)
    patterns.register("torch.aten.slice")(lower_slice)
    patterns.register("torch.aten.narrow_copy")(lower_narrow)
    patterns.register("torch.aten.select")(lower_select)
    patterns.register("torch.aten.cat", "torch.aten.concat")(lower_cat)
    patterns.register("torch.aten.stack")(lower_stack)
    patterns.register("torch.aten.split.Tensor", "torch.aten.split_with_sizes", "torch.aten.split.sizes", "torch.aten.chunk",
        "torch.aten.unbind.int", "torch.aten.split")(lower_split)
    patterns.register("torch.prim.ListConstruct")(lower_list_construct)
    patterns.register("torch.prim.ListUnpack")(lower_list_unpack)
    patterns.register("torch.aten.__getitem__.t", "torch.aten.getitem")(lower_getitem)
    patterns.register("torch.aten.gather")(lower_gather)
    patterns.register("torch.aten.index_select")(lower_index_select)
    patterns.register("torch.aten.embedding")(lower_embedding)
    patterns.register("torch.aten.constant_pad_nd")(lower_pad)
    patterns.register("torch.aten.resize", "torch.aten.resize_")(lower_resize)
    patterns.register("torch.aten.nonzero_static")(lower_nonzero_static)
    patterns.register("torch.vtensor.literal")(lower_literal)
    patterns.register("torch.aten.full", "torch.aten.zeros", "torch.aten.ones", "torch.aten.full_like", "torch.aten.zeros_like",
        "torch.aten.ones_like", "torch.aten.new_zeros", "torch.aten.new_ones", "torch.aten.new_full", "torch.aten.scalar_tensor")(lower_full)
    patterns.register("torch.aten.arange", "torch.aten.arange.start", "torch.aten.arange.start_step")(lower_arange)
