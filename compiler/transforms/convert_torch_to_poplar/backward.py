"""Backward lowerings: the ``*_backward`` / gradient ops of the joint training graph
(activations, softmax, losses, norms, dropout, embedding, views; the gradients of
pooling are in ``pooling``, of convolutions in ``linear``)."""

from __future__ import annotations

import math
from typing import Any

from torch_mlir import ir

from ipu_mlir.dialects import poplar as pd
from ipu_mlir.support.ir_build import f64, i64, i64_array, string, tensor_type
from ipu_mlir.support.registry import Registry

from ...lowering import (
    LOSS_REDUCTIONS,
    Lowering,
    Pattern,
    Unsupported,
    base_name,
    dim_arg,
    element_of,
    literal,
    result_type,
    shape_of,
)
from ...torch_ir import aten_name
from .indexing import place_along
from .losses import class_weights
from .normalization import batch_norm_grad_with_running_stats

_GRAD_KINDS = {
    "torch.aten.threshold_backward": "relu", "torch.aten.gelu_backward": "gelu", "torch.aten.silu_backward": "silu",
    "torch.aten.sigmoid_backward": "sigmoid", "torch.aten.tanh_backward": "tanh",
    "torch.aten.hardsigmoid_backward": "hard_sigmoid", "torch.aten.hardswish_backward": "hard_swish",
}


def lower_activation_grad(lw: Lowering, op: ir.Operation) -> list[Any]:
    name = base_name(aten_name(op))  # silu_backward imports as a torch.operator
    kind = _GRAD_KINDS[name]
    if kind == "relu":
        threshold = lw.const(op.operands[2], "threshold")
        if threshold != 0:  # F.threshold's gradient: grad where x > threshold, else 0
            x = lw.v(op.operands[1])
            return [lw.map(f"select(gt(_2, {literal(float(threshold))}), _1, 0.0)", [lw.v(op.operands[0]), x], result_type(op))]
    if kind == "gelu":
        approximate = lw.const(op.operands[2], "approximate") if len(op.operands) > 2 else "none"
        kind = {"none": "gelu_erf", "tanh": "gelu_tanh"}[approximate]
    return [lw.emit(pd.NonLinearityGradOp, lw.v(op.operands[0]), lw.v(op.operands[1]), string(kind), i64(0), result_type(op))]


def lower_softmax_grad(lw: Lowering, op: ir.Operation) -> list[Any]:
    grad, out = lw.v(op.operands[0]), lw.v(op.operands[1])
    dim = dim_arg(lw.const(op.operands[2], "dim"), len(shape_of(out)))
    kind = "log_softmax" if "log_softmax" in op.name else "softmax"
    return [lw.emit(pd.NonLinearityGradOp, grad, out, string(kind), i64(dim), result_type(op))]


def lower_nll_loss_grad(lw: Lowering, op: ir.Operation) -> list[Any]:
    log_probs = lw.v(op.operands[1])
    reduction = LOSS_REDUCTIONS[lw.const(op.operands[4], "reduction")]
    ignore = lw.const(op.operands[5], "ignore_index")
    weight = class_weights(lw, op.operands[3], log_probs)
    return [lw.emit(pd.NllLossGradOp, lw.v(op.operands[0]), log_probs, lw.v(op.operands[2]), weight, string(reduction),
                    i64(ignore), result_type(op))]


def lower_mse_loss_grad(lw: Lowering, op: ir.Operation) -> list[Any]:
    grad, x, y = lw.v(op.operands[0]), lw.v(op.operands[1]), lw.v(op.operands[2])
    reduction = LOSS_REDUCTIONS[lw.const(op.operands[3], "reduction")]
    factor = 2.0 / (math.prod(shape_of(x)) or 1) if reduction == "mean" else 2.0
    return [lw.map(f"mul(mul(sub(_1, _2), {literal(factor)}), _3)", [x, lw.cast(y, element_of(x)), grad], result_type(op))]


def _norm_grad(lw: Lowering, op: ir.Operation, kind: str, grad: ir.Value, x: ir.Value, mean: ir.Value, invstd: ir.Value,
               weight: ir.Value | None, param_shape: list[int], eps: float, groups: int, num_dims: int) -> list[Any]:
    element = element_of(x)
    w = lw.ones_if_none(weight, param_shape, element, 1.0)
    param_type = tensor_type(param_shape, element)
    op_ = lw.emit(pd.NormGradOp, grad, x, mean, invstd, w, string(kind), f64(eps), i64(groups), i64(num_dims),
                  x.type, param_type, param_type)
    return list(op_.operation.results)


def lower_batch_norm_grad(lw: Lowering, op: ir.Operation) -> list[Any]:
    grad, x = lw.v(op.operands[0]), lw.v(op.operands[1])
    train = lw.const(op.operands[7], "train")
    if not train:  # a frozen (eval-mode) batch norm in a training program
        return batch_norm_grad_with_running_stats(lw, op)
    eps = lw.const(op.operands[8], "eps")
    mean, invstd = lw.v(op.operands[5]), lw.v(op.operands[6])
    return _norm_grad(lw, op, "batch", grad, x, mean, invstd, op.operands[2], [shape_of(x)[1]], eps, 1, 1)


