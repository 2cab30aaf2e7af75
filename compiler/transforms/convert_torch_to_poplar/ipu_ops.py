"""Lowerings of the ``ipu`` model ops that sit among Torch ops (print_tensor, nop,
identity_loss, set_available_memory, recomputation_checkpoint), and the optimizer ops
that ``convert-ipu-to-poplar`` lowers later: kept, over converted tensors."""

from __future__ import annotations

import math
from typing import Any

from torch_mlir import ir

from ipu_mlir.dialects import poplar as pd
from ipu_mlir.dialects.ipu import PRINT_FORMAT_ATTR as IPU_PRINT_FORMAT
from ipu_mlir.dialects.ipu import LossReduction
from ipu_mlir.dialects.pipeline_attrs import CHECKPOINT_ATTR
from ipu_mlir.dialects.poplar import POPLAR_VIEWS
from ipu_mlir.support.registry import Registry

from ...lowering import (
    IPU_TRAINING_OPS,
    Lowering,
    Pattern,
    result_type,
    shape_of,
)


def lower_print_tensor(lw: Lowering, op: ir.Operation) -> list[Any]:
    x = lw.v(op.operands[0])
    printed = lw.emit(pd.PrintTensorOp, x, op.attributes["title"])
    if IPU_PRINT_FORMAT in op.attributes:  # the layout travels with the print
        printed.operation.attributes[pd.PRINT_FORMAT_ATTR] = op.attributes[IPU_PRINT_FORMAT]
    return [x]


def lower_nop(lw: Lowering, op: ir.Operation) -> list[Any]:
    x = lw.v(op.operands[0])
    return [lw.map("_1", [x], x.type)]  # a real op: the value is not forwarded away


def lower_identity_loss(lw: Lowering, op: ir.Operation) -> list[Any]:
    x = lw.v(op.operands[0])
    reduction = LossReduction.parse(ir.StringAttr(op.attributes["reduction"]).value, "'ipu.identity_loss' reduction")
    if reduction is LossReduction.NONE:
        return [x]
    rank = len(shape_of(x))
    count = math.prod(shape_of(x)) or 1
    scale = 1.0 / count if reduction is LossReduction.MEAN else 1.0
    return [lw.reduce(x, "add", list(range(rank)), False, scale, result_type(op))]


def lower_planning_hint(lw: Lowering, op: ir.Operation) -> list[Any]:
    """A hint for the planner: the value passes through."""
    return [lw.v(op.operands[0])]


def lower_recomputation_checkpoint(lw: Lowering, op: ir.Operation) -> list[Any]:
    """The value passes through; the op computing it (through views: the ops computing
    what the view shows) gets ``pipeline.checkpoint``, so pipeline-schedule stashes it
    instead of recomputing it when recomputation is on."""
    value = lw.v(op.operands[0])
    pending = [value]
    while pending:
        current = pending.pop()
        owner = current.owner
        if not isinstance(owner, ir.Operation | ir.OpView):
            continue  # a function argument: an input or weight, never recomputed
        owner = owner.operation
        if owner.name in POPLAR_VIEWS:
            pending.extend(owner.operands)
            continue
        marked = set(ir.DenseI64ArrayAttr(owner.attributes[CHECKPOINT_ATTR])) if CHECKPOINT_ATTR in owner.attributes else set()
        marked.add(ir.OpResult(current).result_number)
        owner.attributes[CHECKPOINT_ATTR] = ir.DenseI64ArrayAttr.get(sorted(marked))
    return [value]


def keep_for_ipu_conversion(lw: Lowering, op: ir.Operation) -> list[Any]:
    """An optimizer op stays as it is (attributes, placement) over the converted
    tensors: ``convert-ipu-to-poplar`` lowers it."""
    operands = [lw.v(value) for value in op.operands]
    kept = lw.rebuild(op, operands, [result_type(op, i) for i in range(len(op.results))])
    return list(kept.results)


def populate(patterns: Registry[Pattern]) -> None:
    """Register the lowerings of this family: ipu model ops, and the optimizer ops kept for convert-ipu-to-poplar."""
    patterns.register("ipu.print_tensor")(lower_print_tensor)
    patterns.register("ipu.nop")(lower_nop)
    patterns.register("ipu.identity_loss")(lower_identity_loss)
    patterns.register("ipu.set_available_memory")(lower_planning_hint)
    patterns.register("ipu.recomputation_checkpoint")(lower_recomputation_checkpoint)
    patterns.register(*IPU_TRAINING_OPS)(keep_for_ipu_conversion)
