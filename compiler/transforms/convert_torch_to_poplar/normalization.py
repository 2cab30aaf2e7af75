"""Normalisation and softmax lowerings: batch / layer / group / instance norm (inference
and training statistics), softmax and log-softmax (pooling is in ``pooling``)."""

from __future__ import annotations

import math
from typing import Any

from torch_mlir import ir

from ipu_mlir.dialects import poplar as pd
from ipu_mlir.support.ir_build import f64, i64, string, tensor_type
from ipu_mlir.support.registry import Registry

from ... import torch_ir
from ...lowering import (
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
from ...torch_ir import is_none


def lower_batch_norm(lw: Lowering, op: ir.Operation) -> list[Any]:
    name = torch_ir.aten_name(op)
    x = lw.v(op.operands[0])
    element = element_of(x)
    channels = [shape_of(x)[1]]
    if name == "torch.aten.batch_norm":
        training = lw.const(op.operands[5], "training")
        eps = lw.const(op.operands[7], "eps")
    elif name == "torch.aten._native_batch_norm_legit_no_training":
        training = False
        eps = lw.const(op.operands[6], "eps")
    else:
        training = lw.const(op.operands[5], "training")
        eps = lw.const(op.operands[7], "eps")
    if training:
        raise Unsupported("batch norm with batch statistics (training mode); call model.eval() for inference")
    weight = lw.ones_if_none(op.operands[1], channels, element, 1.0)
    bias = lw.ones_if_none(op.operands[2], channels, element, 0.0)
    mean = lw.cast(lw.v(op.operands[3]), element)
    var = lw.cast(lw.v(op.operands[4]), element)
    y = lw.emit(pd.NormOp, x, weight, bias, [mean, var], string("batch"), f64(eps), i64(1), i64(1), result_type(op, 0))
    # The saved mean / rstd results are empty in eval mode (ATen returns tensors of no elements).
    return [y, *(_empty_result(lw, op, index, "a saved statistic") for index in range(1, len(op.results)))]


def batch_norm_grad_with_running_stats(lw: Lowering, op: ir.Operation) -> list[Any]:
    """``native_batch_norm_backward`` of an eval-mode batch norm (a frozen one in a training
    program): the statistics are the running ones, constants of the step, so with
    ``invstd = 1 / sqrt(running_var + eps)`` per channel: grad_input = grad * weight *
    invstd, grad_weight = sum(grad * (x - running_mean)) * invstd, grad_bias = sum(grad),
    the sums over every dim but the channels (maps and ``popops_reduce``, as ATen's CPU
    kernel computes them)."""
    grad, x = lw.v(op.operands[0]), lw.v(op.operands[1])
    element = element_of(x)
    shape = shape_of(x)
    channels = shape[1]
    if is_none(op.operands[3]) or is_none(op.operands[4]):
        raise Unsupported("batch norm backward in eval mode without running statistics")
    eps = lw.const(op.operands[8], "eps")
    mask = lw.const(op.operands[9], "output_mask")
    per_channel = [1, channels] + [1] * (len(shape) - 2)
    mean, var = (lw.reshape(lw.cast(lw.v(op.operands[i]), element), per_channel) for i in (3, 4))
    weight = lw.reshape(lw.ones_if_none(op.operands[2], [channels], element, 1.0), per_channel)
    invstd = lw.map(f"div(1.0, sqrt(add(_1, {literal(float(eps))})))", [var], var.type)
    others = [d for d in range(len(shape)) if d != 1]
    results: list[Any] = [None, None, None]
    if mask[0]:
        results[0] = lw.map("mul(_1, mul(_2, _3))", [grad, weight, invstd], result_type(op, 0))
    if mask[1]:
        dot = lw.reduce(lw.map("mul(sub(_1, _2), _3)", [x, mean, grad], grad.type), "add", others, False, 1.0, result_type(op, 1))
        results[1] = lw.map("mul(_1, _2)", [dot, lw.reshape(invstd, [channels])], result_type(op, 1))
    if mask[2]:
        results[2] = lw.reduce(grad, "add", others, False, 1.0, result_type(op, 2))
    return results


def lower_layer_norm(lw: Lowering, op: ir.Operation) -> list[Any]:
    x = lw.v(op.operands[0])
    element = element_of(x)
    normalized = lw.const(op.operands[1], "normalized_shape")
    eps = lw.const(op.operands[4], "eps")
    weight = lw.ones_if_none(op.operands[2], normalized, element, 1.0)
    bias = lw.ones_if_none(op.operands[3], normalized, element, 0.0)
    return [lw.emit(pd.NormOp, x, weight, bias, [], string("layer"), f64(eps), i64(1), i64(len(normalized)), result_type(op))]


def lower_group_norm(lw: Lowering, op: ir.Operation) -> list[Any]:
    x = lw.v(op.operands[0])
    element = element_of(x)
    groups = lw.const(op.operands[1], "num_groups")
    eps = lw.const(op.operands[4], "eps")
    channels = [shape_of(x)[1]]
    weight = lw.ones_if_none(op.operands[2], channels, element, 1.0)
    bias = lw.ones_if_none(op.operands[3], channels, element, 0.0)
    return [lw.emit(pd.NormOp, x, weight, bias, [], string("group"), f64(eps), i64(groups), i64(1), result_type(op))]


def lower_instance_norm(lw: Lowering, op: ir.Operation) -> list[Any]:
    """``instance_norm(input, weight, bias, running_mean, running_var, use_input_stats,
    momentum, eps, cudnn_enabled)``: with the input's statistics, a group norm with one
    group per channel (as PopTorch ran it on ``popnn::gn``); with running statistics
    (eval mode), a batch norm over them."""
    x = lw.v(op.operands[0])
    element = element_of(x)
    channels = shape_of(x)[1]
    use_input_stats = lw.const(op.operands[5], "use_input_stats")
    eps = lw.const(op.operands[7], "eps")
    weight = lw.ones_if_none(op.operands[1], [channels], element, 1.0)
    bias = lw.ones_if_none(op.operands[2], [channels], element, 0.0)
    has_running = not is_none(op.operands[3]) and not is_none(op.operands[4])
    if use_input_stats:
        if has_running:
            raise Unsupported("instance norm that updates running statistics (track_running_stats=True in training mode) in an "
                              "inference program; call model.eval() or train it with poptorch.trainingModel")
        return [lw.emit(pd.NormOp, x, weight, bias, [], string("instance"), f64(eps), i64(channels), i64(1), result_type(op))]
    if not has_running:
        raise Unsupported("instance norm without input statistics needs running_mean and running_var")
    stats = [lw.cast(lw.v(op.operands[i]), element) for i in (3, 4)]
    return [lw.emit(pd.NormOp, x, weight, bias, stats, string("batch"), f64(eps), i64(1), i64(1), result_type(op))]


def _norm_training(lw: Lowering, op: ir.Operation, kind: str, x: ir.Value, weight: ir.Value | None, bias: ir.Value | None,
                   param_shape: list[int], stats: list[ir.Value], eps: float, momentum: float, groups: int, num_dims: int,
                   stat_shape: list[int]) -> list[Any]:
    element = element_of(x)
    w = lw.ones_if_none(weight, param_shape, element, 1.0)
    b = lw.ones_if_none(bias, param_shape, element, 0.0)
    stat_type = tensor_type(stat_shape, element)
    new_stats = [s.type for s in stats]
    op_ = lw.emit(pd.NormTrainingOp, x, w, b, stats, string(kind), f64(eps), f64(momentum), i64(groups), i64(num_dims),
                  x.type, stat_type, stat_type, new_stats)
    return list(op_.operation.results)


def lower_batch_norm_training(lw: Lowering, op: ir.Operation) -> list[Any]:
    name = torch_ir.aten_name(op)
    x = lw.v(op.operands[0])
    channels = [shape_of(x)[1]]
    if name == "torch.aten._native_batch_norm_legit_functional":
        stats = [lw.cast(lw.v(op.operands[3]), element_of(x)), lw.cast(lw.v(op.operands[4]), element_of(x))]
        training, momentum, eps = (lw.const(op.operands[i], what) for i, what in ((5, "training"), (6, "momentum"), (7, "eps")))
    else:
        stats = []
        training, momentum, eps = (lw.const(op.operands[i], what) for i, what in ((3, "training"), (4, "momentum"), (5, "eps")))
    if not training:
        if not stats:
            raise Unsupported("batch norm in eval mode without running statistics")
        # training=False: normalised by the running statistics, which stay as they are.
        return [*_batch_norm_eval(lw, op, x, stats, eps), *(lw.cast(lw.v(op.operands[i]), result_type(op, i).element_type) for i in (3, 4))]
    return _norm_training(lw, op, "batch", x, op.operands[1], op.operands[2], channels, stats, eps, momentum, 1, 1, channels)


def _batch_norm_eval(lw: Lowering, op: ir.Operation, x: ir.Value, stats: list[ir.Value], eps: float) -> list[Any]:
    """An eval-mode batch norm with the running statistics ``stats``: its output and the
    saved statistics of results 1 and 2, which are empty (ATen's) in eval mode."""
    element = element_of(x)
    channels = [shape_of(x)[1]]
    weight = lw.ones_if_none(op.operands[1], channels, element, 1.0)
    bias = lw.ones_if_none(op.operands[2], channels, element, 0.0)
    y = lw.emit(pd.NormOp, x, weight, bias, stats, string("batch"), f64(eps), i64(1), i64(1), result_type(op, 0))
    return [y, *(_empty_result(lw, op, index, "a saved statistic") for index in (1, 2))]


def _empty_result(lw: Lowering, op: ir.Operation, index: int, what: str) -> ir.Value:
    """Result ``index``, which ATen leaves empty here (no elements)."""
    type_ = result_type(op, index)
    if math.prod(type_.shape) != 0:
        raise Unsupported(f"batch norm with {what} of shape {list(type_.shape)} (ATen's is empty)")
    return lw.zeros_or_ones(0, list(type_.shape), type_.element_type)


def lower_batch_norm_with_update(lw: Lowering, op: ir.Operation) -> list[Any]:
    """``_batch_norm_with_update_functional(input, weight, bias, running_mean, running_var,
    momentum, eps)`` -> (out, save_mean, save_invstd, reserve, new running mean, new
    running var), and ``_batch_norm_no_update`` (eval mode) -> (out, empty, empty, reserve);
    the reserve (cuDNN's workspace) is empty on the CPU."""
    x = lw.v(op.operands[0])
    element = element_of(x)
    channels = [shape_of(x)[1]]
    momentum, eps = lw.const(op.operands[5], "momentum"), lw.const(op.operands[6], "eps")
    stats = [lw.cast(lw.v(op.operands[i]), element) for i in (3, 4)]
    reserve = _empty_result(lw, op, 3, "a reserve tensor")
    if torch_ir.aten_name(op).startswith("torch.aten._batch_norm_no_update"):
        return [*_batch_norm_eval(lw, op, x, stats, eps), reserve]
    y, mean, invstd, *running = _norm_training(lw, op, "batch", x, op.operands[1], op.operands[2], channels, stats, eps, momentum,
                                               1, 1, channels)
    return [y, mean, invstd, reserve, *running]


def lower_native_layer_norm(lw: Lowering, op: ir.Operation) -> list[Any]:
    x = lw.v(op.operands[0])
    normalized = lw.const(op.operands[1], "normalized_shape")
    eps = lw.const(op.operands[4], "eps")
    shape = shape_of(x)
    stat_shape = shape[: len(shape) - len(normalized)] + [1] * len(normalized)
    return _norm_training(lw, op, "layer", x, op.operands[2], op.operands[3], normalized, [], eps, 0.0, 1, len(normalized), stat_shape)


def lower_native_group_norm(lw: Lowering, op: ir.Operation) -> list[Any]:
    x = lw.v(op.operands[0])
    groups = lw.const(op.operands[6], "group")
    eps = lw.const(op.operands[7], "eps")
    shape = shape_of(x)
    return _norm_training(lw, op, "group", x, op.operands[1], op.operands[2], [shape[1]], [], eps, 0.0, groups, 1, [shape[0], groups])


def lower_softmax(lw: Lowering, op: ir.Operation) -> list[Any]:
    out = result_type(op)
    x = lw.v(op.operands[0])
    dim = dim_arg(lw.const(op.operands[1], "dim"), len(shape_of(x)))
    if base_name(op.name) in ("torch.aten.softmax", "torch.aten.log_softmax"):
        x = lw.cast(x, out.element_type)
    elif lw.const(op.operands[2], "half_to_float"):
        x = lw.cast(x, out.element_type)
    kind = "log_softmax" if "log_softmax" in op.name else "softmax"
    return [lw.emit(pd.NonLinearityOp, x, string(kind), i64(dim), out)]


def lower_safe_softmax(lw: Lowering, op: ir.Operation) -> list[Any]:
    out = result_type(op)
    x = lw.cast(lw.v(op.operands[0]), out.element_type)
    dim = dim_arg(lw.const(op.operands[1], "dim"), len(shape_of(x)))
    return [lw.emit(pd.NonLinearityOp, x, string("safe_softmax"), i64(dim), out)]


def populate(patterns: Registry[Pattern]) -> None:
    """Register the lowerings of this family: norms and softmaxes."""
    patterns.register("torch.aten.batch_norm", "torch.aten._native_batch_norm_legit_no_training", "torch.aten.native_batch_norm",
        "torch.aten._native_batch_norm_legit")(lower_batch_norm)
    patterns.register("torch.aten.layer_norm")(lower_layer_norm)
    patterns.register("torch.aten.group_norm")(lower_group_norm)
    patterns.register("torch.aten.instance_norm")(lower_instance_norm)
    patterns.register("torch.aten._native_batch_norm_legit_functional", "torch.aten._native_batch_norm_legit.no_stats")(lower_batch_norm_training)
    patterns.register("torch.aten._batch_norm_with_update_functional", "torch.aten._batch_norm_no_update")(lower_batch_norm_with_update)
    patterns.register("torch.aten.native_layer_norm")(lower_native_layer_norm)
    patterns.register("torch.aten.native_group_norm")(lower_native_group_norm)
    patterns.register("torch.aten.softmax", "torch.aten._softmax", "torch.aten.log_softmax", "torch.aten._log_softmax")(lower_softmax)
    patterns.register("torch.aten._safe_softmax")(lower_safe_softmax)
