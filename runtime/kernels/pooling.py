"""Kernels of the popnn pooling ops: ``popnn_pool`` (max, average, window sums), the max
pool that keeps its argmax, and their input gradients, in 1, 2 and 3 spatial dims, with
the ATen functions eager PyTorch calls (a 1-D pool runs as the 2-D one over a height of 1,
as ATen itself does)."""

from __future__ import annotations

from collections.abc import Callable

import torch
import torch.nn.functional as F
from torch_mlir import ir

from .base import KERNELS, Kernel, attr, tensor_type

aten = torch.ops.aten

MAX_POOLS = {1: F.max_pool1d, 2: F.max_pool2d, 3: F.max_pool3d}


def pool_window(op: ir.Operation) -> tuple[list[int], list[int], list[int], bool]:
    """kernel, stride, padding and ceil_mode of a pooling op or of its gradient."""
    return attr(op, "kernel"), attr(op, "stride"), attr(op, "padding"), attr(op, "ceil_mode")


def _as_2d(kernel: list[int], stride: list[int], padding: list[int]) -> tuple[list[int], list[int], list[int]]:
    """A 1-D window as the 2-D window over a height of 1."""
    return [1, *kernel], [1, *stride], [0, *padding]


def _lift_1d(fn: Callable[..., torch.Tensor], tensors: int) -> Callable[..., torch.Tensor]:
    """``fn`` over 2-D tensors called on 1-D ones: the first ``tensors`` arguments get a
    height of 1 and the result loses it."""

    def call(*args: torch.Tensor) -> torch.Tensor:
        lifted = [a.unsqueeze(2) if i < tensors else a for i, a in enumerate(args)]
        return fn(*lifted).squeeze(2)

    return call


def _average(spatial: int, kernel: list[int], stride: list[int], padding: list[int], ceil: bool, include_pad: bool,
             divisor: int | None) -> Kernel:
    if spatial == 1:
        kernel, stride, padding = _as_2d(kernel, stride, padding)
        return _lift_1d(_average(2, kernel, stride, padding, ceil, include_pad, divisor), 1)
    fn = aten.avg_pool2d if spatial == 2 else aten.avg_pool3d
    return lambda x: fn(x, kernel, stride, padding, ceil, include_pad, divisor)


@KERNELS.register("poplar.popnn_pool")
def _pool(op: ir.Operation) -> Kernel:
    kind, include_pad = attr(op, "kind"), attr(op, "count_include_pad")
    kernel_size, stride, padding, ceil = pool_window(op)
    spatial = len(kernel_size)
    if kind == "max":
        fn = MAX_POOLS[spatial]
        return lambda x: fn(x, kernel_size, stride, padding, 1, ceil)
    if kind == "avg":
        return _average(spatial, kernel_size, stride, padding, ceil, include_pad, None)
    # "sum": the window sums, padding counted as zeros (ATen's average with divisor 1).
    return _average(spatial, kernel_size, stride, padding, ceil, True, 1)


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


def _max_pool_backward(kernel_size: list[int], stride: list[int], padding: list[int], ceil: bool) -> Kernel:
    """``(x, g, indices) -> dx``: eager's ``max_pool{2,3}d_with_indices_backward`` (a 1-D
    pool's indices index its row, so they are the 2-D pool's indices over a height of 1)."""
    if len(kernel_size) == 1:
        kernel_size, stride, padding = _as_2d(kernel_size, stride, padding)
        return _lift_1d(_max_pool_backward(kernel_size, stride, padding, ceil), 3)
    backward = aten.max_pool2d_with_indices_backward if len(kernel_size) == 2 else aten.max_pool3d_with_indices_backward
    dilation = [1] * len(kernel_size)
    return lambda x, g, indices: backward(g, x, kernel_size, stride, padding, dilation, ceil, indices)


@KERNELS.register("poplar.popnn_pool_grad")
def _pool_grad(op: ir.Operation) -> Kernel:
    kind, include_pad = attr(op, "kind"), attr(op, "count_include_pad")
    kernel_size, stride, padding, ceil = pool_window(op)
    spatial = len(kernel_size)
    if kind == "max":
        forward, backward = MAX_POOLS[spatial], _max_pool_backward(kernel_size, stride, padding, ceil)

        def max_grad(x: torch.Tensor, g: torch.Tensor) -> torch.Tensor:
            # Poplar recomputes the argmax from the input, as poolInputGradient does.
            _, indices = forward(x, kernel_size, stride, padding, 1, ceil, return_indices=True)
            return backward(x, g, indices)

        return max_grad
    divisor = 1 if kind == "sum" else None
    count_pad = include_pad or kind == "sum"
    if spatial == 1:
        kernel2, stride2, padding2 = _as_2d(kernel_size, stride, padding)
        return _lift_1d(lambda x, g: aten.avg_pool2d_backward(g, x, kernel2, stride2, padding2, ceil, count_pad, divisor), 2)
    backward = aten.avg_pool2d_backward if spatial == 2 else aten.avg_pool3d_backward
    return lambda x, g: backward(g, x, kernel_size, stride, padding, ceil, count_pad, divisor)


@KERNELS.register("poplar.popnn_max_pool_grad_with_indices")
def _max_pool_grad_with_indices(op: ir.Operation) -> Kernel:
    backward = _max_pool_backward(*pool_window(op))
    if tensor_type(op.operands[2])[1] == torch.int64:
        return backward
    return lambda x, g, indices: backward(x, g, indices.to(torch.int64))
