"""Lowerings of the ``ipu`` model ops that sit among Torch ops (print_tensor, nop,
identity_loss, set_available_memory, multi_conv, set_overlap, recomputation_checkpoint), and the optimizer ops
that ``convert-ipu-to-poplar`` lowers later: kept, over converted tensors."""

from __future__ import annotations

import logging
import math
from typing import Any

from torch_mlir import ir

from ipu_mlir.dialects import poplar as pd
from ipu_mlir.dialects.ipu import PRINT_FORMAT_ATTR as IPU_PRINT_FORMAT
from ipu_mlir.dialects.ipu import LossReduction
from ipu_mlir.dialects.pipeline_attrs import CHECKPOINT_ATTR
from ipu_mlir.dialects.poplar import POPLAR_VIEWS
from ipu_mlir.dialects.poplar.planning import (
    AVAILABLE_MEMORY_ATTR,
    AVAILABLE_MEMORY_OPS,
    MULTI_CONV_ATTR,
    MULTI_CONV_OPS,
    OVERLAP_ATTR,
    PARTIALS_TYPE_ATTR,
    PLANNED_OPS,
)
from ipu_mlir.support.registry import Registry

from ...lowering import (
    IPU_TRAINING_OPS,
    Lowering,
    Pattern,
    Unsupported,
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


def _planned_producer(value: ir.Value, through_add: bool,
                      ops: frozenset[str] = PLANNED_OPS) -> tuple[ir.Operation | None, str]:
    """The matmul or convolution computing ``value`` (through views, and with ``through_add``
    the bias add of a linear layer: ``poplin_matmul`` + ``popops_add`` until
    ``poplar-fuse-linear`` makes them one ``poplin_linear``), or None; and what computes
    ``value`` past its views (for messages)."""
    pending, source = [value], ""
    while pending:
        owner = pending.pop().owner
        if not isinstance(owner, ir.Operation | ir.OpView):
            source = source or "an argument"
            continue
        owner = owner.operation
        if owner.name in ops:
            return owner, owner.name
        if owner.name in POPLAR_VIEWS or (through_add and owner.name == "poplar.popops_add"):
            pending.extend(owner.operands)
        else:
            source = source or owner.name
    return None, source


def lower_set_available_memory(lw: Lowering, op: ir.Operation) -> list[Any]:
    """The value passes through; the matmul, convolution, embedding lookup or indexing op
    computing it gets ``poplar.available_memory``. For any other op the call is an identity, as
    PopTorch documents, and a warning (once per op kind) says it has no effect there."""
    value = lw.v(op.operands[0])
    planned, source = _planned_producer(value, through_add=True, ops=AVAILABLE_MEMORY_OPS)
    if planned is not None:
        planned.attributes[AVAILABLE_MEMORY_ATTR] = op.attributes["proportion"]
    elif source not in _warned_sources:
        _warned_sources.add(source)
        _logger.warning(
            "poptorch.set_available_memory has no effect on a value that comes from %s: only convolutions, matrix "
            "multiplications, embedding lookups and indexing operations take an available memory proportion. "
            "Call it on the result of one of those", source or "no op")
    return [value]


_logger = logging.getLogger("ipu_mlir.planning")
_warned_sources: set[str] = set()  # producers already warned about (once per process)


def lower_multi_conv(lw: Lowering, op: ir.Operation) -> list[Any]:
    """The value passes through; the convolution computing it gets ``poplar.multi_conv``
    (its group, index and the group's plan) and the member's available memory and partials type."""
    value = lw.v(op.operands[0])
    conv, source = _planned_producer(value, through_add=False)
    if conv is None or conv.name not in MULTI_CONV_OPS:
        raise Unsupported(f"poptorch.MultiConv member {ir.IntegerAttr(op.attributes['index']).value} is not the result "
                          f"of a convolution (it comes from {source}); only "
                          "convolutions (torch.nn.Conv1d/2d/3d, F.conv*d, conv_transpose*d) join a MultiConv")
    entries = {key: op.attributes[key] for key in ("group", "index", "plan_type", "per_conv_reserved_tiles",
                                                    "cycle_back_off", "enable_conv_dithering") if key in op.attributes}
    conv.attributes[MULTI_CONV_ATTR] = ir.DictAttr.get(entries)
    if "available_memory" in op.attributes:
        conv.attributes[AVAILABLE_MEMORY_ATTR] = op.attributes["available_memory"]
    if "partials_type" in op.attributes:
        conv.attributes[PARTIALS_TYPE_ATTR] = op.attributes["partials_type"]
    return [value]


def lower_set_overlap(lw: Lowering, op: ir.Operation) -> list[Any]:
    """The value passes through; its host stream's overlap goes on the function's argument
    ("input") or result ("output") attributes as ``poplar.overlap``, which
    ``poplar-build-program`` puts on the ``poplar.host_stream``."""
    value = lw.v(op.operands[0])
    direction = ir.StringAttr(op.attributes["direction"]).value
    mode = op.attributes["mode"]
    func = lw.block.owner.operation
    if direction == "input":
        if not isinstance(value.owner, ir.Block):
            raise Unsupported("poptorch.set_overlap_for_input takes the model's inputs as they come in: call it at "
                              "the start of forward on each input, before any op uses it")
        _add_to_entry(func, "arg_attrs", ir.BlockArgument(value).arg_number, OVERLAP_ATTR, mode)
        return [value]
    uses = list(op.results[0].uses)
    if len(uses) != 1 or uses[0].owner.name != "func.return":
        raise Unsupported("poptorch.set_overlap_for_output takes the model's outputs as they go out: call it at the "
                          "end of forward on each output and return its result, unused by any other op")
    _add_to_entry(func, "res_attrs", uses[0].operand_number, OVERLAP_ATTR, mode)
    return [value]


def _add_to_entry(func: ir.Operation, which: str, index: int, name: str, attr: ir.Attribute) -> None:
    """Add ``name = attr`` to entry ``index`` of the function's ``arg_attrs`` / ``res_attrs``."""
    entries = list(ir.ArrayAttr(func.attributes[which])) if which in func.attributes else []
    function_type = ir.FunctionType(ir.TypeAttr(func.attributes["function_type"]).value)
    count = len(function_type.inputs if which == "arg_attrs" else function_type.results)
    entries += [ir.DictAttr.get({})] * (count - len(entries))
    entry = ir.DictAttr(entries[index])
    values = {entry[i].name: entry[i].attr for i in range(len(entry))}
    values[name] = attr
    entries[index] = ir.DictAttr.get(values)
    func.attributes[which] = ir.ArrayAttr.get(entries)


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
    patterns.register("ipu.set_available_memory")(lower_set_available_memory)
    patterns.register("ipu.multi_conv")(lower_multi_conv)
    patterns.register("ipu.set_overlap")(lower_set_overlap)
    patterns.register("ipu.recomputation_checkpoint")(lower_recomputation_checkpoint)
    patterns.register(*IPU_TRAINING_OPS)(keep_for_ipu_conversion)
