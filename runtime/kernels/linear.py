"""Linear algebra kernels: matrix products, the linear layer and convolution."""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch_mlir import ir

from .base import KERNELS, Kernel, attr


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
