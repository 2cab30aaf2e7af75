"""Normalisation, softmax and pooling lowerings: batch / layer / group norm (inference
and training statistics), softmax and log-softmax, and max / average / adaptive pooling."""

from __future__ import annotations

from typing import Any

from torch_mlir import ir

from ipu_mlir.dialects import poplar as pd
from ipu_mlir.support.ir_build import boolean, f64, i64, i64_array, string, tensor_type
from ipu_mlir.support.registry import Registry

from ... import torch_ir
from ...lowering import (
    Lowering,
    Pattern,
    Unsupported,
    base_name,
    dim_arg,
    element_of,
    pool_window,
    result_type,
    shape_of,
    spatial_list,
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
    # The saved mean / rstd results of the legit ops are empty in inference: no value.
    return [y]


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
        raise Unsupported("batch norm in eval mode inside a training program; it uses running statistics")
    return _norm_training(lw, op, "batch", x, op.operands[1], op.operands[2], channels, stats, eps, momentum, 1, 1, channels)


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


def lower_pool(lw: Lowering, op: ir.Operation) -> list[Any]:
    x = lw.v(op.operands[0])
    spatial = len(shape_of(x)) - 2
    kind = "max" if "max_pool" in op.name else "avg"
    kernel, stride, padding = pool_window(lw, op, 1, spatial)
    if kind == "max":
        dilation = spatial_list(lw.const(op.operands[4], "dilation"), spatial)
        if any(d != 1 for d in dilation):
            raise Unsupported("max pooling with dilation")
        ceil = lw.const(op.operands[5], "ceil_mode")
        include_pad = True
    else:
        ceil = lw.const(op.operands[4], "ceil_mode")
        include_pad = lw.const(op.operands[5], "count_include_pad")
        if len(op.operands) > 6 and not is_none(op.operands[6]):
            raise Unsupported("avg pooling with divisor_override")
    return [lw.emit(pd.PoolOp, x, i64_array(kernel), i64_array(stride), i64_array(padding), boolean(ceil), string(kind), boolean(include_pad), result_type(op))]


def lower_max_pool_with_indices(lw: Lowering, op: ir.Operation) -> list[Any]:
    return [*lower_pool(lw, op), None]  # the indices: popnn_pool_grad recomputes them from the input


def lower_adaptive_pool(lw: Lowering, op: ir.Operation) -> list[Any]:
    x = lw.v(op.operands[0])
    shape = shape_of(x)
    spatial = len(shape) - 2
    sizes = spatial_list(lw.const(op.operands[1], "output_size"), spatial)
    sizes = [s if s is not None else shape[2 + i] for i, s in enumerate(sizes)]
    kind = "max" if "max" in op.name else "avg"
    if len(op.results) > 1:
        raise Unsupported("adaptive max pooling with indices")
    if any(shape[2 + i] % s for i, s in enumerate(sizes)):
        raise Unsupported(f"adaptive pooling from {shape[2:]} to {sizes}: input sizes must be multiples of the output sizes")
    kernel = [shape[2 + i] // s for i, s in enumerate(sizes)]
    return [lw.emit(pd.PoolOp, x, i64_array(kernel), i64_array(kernel), i64_array([0] * spatial), boolean(False), string(kind), boolean(True), result_type(op))]


def populate(patterns: Registry[Pattern]) -> None:
    """Register the lowerings of this family: norms, softmaxes and pooling."""
    patterns.register("torch.aten.batch_norm", "torch.aten._native_batch_norm_legit_no_training", "torch.aten.native_batch_norm",
        "torch.aten._native_batch_norm_legit")(lower_batch_norm)
    patterns.register("torch.aten.layer_norm")(lower_layer_norm)
    patterns.register("torch.aten.group_norm")(lower_group_norm)
    patterns.register("torch.aten._native_batch_norm_legit_functional", "torch.aten._native_batch_norm_legit.no_stats")(lower_batch_norm_training)
    patterns.register("torch.aten.native_layer_norm")(lower_native_layer_norm)
    patterns.register("torch.aten.native_group_norm")(lower_native_group_norm)
    patterns.register("torch.aten.softmax", "torch.aten._softmax", "torch.aten.log_softmax", "torch.aten._log_softmax")(lower_softmax)
    patterns.register("torch.aten._safe_softmax")(lower_safe_softmax)
    patterns.register("torch.aten.max_pool1d", "torch.aten.max_pool2d", "torch.aten.max_pool3d", "torch.aten.avg_pool1d",
        "torch.aten.avg_pool2d", "torch.aten.avg_pool3d")(lower_pool)
    patterns.register("torch.aten.max_pool2d_with_indices", "torch.aten.max_pool3d_with_indices")(lower_max_pool_with_indices)
    patterns.register("torch.aten.adaptive_avg_pool1d", "torch.aten.adaptive_avg_pool2d", "torch.aten.adaptive_max_pool2d",
        "torch.aten._adaptive_avg_pool2d")(lower_adaptive_pool)
