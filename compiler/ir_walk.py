"""Small walks over MLIR ops shared by passes and the runtime decoder."""

from __future__ import annotations

from torch_mlir import ir


def operands_within(op: ir.Operation) -> list[ir.Value]:
    """The operands of ``op`` and of every op nested in its regions (uses inside a loop body count)."""
    found = list(op.operands)
    for region in op.regions:
        for block in region.blocks:
            for inner in block.operations:
                found.extend(operands_within(inner.operation))
    return found