def lower_layer_norm_grad(lw: Lowering, op: ir.Operation) -> list[Any]:
    grad, x = lw.v(op.operands[0]), lw.v(op.operands[1])
    normalized = lw.const(op.operands[2], "normalized_shape")
    mean, rstd = lw.v(op.operands[3]), lw.v(op.operands[4])
    return _norm_grad(lw, op, "layer", grad, x, mean, rstd, op.operands[5], normalized, 1e-5, 1, len(normalized))


def lower_group_norm_grad(lw: Lowering, op: ir.Operation) -> list[Any]:
    grad, x = lw.v(op.operands[0]), lw.v(op.operands[1])
    mean, rstd = lw.v(op.operands[2]), lw.v(op.operands[3])
    groups = lw.const(op.operands[8], "group")
    return _norm_grad(lw, op, "group", grad, x, mean, rstd, op.operands[4], [shape_of(x)[1]], 1e-5, groups, 1)


def lower_dropout_grad(lw: Lowering, op: ir.Operation) -> list[Any]:
    grad, mask = lw.v(op.operands[0]), lw.v(op.operands[1])
    scale = lw.const(op.operands[2], "scale")
    return [lw.map(f"select(_2, mul(_1, {literal(float(scale))}), 0.0)", [grad, lw.cast(mask, ir.IntegerType.get_signless(1))], result_type(op))]


def lower_embedding_grad(lw: Lowering, op: ir.Operation) -> list[Any]:
    if lw.const(op.operands[4], "scale_grad_by_freq"):
        raise Unsupported("embedding with scale_grad_by_freq")
    padding = lw.const(op.operands[3], "padding_idx")
    return [lw.emit(pd.MultiUpdateAddOp, lw.v(op.operands[0]), lw.v(op.operands[1]), i64(max(padding, -1)), result_type(op))]


def lower_select_grad(lw: Lowering, op: ir.Operation) -> list[Any]:
    grad = lw.v(op.operands[0])
    sizes = lw.const(op.operands[1], "input_sizes")
    dim = dim_arg(lw.const(op.operands[2], "dim"), len(sizes))
    index = lw.const(op.operands[3], "index")
    index = index + sizes[dim] if index < 0 else index
    shape = list(sizes)
    shape[dim] = 1
    low, high = [0] * len(sizes), [0] * len(sizes)
    low[dim], high[dim] = index, sizes[dim] - index - 1
    return [lw.emit(pd.PadOp, lw.reshape(grad, shape), i64_array(low), i64_array(high), f64(0.0), result_type(op))]


def lower_slice_grad(lw: Lowering, op: ir.Operation) -> list[Any]:
    grad = lw.v(op.operands[0])
    sizes = lw.const(op.operands[1], "input_sizes")
    dim = dim_arg(lw.const(op.operands[2], "dim"), len(sizes))
    start, end, step = (lw.const(op.operands[i], what) for i, what in ((3, "start"), (4, "end"), (5, "step")))
    begin, _, stride = slice(start, end, step).indices(sizes[dim])
    if stride != 1:  # the gradient at its strided positions of zeros: a multi-update
        out = result_type(op)
        stop = begin + stride * (shape_of(grad)[dim] - 1) + 1
        return [place_along(lw, lw.zeros_or_ones(0, out.shape, out.element_type), grad, dim, begin, stop, stride)]
    low, high = [0] * len(sizes), [0] * len(sizes)
    low[dim], high[dim] = begin, sizes[dim] - begin - shape_of(grad)[dim]
    return [lw.emit(pd.PadOp, grad, i64_array(low), i64_array(high), f64(0.0), result_type(op))]


def populate(patterns: Registry[Pattern]) -> None:
    """Register the lowerings of this family: gradient ops of the joint forward + backward graph."""
    patterns.register(*_GRAD_KINDS)(lower_activation_grad)
    patterns.register("torch.aten._softmax_backward_data", "torch.aten._log_softmax_backward_data")(lower_softmax_grad)
    patterns.register("torch.aten.nll_loss_backward")(lower_nll_loss_grad)
    patterns.register("torch.aten.mse_loss_backward")(lower_mse_loss_grad)
    # batch_norm_backward(..., update, eps, output_mask, reserve): native_batch_norm_backward's first ten operands
    patterns.register("torch.aten.native_batch_norm_backward", "torch.aten.batch_norm_backward")(lower_batch_norm_grad)
    patterns.register("torch.aten.native_layer_norm_backward")(lower_layer_norm_grad)
    patterns.register("torch.aten.native_group_norm_backward")(lower_group_norm_grad)
    patterns.register("torch.aten.native_dropout_backward")(lower_dropout_grad)
    patterns.register("torch.aten.embedding_dense_backward")(lower_embedding_grad)
    patterns.register("torch.aten.select_backward")(lower_select_grad)
    patterns.register("torch.aten.slice_backward")(lower_slice_grad)
