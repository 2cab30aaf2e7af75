"""Shared pieces of the passes that plan how a ``poplar.graph`` executes
(``poplar-fuse-linear``, ``poplar-plan-in-place``, ``poplar-share-pool-indices``,
``poplar-share-buffers``): the readers of each value within a run block, the views
aliasing a tensor, and the attributes a rewritten op hands on to the ops replacing it.
"""

from __future__ import annotations

from torch_mlir import ir

from ipu_mlir.dialects.poplar import POPLAR_VIEWS
from ipu_mlir.support.ir_walk import operands_within


def readers_in(ops: list[ir.Operation]) -> dict[ir.Value, list[ir.Operation]]:
    """For each value, the ops of ``ops`` that read it, directly or in a nested region
    (once per use, in order)."""
    readers: dict[ir.Value, list[ir.Operation]] = {}
    for op in ops:
        for operand in operands_within(op):
            readers.setdefault(operand, []).append(op)
    return readers


def is_identity_map(op: ir.Operation) -> bool:
    """A ``popops_map`` computing ``_1``: its result is its operand."""
    return op.name == "poplar.popops_map" and ir.StringAttr(op.attributes["expr"]).value == "_1"


def views_of(value: ir.Value, readers: dict[ir.Value, list[ir.Operation]]) -> set[ir.Value]:
    """``value`` and every value aliasing its elements through views (reshape,
    dim_shuffle, slice, concat, broadcast) or identity maps, among ``readers``' ops."""
    found, pending = {value}, [value]
    while pending:
        current = pending.pop()
        for reader in readers.get(current, []):
            if reader.name in POPLAR_VIEWS or is_identity_map(reader):
                for result in reader.results:
                    if result not in found:
                        found.add(result)
                        pending.append(result)
    return found


def carry_attributes(source: ir.Operation, target: ir.Operation) -> None:
    """Give ``target`` the discardable attributes of ``source`` (``pipeline.stage``,
    ``pipeline.ipu``, ...: those with a dialect prefix), so it runs where ``source`` ran."""
    for name in [str(name) for name in source.attributes]:
        if "." in name:
            target.attributes[name] = source.attributes[name]


def producer(value: ir.Value) -> ir.Operation | None:
    """The op defining ``value`` (None for a block argument)."""
    owner = value.owner
    if isinstance(owner, ir.Block):
        return None
    return owner.operation if hasattr(owner, "operation") else owner
