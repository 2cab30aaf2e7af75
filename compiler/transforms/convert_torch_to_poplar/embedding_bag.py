"""Embedding-bag lowerings (``nn.EmbeddingBag``, ``F.embedding_bag``): ``_embedding_bag``
and its gradients, as PopLibs computes them: the rows of every index picked with
``popops::multiSlice`` and summed into their bags with ``popops::multiUpdateAdd`` (sum,
mean), or reduced per bag with ``popops::reduce`` (max).

The bags come from ``offsets`` at run time: the bag of index position ``l`` is the number
of offsets ``<= l``, minus one (``offset2bag``). Indices equal to ``padding_idx`` belong
to no bag. The bag sizes and (mode max) the index of each maximum are computed when the
gradient reads them; ``offset2bag`` is never materialised (the gradients recompute it).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from torch_mlir import ir

from ipu_mlir.dialects import poplar as pd
from ipu_mlir.support.ir_build import boolean, i64, i64_array, string, tensor_type
from ipu_mlir.support.registry import Registry

from ... import torch_ir
from ...lowering import Lowering, Pattern, Unsupported, result_type, shape_of
from ...torch_ir import is_none

_MODES = {0: "sum", 1: "mean", 2: "max"}


def _i64() -> ir.Type:
    return ir.IntegerType.get_signless(64)


def _i1() -> ir.Type:
    return ir.IntegerType.get_signless(1)


def _iota(lw: Lowering, shape: list[int], axis: int) -> ir.Value:
    """An i64 constant counting 0, 1, ... along ``axis`` (size 1 elsewhere in ``shape``)."""
    values = np.arange(shape[axis], dtype=np.int64).reshape(shape)
    type_ = tensor_type(shape, _i64())
    return lw.emit(pd.ConstantOp, ir.DenseElementsAttr.get(values, type=type_), i64(0), type_)


def _bag_of(lw: Lowering, indices: ir.Value, offsets: ir.Value, bags: int) -> ir.Value:
    """``offset2bag`` ``[L]``: the bag of each index position, from the first ``bags`` offsets."""
    length = shape_of(indices)[0]
    offsets = lw.cast(offsets, _i64())
    if shape_of(offsets)[0] != bags:  # include_last_offset: the last offset ends the last bag
        offsets = lw.emit(pd.SliceOp, offsets, i64_array([0]), i64_array([bags]), i64_array([1]), tensor_type([bags], _i64()))
    started = lw.map("ge(_1, _2)", [_iota(lw, [length, 1], 0), lw.reshape(offsets, [1, bags])],
                     tensor_type([length, bags], _i1()))
    count = lw.reduce(lw.cast(started, _i64()), "add", [1], False, 1.0, tensor_type([length], _i64()))
    return lw.map("sub(_1, 1)", [count], count.type)


def _valid(lw: Lowering, indices: ir.Value, padding: int) -> ir.Value | None:
    """Whether each index takes part (is not ``padding_idx``); None when all do."""
    if padding < 0:
        return None
    return lw.map(f"ne(_1, {padding})", [indices], tensor_type(shape_of(indices), _i1()))


def _membership(lw: Lowering, bag_of: ir.Value, valid: ir.Value | None, bags: int) -> ir.Value:
    """``[B, L]`` i1: index position l is in bag b."""
    length = shape_of(bag_of)[0]
    member_type = tensor_type([bags, length], _i1())
    member = lw.map("eq(_1, _2)", [lw.reshape(bag_of, [1, length]), _iota(lw, [bags, 1], 0)], member_type)
    if valid is not None:
        member = lw.map("and(_1, _2)", [member, lw.reshape(valid, [1, length])], member_type)
    return member


def _padding_idx(lw: Lowering, op: ir.Operation, index: int, rows: int) -> int:
    if len(op.operands) <= index or is_none(op.operands[index]):
        return -1
    padding = lw.const(op.operands[index], "padding_idx")
    return padding + rows if padding < -1 else padding


def _read_only_by_gradients(op: ir.Operation, index: int) -> bool:
    return all(torch_ir.aten_name(getattr(u.owner, "operation", u.owner)).startswith("torch.aten._embedding_bag_")
               and "backward" in torch_ir.aten_name(getattr(u.owner, "operation", u.owner)) for u in op.results[index].uses)


def lower_embedding_bag(lw: Lowering, op: ir.Operation) -> list[Any]:
    """``_embedding_bag(weight, indices, offsets, scale_grad_by_freq, mode, sparse,
    per_sample_weights, include_last_offset, padding_idx)`` -> (output, offset2bag,
    bag_size, max_indices); ``embedding_bag`` and ``_embedding_bag_forward_only`` alike."""
    weight, indices, offsets = (lw.v(op.operands[i]) for i in range(3))
    out = result_type(op, 0)
    element = out.element_type
    mode_number = lw.const(op.operands[4], "mode") if len(op.operands) > 4 else 0
    mode = _MODES.get(mode_number)
    if mode is None:
        raise Unsupported(f"embedding bag mode {mode_number} (0 sum, 1 mean, 2 max)")
    weights_operand = op.operands[6] if len(op.operands) > 6 else None
    per_sample = None if weights_operand is None or is_none(weights_operand) else lw.cast(lw.v(weights_operand), element)
    if per_sample is not None and mode != "sum":
        raise Unsupported(f"per_sample_weights with mode '{mode}' (PyTorch allows them with mode 'sum' only)")
    if len(shape_of(indices)) != 1:
        raise Unsupported(f"indices of rank {len(shape_of(indices))}; _embedding_bag takes 1-D indices with offsets")
    vocabulary, width = shape_of(weight)
    bags, length = list(out.shape)[0], shape_of(indices)[0]
    padding = _padding_idx(lw, op, 8, vocabulary)
    bag_of = _bag_of(lw, indices, offsets, bags)
    valid = _valid(lw, indices, padding)
    rows = lw.emit(pd.MultiSliceOp, lw.cast(weight, element), indices, i64(0), tensor_type([length, width], element))
    member = _membership(lw, bag_of, valid, bags)
    count = lw.reduce(lw.cast(member, _i64()), "add", [1], False, 1.0, tensor_type([bags], _i64()))
    max_indices = None
    if mode == "max":
        masked = lw.map("select(_1, _2, -inf)", [lw.reshape(member, [bags, length, 1]), lw.reshape(rows, [1, length, width])],
                        tensor_type([bags, length, width], element))
        largest = lw.reduce(masked, "max", [1], False, 1.0, out)
        nonempty = lw.map("gt(_1, 0)", [lw.reshape(count, [bags, 1])], tensor_type([bags, 1], _i1()))
        output = lw.map("select(_2, _1, 0.0)", [largest, nonempty], out)
        if len(op.results) > 3 and list(op.results[3].uses):
            position = lw.emit(pd.ArgMaxOp, masked, i64(1), boolean(False), tensor_type([bags, width], _i64()))
            picked = lw.emit(pd.MultiSliceOp, lw.cast(indices, _i64()), lw.reshape(position, [bags * width]), i64(0),
                             tensor_type([bags * width], _i64()))
            max_indices = lw.map("select(_2, _1, 0)", [lw.reshape(picked, [bags, width]), nonempty], tensor_type([bags, width], _i64()))
    else:
        if per_sample is not None:
            rows = lw.map("mul(_1, _2)", [rows, lw.reshape(per_sample, [length, 1])], rows.type)
        target = bag_of if valid is None else lw.map(f"select(_1, _2, {bags})", [valid, bag_of], bag_of.type)
        table = tensor_type([bags + 1, width], element)
        summed = lw.emit(pd.MultiUpdateAddOp, rows, target, i64(-1), table)
        output = lw.emit(pd.SliceOp, summed, i64_array([0, 0]), i64_array([bags, width]), i64_array([1, 1]), out)
        if mode == "mean":
            output = lw.map("div(_1, max(_2, 1.0))", [output, lw.cast(lw.reshape(count, [bags, 1]), element)], out)
    results: list[Any] = [output, None, None, max_indices]
    if len(op.results) > 2 and list(op.results[2].uses):
        results[2] = lw.cast(count, result_type(op, 2).element_type)
    for index in (1, 2, 3):
        if len(op.results) > index and results[index] is None and list(op.results[index].uses) and not _read_only_by_gradients(op, index):
            raise Unsupported(f"result #{index} of _embedding_bag (offset2bag, bag_size, max_indices) is read outside its gradient")
    return results[: len(op.results)]


def _backward_bags(lw: Lowering, grad: ir.Value, indices: ir.Value, offsets: ir.Value) -> tuple[ir.Value, int]:
    bags = shape_of(grad)[0]
    if shape_of(offsets)[0] not in (bags, bags + 1):
        raise Unsupported(f"{shape_of(offsets)[0]} offsets for {bags} bags")
    return _bag_of(lw, indices, offsets, bags), bags


def lower_embedding_bag_grad(lw: Lowering, op: ir.Operation) -> list[Any]:
    """``_embedding_bag_backward(grad, indices, offsets, offset2bag, bag_size, max_indices,
    num_weights, scale_grad_by_freq, mode, sparse, per_sample_weights, padding_idx)``."""
    out = result_type(op)
    element = out.element_type
    grad, indices, offsets = lw.cast(lw.v(op.operands[0]), element), lw.v(op.operands[1]), lw.v(op.operands[2])
    if lw.const(op.operands[7], "scale_grad_by_freq"):
        raise Unsupported("embedding bag with scale_grad_by_freq=True")
    if lw.const(op.operands[9], "sparse"):
        raise Unsupported("sparse embedding-bag gradients (sparse=True); use sparse=False")
    mode = _MODES[lw.const(op.operands[8], "mode")]
    vocabulary, width = list(out.shape)
    padding = _padding_idx(lw, op, 11, vocabulary)
    bags = shape_of(grad)[0]
    if mode == "max":  # each maximum's gradient goes to the row it came from, per feature
        bag_size, max_indices = lw.v(op.operands[4]), lw.cast(lw.v(op.operands[5]), _i64())
        flat = lw.map(f"add(mul(_1, {width}), _2)", [max_indices, _iota(lw, [1, width], 1)], max_indices.type)
        nonempty = lw.map("gt(_1, 0)", [lw.reshape(bag_size, [bags, 1])], tensor_type([bags, 1], _i1()))
        flat = lw.map(f"select(_2, _1, {vocabulary * width})", [flat, nonempty], flat.type)
        summed = lw.emit(pd.MultiUpdateAddOp, lw.reshape(grad, [bags * width, 1]), lw.reshape(flat, [bags * width]), i64(-1),
                         tensor_type([vocabulary * width + 1, 1], element))
        kept = lw.emit(pd.SliceOp, summed, i64_array([0, 0]), i64_array([vocabulary * width, 1]), i64_array([1, 1]),
                       tensor_type([vocabulary * width, 1], element))
        return [lw.reshape(kept, [vocabulary, width])]
    bag_of, _ = _backward_bags(lw, grad, indices, offsets)
    length = shape_of(indices)[0]
    per_index = lw.emit(pd.MultiSliceOp, grad, bag_of, i64(0), tensor_type([length, width], element))
    if mode == "mean":
        sizes = lw.cast(lw.reshape(lw.v(op.operands[4]), [bags, 1]), element)
        size_of_bag = lw.emit(pd.MultiSliceOp, sizes, bag_of, i64(0), tensor_type([length, 1], element))
        per_index = lw.map("div(_1, _2)", [per_index, size_of_bag], per_index.type)
    weights_operand = op.operands[10]
    if not is_none(weights_operand):
        per_index = lw.map("mul(_1, _2)", [per_index, lw.reshape(lw.cast(lw.v(weights_operand), element), [length, 1])], per_index.type)
    return [lw.emit(pd.MultiUpdateAddOp, per_index, indices, i64(padding), out)]


def lower_per_sample_weights_grad(lw: Lowering, op: ir.Operation) -> list[Any]:
    """``_embedding_bag_per_sample_weights_backward(grad, weight, indices, offsets,
    offset2bag, mode, padding_idx)``: each index's weight gets the dot product of its
    bag's gradient and its row."""
    out = result_type(op)
    element = out.element_type
    grad, weight = (lw.cast(lw.v(op.operands[i]), element) for i in (0, 1))
    indices, offsets = lw.v(op.operands[2]), lw.v(op.operands[3])
    if _MODES.get(lw.const(op.operands[5], "mode")) != "sum":
        raise Unsupported("per_sample_weights gradients with a mode other than 'sum'")
    vocabulary, width = shape_of(weight)
    padding = _padding_idx(lw, op, 6, vocabulary)
    bag_of, _ = _backward_bags(lw, grad, indices, offsets)
    length = shape_of(indices)[0]
    rows_type = tensor_type([length, width], element)
    rows = lw.emit(pd.MultiSliceOp, weight, indices, i64(0), rows_type)
    per_index = lw.emit(pd.MultiSliceOp, grad, bag_of, i64(0), rows_type)
    dots = lw.reduce(lw.map("mul(_1, _2)", [per_index, rows], rows_type), "add", [1], False, 1.0, out)
    valid = _valid(lw, indices, padding)
    return [dots if valid is None else lw.map("select(_2, _1, 0.0)", [dots, valid], out)]


