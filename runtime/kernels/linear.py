"""Linear algebra kernels: matrix products, the linear layer, and convolution (ordinary
and transposed) with the gradients of a transposed one."""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch_mlir import ir

from .base import KERNELS, Kernel, attr, segments, tensor_type


@KERNELS.register("poplar.poplin_matmul")
def _matmul(op: ir.Operation) -> Kernel:
    return torch.matmul


@KERNELS.register("poplar.poplin_linear")
def _linear(op: ir.Operation) -> Kernel:
    # One addmm, as eager PyTorch runs nn.Linear on 2-D input.
    return F.linear


@KERNELS.register("poplar.poplin_conv")
def _conv(op: ir.Operation) -> Kernel:
    stride, padding, dilation, groups = attr(op, "stride"), attr(op, "padding"), attr(op, "dilation"), attr(op, "groups")
    zeros = [0] * len(stride)
    conv = torch.ops.aten.convolution.default
    if len(op.operands) == 3:
        return lambda x, w, b: conv(x, w, b, stride, padding, dilation, False, zeros, groups)
    return lambda x, w: conv(x, w, None, stride, padding, dilation, False, zeros, groups)


@KERNELS.register("poplar.poplin_conv_transpose")
def _conv_transpose(op: ir.Operation) -> Kernel:
    window = attr(op, "stride"), attr(op, "padding"), attr(op, "dilation")
    output_padding, groups = attr(op, "output_padding"), attr(op, "groups")
    conv = torch.ops.aten.convolution.default
    if len(op.operands) == 3:
        return lambda x, w, b: conv(x, w, b, *window, True, output_padding, groups)
    return lambda x, w: conv(x, w, None, *window, True, output_padding, groups)


@KERNELS.register("poplar.poplin_conv_transpose_grad")
def _conv_transpose_grad(op: ir.Operation) -> Kernel:
    window = attr(op, "stride"), attr(op, "padding"), attr(op, "dilation")
    output_padding, groups = attr(op, "output_padding"), attr(op, "groups")
    wanted = [size == 1 for size in segments(op, "resultSegmentSizes")]
    bias_sizes = [tensor_type(op.operands[0])[0][1]] if wanted[2] else None

    def grads(g: torch.Tensor, x: torch.Tensor, w: torch.Tensor) -> tuple[torch.Tensor, ...]:
        out = torch.ops.aten.convolution_backward(g, x, w, bias_sizes, *window, True, output_padding, groups, wanted)
        return tuple(t for t, keep in zip(out, wanted, strict=True) if keep)

    if sum(wanted) == 1:  # one result: the decoder stores a tensor, not a 1-tuple
        index = wanted.index(True)
        return lambda g, x, w: torch.ops.aten.convolution_backward(g, x, w, bias_sizes, *window, True, output_padding, groups, wanted)[index]
    return grads


@KERNELS.register("poplar.poplin_matmul_acc")
def _matmul_acc(op: ir.Operation) -> Kernel:
    alpha, beta = attr(op, "alpha"), attr(op, "beta")
    ranks = (len(tensor_type(op.operands[1])[0]), len(tensor_type(op.operands[2])[0]))
    fn = {(2, 2): torch.addmm, (3, 3): torch.baddbmm, (2, 1): torch.addmv}[ranks]  # one BLAS call, as eager's
    return lambda c, a, b: fn(c, a, b, beta=beta, alpha=alpha)
