"""Gradient kernels: the ATen backward functions eager autograd calls for
non-linearities, normalisation, convolution, the NLL loss and embeddings (pooling
gradients are in ``pooling``)."""

from __future__ import annotations

import math

import torch
from torch_mlir import ir

from .base import KERNELS, Kernel, attr, segments, tensor_type
from .losses import REDUCTIONS

aten = torch.ops.aten


@KERNELS.register("poplar.popnn_nonlinearity_grad")
def _nonlinearity_grad(op: ir.Operation) -> Kernel:
    kind, dim = attr(op, "kind"), attr(op, "dim")
    dtype = tensor_type(op.results[0])[1]
    table: dict[str, Kernel] = {
        "relu": lambda g, x: aten.threshold_backward(g, x, 0),
        "gelu_erf": lambda g, x: aten.gelu_backward(g, x, approximate="none"),
        "gelu_tanh": lambda g, x: aten.gelu_backward(g, x, approximate="tanh"),
        "silu": lambda g, x: aten.silu_backward(g, x),
        "hard_sigmoid": lambda g, x: aten.hardsigmoid_backward(g, x),
        "hard_swish": lambda g, x: aten.hardswish_backward(g, x),
        "sigmoid": lambda g, y: aten.sigmoid_backward(g, y),
        "tanh": lambda g, y: aten.tanh_backward(g, y),
        "softmax": lambda g, y: aten._softmax_backward_data(g, y, dim, dtype),
        "safe_softmax": lambda g, y: aten._softmax_backward_data(g, y, dim, dtype),
        "log_softmax": lambda g, y: aten._log_softmax_backward_data(g, y, dim, dtype),
    }
    return table[kind]


@KERNELS.register("poplar.popnn_norm_grad")
def _norm_grad(op: ir.Operation) -> Kernel:
    kind, eps = attr(op, "kind"), attr(op, "epsilon")
    shape = tensor_type(op.operands[1])[0]
    mask = [True, True, True]
    if kind == "batch":
        return lambda g, x, mean, invstd, w: aten.native_batch_norm_backward(g, x, w, None, None, mean, invstd, True, eps, mask)
    if kind == "layer":
        normalized = shape[len(shape) - attr(op, "num_dims") :]
        return lambda g, x, mean, rstd, w: aten.native_layer_norm_backward(g, x, normalized, mean, rstd, w, w, mask)
    groups = attr(op, "num_groups")
    n, c, hw = shape[0], shape[1], math.prod(shape[2:])
    # ATen's group norm gradient reads dY and X as dense buffers: an expanded gradient (of a
    # sum) gave garbage, so both are made contiguous first (a no-op when they are).
    return lambda g, x, mean, rstd, w: aten.native_group_norm_backward(g.contiguous(), x.contiguous(), mean, rstd, w, n, c, hw, groups, mask)


@KERNELS.register("poplar.poplin_conv_grad")
def _conv_grad(op: ir.Operation) -> Kernel:
    stride, padding, dilation, groups = attr(op, "stride"), attr(op, "padding"), attr(op, "dilation"), attr(op, "groups")
    wanted = [size == 1 for size in segments(op, "resultSegmentSizes")]
    weight_shape = tensor_type(op.operands[2])[0]
    bias_sizes = [weight_shape[0]] if wanted[2] else None
    zeros = [0] * len(stride)

    def grads(g: torch.Tensor, x: torch.Tensor, w: torch.Tensor) -> tuple[torch.Tensor, ...]:
        out = aten.convolution_backward(g, x, w, bias_sizes, stride, padding, dilation, False, zeros, groups, wanted)
        return tuple(t for t, keep in zip(out, wanted, strict=True) if keep)

    if sum(wanted) == 1:  # one result (Conv2d(bias=False) under a frozen input): the decoder stores a tensor, not a 1-tuple
        index = wanted.index(True)
        return lambda g, x, w: aten.convolution_backward(
            g, x, w, bias_sizes, stride, padding, dilation, False, zeros, groups, wanted)[index]
    return grads


@KERNELS.register("poplar.popnn_nll_loss_grad")
def _nll_loss_grad(op: ir.Operation) -> Kernel:
    reduction, ignore = REDUCTIONS[attr(op, "reduction")], attr(op, "ignore_index")

    def grad(g: torch.Tensor, logp: torch.Tensor, target: torch.Tensor, *weight: torch.Tensor) -> torch.Tensor:
        # total_weight as nll_loss_forward computes it: the selected weights' sum (or count)
        total = aten.nll_loss_forward(logp.detach(), target, *(weight or (None,)), reduction, ignore)[1]
        return aten.nll_loss_backward(g, logp, target, *(weight or (None,)), reduction, ignore, total)

    return grad


@KERNELS.register("poplar.popops_multi_update_add")
def _multi_update_add(op: ir.Operation) -> Kernel:
    rows = tensor_type(op.results[0])[0][0]
    padding = attr(op, "padding_index")
    return lambda updates, indices: aten.embedding_dense_backward(updates, indices, rows, padding, False)


