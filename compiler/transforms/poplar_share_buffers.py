"""poplar-share-buffers: a ``poplar.program_copy`` whose destination may take the source's
buffer is marked ``poplar.copy_mode = "share"``; the IPU Model then moves no data for it.

Input and output: a ``poplar.graph`` (after ``poplar-plan-in-place``, which erases the
copies of in-place updates); only the marks change.
"""

from __future__ import annotations

import dataclasses
from typing import ClassVar

from torch_mlir import ir

from ipu_mlir.dialects import poplar as pd
from ipu_mlir.dialects.poplar.program_order import graphs_of, run_blocks

from ..pass_base import Diagnostics, ModulePass
from ..poplar_execution import is_identity_map, producer

# Ops whose result is (or may be) the storage of another value: a variable written from
# one of them must copy, not take over the buffer: the views but concat, whose result
# the IPU Model builds as a new tensor (torch.cat), plus a variable (another variable's
# storage) and a constant (its value must survive the variable's in-place updates).
ALIASING = (frozenset(pd.POPLAR_VIEWS) - {pd.ConcatOp.OPERATION_NAME}) | {
    pd.VariableOp.OPERATION_NAME, pd.ConstantOp.OPERATION_NAME}


@dataclasses.dataclass(frozen=True)
class ShareBuffers(ModulePass):
    """Let a copy's destination take the source's buffer where that equals copying.

    Preconditions: a poplar.graph. In every run block (function bodies, pipeline.stage
    regions included, and program bodies), a program_copy into a poplar.variable is
    marked share when:
    - the destination is an output anchor and the source is no variable, or an input
      variable, and no view (or identity map) of a variable other than an input or of a
      constant: an anchor only feeds its device-to-host copy, so binding it to the
      micro-batch's value is the same as copying into it;
    - otherwise, the destination is no exchange buffer (that copy gives another IPU its
      own copy of the data), no loop variable (poptorch.for_loop / cond: the loop body
      copies into its buffer again, which would overwrite a shared source) and the
      source is a fresh result: made by an op that is no
      view (reshape, dim_shuffle, slice, broadcast), no variable or constant, no
      identity map (_1) and no block argument. The variable (an updated weight, a new
      running mean) then holds the result's buffer, which no other value shares.
    Every other copy keeps its (absent) mode, copy.

    The mark is a discardable attribute (poplar.copy_mode, verified by program_copy
    when present) rather than a required one: the copies of poplar-build-program and
    pipeline-schedule, and the lit tests that print them, stay as they are, and an
    unmarked copy means what poplar::program::Copy means.

    Arguments: none.
    """

    name: ClassVar[str] = "poplar-share-buffers"

    def run(self, module: ir.Operation, diag: Diagnostics) -> None:
        share = ir.StringAttr.get(pd.CopyMode.SHARE.value)
        for graph in graphs_of(module):
            for ops in list(run_blocks(graph)):
                for op in ops:
                    if op.name == "poplar.program_copy" and may_share(op.operands[0], op.operands[1]):
                        op.attributes[pd.COPY_MODE_ATTR] = share


def may_share(source: ir.Value, destination: ir.Value) -> bool:
    """Whether the variable ``destination`` may take ``source``'s buffer instead of a copy."""
    target = producer(destination)
    if target is None or target.name != "poplar.variable":
        return False
    target_kind = pd.variable_kind(target)
    definer = producer(source)
    source_kind = pd.variable_kind(definer) if definer is not None and definer.name == "poplar.variable" else None
    if target_kind is pd.VariableKind.ANCHOR and source_kind in (None, pd.VariableKind.INPUT):
        # Not a view of a weight, state or constant: the anchor is handed to the host as it
        # is, so it would be the device's own memory, which an update in another block (the
        # update after gradient accumulation), an off-chip variable's store into its remote
        # buffer, or the user writing into the output changes after the forward pass.
        return not views_state(source)
    if target_kind in (pd.VariableKind.EXCHANGE, pd.VariableKind.LOOP):
        # A loop variable is written again by copies of the loop body (into its buffer):
        # taking the buffer of a value of the step would overwrite that value.
        return False
    return fresh_result(source)


def fresh_result(value: ir.Value) -> bool:
    """Whether ``value`` is a new buffer no other value shares (not a view or an identity)."""
    op = producer(value)
    return op is not None and op.name not in ALIASING and not is_identity_map(op)


def views_state(value: ir.Value) -> bool:
    """Whether ``value`` is, through views and identity maps, the buffer of a variable
    other than an input (a weight, state, an off-chip variable's remote buffer) or of a
    constant."""
    while True:
        op = producer(value)
        if op is None:
            return False
        if op.name == pd.VariableOp.OPERATION_NAME:
            return pd.variable_kind(op) is not pd.VariableKind.INPUT
        if op.name == pd.ConstantOp.OPERATION_NAME:
            return True
        if op.name not in ALIASING and not is_identity_map(op):
            return False
        value = op.operands[0]
