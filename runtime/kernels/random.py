"""Random kernels (``poprand``): dropout, uniform and normal draws. Each
takes, before the op's operands, the seed of this execution's generator: the decoder
derives it from the program's seed, the call number (micro-batch) and the op, so the
same seed draws the same values whatever order pipelined stages run in. Draws are made
on the host (a CPU generator), so they do not depend on the IPU's torch device."""

from __future__ import annotations

import torch
from torch_mlir import ir

from .base import KERNELS, Kernel, attr, tensor_type


def _generator(seed: int) -> torch.Generator:
    generator = torch.Generator()
    generator.manual_seed(seed)
    return generator


@KERNELS.register("poplar.poprand_dropout")
def _dropout(op: ir.Operation) -> Kernel:
    p = attr(op, "p")
    scale = 1.0 / (1.0 - p)

    def dropout(seed: int, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        # Drawn on the host whatever the IPU's device: the same seed gives the same masks.
        mask = torch.empty(x.shape, dtype=torch.bool).bernoulli_(1.0 - p, generator=_generator(seed)).to(x.device)
        return x * mask * scale, mask

    return dropout


@KERNELS.register("poplar.poprand_uniform")
def _uniform(op: ir.Operation) -> Kernel:
    low, high = attr(op, "min_val"), attr(op, "max_val")
    shape, dtype = tensor_type(op.results[0])
    if not (dtype.is_floating_point or dtype.is_complex):
        low_int, high_int = int(low), int(high)
        return lambda seed: (torch.randint(low_int, high_int, shape, generator=_generator(seed), dtype=dtype),)
    if (low, high) == (0.0, 1.0):  # torch.rand's own draw
        return lambda seed: (torch.rand(shape, generator=_generator(seed), dtype=dtype),)
    return lambda seed: (torch.empty(shape, dtype=dtype).uniform_(low, high, generator=_generator(seed)),)


@KERNELS.register("poplar.poprand_normal")
def _normal(op: ir.Operation) -> Kernel:
    mean, std = attr(op, "mean"), attr(op, "std_dev")
    shape, dtype = tensor_type(op.results[0])
    if (mean, std) == (0.0, 1.0):  # torch.randn's own draw
        return lambda seed: (torch.randn(shape, generator=_generator(seed), dtype=dtype),)
    return lambda seed: (torch.empty(shape, dtype=dtype).normal_(mean, std, generator=_generator(seed)),)