def lower_embedding_renorm(lw: Lowering, op: ir.Operation) -> list[Any]:
    """``embedding_renorm(weight, indices, max_norm, norm_type)`` (``max_norm`` of
    F.embedding / F.embedding_bag; the functional form of ``embedding_renorm_``): each row
    an index refers to whose ``norm_type``-norm exceeds ``max_norm`` is scaled by
    ``max_norm / (norm + 1e-7)``, as ATen does; the other rows are unchanged."""
    weight, indices = lw.v(op.operands[0]), lw.v(op.operands[1])
    max_norm, p = float(lw.const(op.operands[2], "max_norm")), float(lw.const(op.operands[3], "norm_type"))
    out = result_type(op)
    element = out.element_type
    if len(shape_of(weight)) != 2:
        raise Unsupported(f"embedding_renorm of a weight of rank {len(shape_of(weight))} (rows of a 2-D table)")
    rows = shape_of(weight)[0]
    weight = lw.cast(weight, element)
    row_type = tensor_type([rows], element)
    if p == 2.0:
        norms = lw.map("sqrt(_1)", [lw.reduce(lw.map("square(_1)", [weight], weight.type), "add", [1], False, 1.0, row_type)], row_type)
    elif p == 1.0:
        norms = lw.reduce(lw.map("abs(_1)", [weight], weight.type), "add", [1], False, 1.0, row_type)
    elif p > 0 and p != float("inf"):
        powered = lw.reduce(lw.map(f"pow(abs(_1), {p!r})", [weight], weight.type), "add", [1], False, 1.0, row_type)
        norms = lw.map(f"pow(_1, {1.0 / p!r})", [powered], row_type)
    else:
        raise Unsupported(f"embedding max_norm with norm_type {p} (a finite p > 0)")
    count = max(1, int(np.prod(shape_of(indices))))
    flat = lw.reshape(lw.cast(indices, _i64()), [count]) if shape_of(indices) else lw.reshape(lw.cast(indices, _i64()), [1])
    ones = lw.zeros_or_ones(1.0, [count], element)
    referenced = lw.emit(pd.MultiUpdateOp, lw.zeros_or_ones(0.0, [rows], element), ones, flat, i64(0), string("copy"), row_type)
    scale = lw.map(f"select(and(gt(_1, {max_norm!r}), gt(_2, 0.5)), div({max_norm!r}, add(_1, 1e-07)), 1.0)",
                   [norms, referenced], row_type)
    return [lw.map("mul(_1, _2)", [weight, lw.broadcast(lw.reshape(scale, [rows, 1]), shape_of(weight))], out)]


def populate(patterns: Registry[Pattern]) -> None:
    """Register the lowerings of this family: embedding bags and their gradients."""
    # torch-mlir imports _embedding_bag_forward_only as embedding_bag.padding_idx (same operands).
    patterns.register("torch.aten._embedding_bag", "torch.aten._embedding_bag_forward_only", "torch.aten.embedding_bag")(lower_embedding_bag)
    patterns.register("torch.aten._embedding_bag_backward")(lower_embedding_bag_grad)
    patterns.register("torch.aten._embedding_bag_per_sample_weights_backward")(lower_per_sample_weights_grad)
    patterns.register("torch.aten.embedding_renorm")(lower_embedding_renorm)
