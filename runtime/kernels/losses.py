"""Loss kernels: the NLL loss of ``popnn_nll_loss`` (its gradient is in ``backward``)."""

from __future__ import annotations

import torch
from torch_mlir import ir

from .base import KERNELS, Kernel, attr

# popnn_nll_loss's reduction -> ATen's reduction enum.
REDUCTIONS = {"none": 0, "mean": 1, "sum": 2}


@KERNELS.register("poplar.popnn_nll_loss")
def _nll_loss(op: ir.Operation) -> Kernel:
    reduction, ignore = REDUCTIONS[attr(op, "reduction")], attr(op, "ignore_index")
    # the optional class weight is a third operand
    return lambda logp, target, *weight: torch.ops.aten.nll_loss_forward(logp, target, *(weight or (None,)), reduction, ignore)[0]
