"""Random kernels (``poprand``). Each takes, before the op's operands, the seed of
this execution's generator: the decoder derives it from the program's seed, the call
number (micro-batch) and the op, so the same seed draws the same masks whatever order
pipelined stages run in."""

from __future__ import annotations

import torch
from torch_mlir import ir

from .base import KERNELS, Kernel, attr


@KERNELS.register("poplar.poprand_dropout")
def _dropout(op: ir.Operation) -> Kernel:
    p = attr(op, "p")
    scale = 1.0 / (1.0 - p)

    def dropout(seed: int, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        generator = torch.Generator()
        generator.manual_seed(seed)
        # Drawn on the host whatever the IPU's device: the same seed gives the same masks.
        mask = torch.empty(x.shape, dtype=torch.bool).bernoulli_(1.0 - p, generator=generator).to(x.device)
        return x * mask * scale, mask

    return dropout
