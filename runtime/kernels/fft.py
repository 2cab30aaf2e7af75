"""Kernels of the DFT ops (``poplin_dft_r2c`` / ``_c2r`` / ``_c2c``): ATen's FFTs, the
functions eager ``torch.fft`` calls, on complex64 / complex128 tensors."""

from __future__ import annotations

import torch
from torch_mlir import ir

from .base import KERNELS, Kernel, attr

aten = torch.ops.aten

# The ops' normalization names -> ATen's fft_norm_mode (none, 1/sqrt(n), 1/n).
NORM_MODES = {"none": 0, "by_root_n": 1, "by_n": 2}


@KERNELS.register("poplar.poplin_dft_r2c")
def _r2c(op: ir.Operation) -> Kernel:
    dims, norm, onesided = attr(op, "dims"), NORM_MODES[attr(op, "normalization")], attr(op, "onesided")
    return lambda x: aten._fft_r2c(x, dims, norm, onesided)


@KERNELS.register("poplar.poplin_dft_c2r")
def _c2r(op: ir.Operation) -> Kernel:
    dims, norm, size = attr(op, "dims"), NORM_MODES[attr(op, "normalization")], attr(op, "last_dim_size")
    return lambda x: aten._fft_c2r(x, dims, norm, size)


@KERNELS.register("poplar.poplin_dft_c2c")
def _c2c(op: ir.Operation) -> Kernel:
    dims, norm, forward = attr(op, "dims"), NORM_MODES[attr(op, "normalization")], attr(op, "forward")
    return lambda x: aten._fft_c2c(x, dims, norm, forward)


@KERNELS.register("poplar.view_as_real")
def _view_as_real(op: ir.Operation) -> Kernel:
    return lambda x: torch.view_as_real(x).clone()  # a new tensor: results never alias operands


@KERNELS.register("poplar.view_as_complex")
def _view_as_complex(op: ir.Operation) -> Kernel:
    return lambda x: torch.view_as_complex(x.contiguous()).clone()
