"""Collective kernels (GCL): what a collective computes from the values of its replica group.

:func:`combine` is the one definition: the decoder runs ``poplar.gcl_*`` through
:func:`ipu_mlir.runtime.replicas.collective_step`, which gathers the group's values in
group-rank order (the same order on every replica, so a group's replicas get bit-identical
results) and calls it. The kernels registered here are the collectives of a replica alone
(a graph of one replica, or a group of one): a reduction of one value, a gather of one, a
broadcast from itself.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence

import torch
from torch_mlir import ir

from .base import KERNELS, Kernel, KernelError, attr

_REDUCE: dict[str, Callable[[torch.Tensor, torch.Tensor], torch.Tensor]] = {
    "add": torch.add, "mean": torch.add, "mul": torch.mul, "min": torch.minimum, "max": torch.maximum,
}


def reduce_values(values: Sequence[torch.Tensor], op: str) -> torch.Tensor:
    """``values`` reduced by ``op`` in their order (a new tensor, even for one value)."""
    result = functools.reduce(_REDUCE[op], values[1:], values[0])
    if op == "mean":
        return result / len(values)
    return result.clone() if len(values) == 1 else result


def combine(op: ir.Operation) -> Callable[[list[torch.Tensor], int], torch.Tensor]:
    """``fn(values, position)``: the result of collective ``op`` for the replica at group
    rank ``position``, from its group's ``values`` in group-rank order."""
    name = op.name.removeprefix("poplar.gcl_")
    if name == "all_reduce":
        reduction = attr(op, "op")
        return lambda values, position: reduce_values(values, reduction)
    if name == "reduce_scatter":
        reduction = attr(op, "op")

        def scatter(values: list[torch.Tensor], position: int) -> torch.Tensor:
            # "local": no reduction, the replica's part of its own value (CollectiveOperator::LOCAL)
            reduced = values[position] if reduction == "local" else reduce_values(values, reduction)
            rows = reduced.shape[0] // len(values)
            return reduced[position * rows:(position + 1) * rows].clone()

        return scatter
    if name == "all_gather":
        return lambda values, position: torch.cat(values)
    if name == "broadcast":
        root = attr(op, "root")
        return lambda values, position: values[root].clone()
    raise KernelError(f"'{op.name}' is not a collective the IPU Model knows")


def _alone(op: ir.Operation) -> Kernel:
    fn = combine(op)
    return lambda x: fn([x], 0)


for _name in ("all_reduce", "reduce_scatter", "all_gather", "broadcast"):
    KERNELS.register(f"poplar.gcl_{_name}")(_alone)
