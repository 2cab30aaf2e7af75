"""Kernels of the popnn forward ops: normalisation in inference and training form, and
the non-linearities (pooling is in ``pooling``)."""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch_mlir import ir

from .base import KERNELS, Kernel, attr, segments, tensor_type

aten = torch.ops.aten

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
    # ATen's kernel wants a dense input (F.group_norm makes one; an expanded view reaches it here).
    return lambda x, w, b: aten.native_group_norm(x.contiguous(), w, b, n, c, hw, groups, eps)


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
