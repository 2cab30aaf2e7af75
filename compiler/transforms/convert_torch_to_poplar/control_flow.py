"""The value ops of device control flow (``ipu.carried``, ``ipu.region_yield``,
``ipu.region_result``): kept, over converted tensors, for ``poplar-build-program``. The
region ops themselves (``ipu.for_loop``, ``ipu.if``) are rebuilt by the pass, which
lowers their bodies like any block."""

from __future__ import annotations

from typing import Any

from torch_mlir import ir

from ipu_mlir.support.registry import Registry

from ...lowering import Lowering, Pattern, result_type


def keep_over_tensors(lw: Lowering, op: ir.Operation) -> list[Any]:
    """The same op over the converted operands and builtin tensor result types."""
    operands = [lw.v(v) for v in op.operands]
    new = lw.rebuild(op, operands, [result_type(op, i) for i in range(len(op.results))])
    return list(new.results)


def populate(patterns: Registry[Pattern]) -> None:
    """Register the lowerings of this family: the values crossing a loop body's or a branch's boundary."""
    patterns.register("ipu.carried", "ipu.region_yield", "ipu.region_result")(keep_over_tensors)
