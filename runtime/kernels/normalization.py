"""Kernels of the popnn forward ops: pooling (with the argmax kept for the gradient),
normalisation in inference and training form, and the non-linearities."""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch_mlir import ir

from .base import KERNELS, Kernel, attr, segments, tensor_type

aten = torch.ops.aten

MAX_POOLS = {1: F.max_pool1d, 2: F.max_pool2d, 3: F.max_pool3d}


def pool_window(op: ir.Operation) -> tuple[list[int], list[int], list[int], bool]:
    """kernel, stride, padding and ceil_mode of a pooling op or of its gradient."""
    return attr(op, "kernel"), attr(op, "stride"), attr(op, "padding"), attr(op, "ceil_mode")


@KERNELS.register("poplar.popnn_pool")
def _pool(op: ir.Operation) -> Kernel:
    kind, include_pad = attr(op, "kind"), attr(op, "count_include_pad")
    kernel_size, stride, padding, ceil = pool_window(op)
    spatial = len(kernel_size)
    if kind == "max":
        fn = MAX_POOLS[spatial]
        return lambda x: fn(x, kernel_size, stride, padding, 1, ceil)
    fn = {1: F.avg_pool1d, 2: F.avg_pool2d, 3: F.avg_pool3d}[spatial]
    if kind == "avg":
        return lambda x: fn(x, kernel_size, stride, padding, ceil, include_pad)
    area = math.prod(kernel_size)
    return lambda x: fn(x, kernel_size, stride, padding, ceil, True) * area


@KERNELS.register("poplar.popnn_max_pool_with_indices")
def _max_pool_with_indices(op: ir.Operation) -> Kernel:
    kernel_size, stride, padding, ceil = pool_window(op)
    fn = MAX_POOLS[len(kernel_size)]
    index_dtype = tensor_type(op.results[1])[1]
    if index_dtype == torch.int64:  # the dtype torch's indices have
        return lambda x: fn(x, kernel_size, stride, padding, 1, ceil, return_indices=True)

    def pool(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        out, indices = fn(x, kernel_size, stride, padding, 1, ceil, return_indices=True)
        return out, indices.to(index_dtype)

    return pool


@KERNELS.register("poplar.popnn_norm")
def _norm(op: ir.Operation) -> Kernel:
    kind, eps = attr(op, "kind"), attr(op, "epsilon")
    if kind == "batch":
        return lambda x, w, b, mean, var: F.batch_norm(x, mean, var, w, b, False, 0.0, eps)
    if kind == "layer":
        num_dims = attr(op, "num_dims")
        shape = tensor_type(op.operands[0])[0][-num_dims:]
        return lambda x, w, b: F.layer_norm(x, shape, w, b, eps)
    groups = attr(op, "num_groups") if kind == "group" else tensor_type(op.operands[0])[0][1]
    return lambda x, w, b: F.group_norm(x, groups, w, b, eps)


@KERNELS.register("poplar.popnn_norm_training")
def _norm_training(op: ir.Operation) -> Kernel:
    kind, eps, momentum = attr(op, "kind"), attr(op, "epsilon"), attr(op, "momentum")
    shape = tensor_type(op.operands[0])[0]
    if kind == "batch":
        if segments(op, "operandSegmentSizes")[3] == 2:
            return lambda x, w, b, rm, rv: aten._native_batch_norm_legit_functional(x, w, b, rm, rv, True, momentum, eps)
        return lambda x, w, b: aten._native_batch_norm_legit.no_stats(x, w, b, True, momentum, eps)
    if kind == "layer":
        normalized = shape[len(shape) - attr(op, "num_dims") :]
        return lambda x, w, b: aten.native_layer_norm(x, normalized, w, b, eps)
    groups = attr(op, "num_groups")
    n, c, hw = shape[0], shape[1], math.prod(shape[2:])
    return lambda x, w, b: aten.native_group_norm(x, w, b, n, c, hw, groups, eps)


@KERNELS.register("poplar.popnn_nonlinearity")
def _nonlinearity(op: ir.Operation) -> Kernel:
    kind, dim = attr(op, "kind"), attr(op, "dim")
    table: dict[str, Kernel] = {
        "relu": torch.relu,
        "gelu_erf": F.gelu,
        "gelu_tanh": lambda x: F.gelu(x, approximate="tanh"),
        "sigmoid": torch.sigmoid,
        "tanh": torch.tanh,
        "silu": F.silu,
        "hard_sigmoid": F.hardsigmoid,
        "hard_swish": F.hardswish,
        "softmax": lambda x: torch.softmax(x, dim),
        "log_softmax": lambda x: torch.log_softmax(x, dim),
        "safe_softmax": lambda x: torch.ops.aten._safe_softmax(x, dim),
    }
    return table[kind]
