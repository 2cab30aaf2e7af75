"""ipu-annotate-blocks: turns the block metadata in op locations into ``ipu.block`` attributes.

Input: Torch-dialect functions imported by the frontend, whose locations carry
``ipu_block`` / ``ipu_id`` / ``bwd`` / ``seq_nr`` metadata. Output: the same IR with
``ipu.block = #ipu.block<"user_id", ipu_id>`` on every op that belongs to a block, for
``ipu-assign-stages`` to group into stages.
"""

from __future__ import annotations

import dataclasses
from typing import ClassVar

from torch_mlir import ir

from ipu_mlir.dialects.ipu import BLOCK_ATTR, UNASSIGNED_IPU, make_block_attr

from .. import location_metadata as meta
from ..pass_base import Diagnostics, ModulePass


@dataclasses.dataclass(frozen=True)
class AnnotateBlocks(ModulePass):
    """Attach ipu.block attributes from the poptorch.Block metadata in op locations.

    Rules, in program order within each function:
    1. A forward op whose location has ``ipu_block`` gets that block and its ``ipu_id``
       (``-1`` when the user gave none: the execution strategy assigns the IPU later).
    2. A backward op (``bwd = true``) takes the block of the forward op with the same
       ``seq_nr`` (autograd ties them together); the backward of a forward op before
       the first block stays outside any block, as that op does. Without such a forward op, its own ``ipu_block``.
    3. A backward op still without a block takes the block of the producers of its
       operands when they agree on one (``inherit-from-producers``); operands from
       several blocks leave it without one.
    Forward ops outside any block are left alone: ``ipu-assign-stages`` applies the
    "before the first block runs on IPU 0" and "Block-only models" rules.

    Preconditions: ``ipu_block`` is a non-empty string and ``ipu_id`` an integer >= 0;
    anything else is a located error.

    Arguments:
      inherit-from-producers: apply rule 3 (default true).
    """

    name: ClassVar[str] = "ipu-annotate-blocks"
    inherit_from_producers: bool = True

    def run(self, module: ir.Operation, diag: Diagnostics) -> None:
        for func in _functions(module):
            self._annotate_function(func, diag)

    def _annotate_function(self, func: ir.Operation, diag: Diagnostics) -> None:
        by_seq_nr: dict[int, ir.Attribute] = {}
        outside: set[int] = set()  # seq_nr of the forward ops before the first block
        pending: list[tuple[ir.Operation, ir.Attribute | None, int | None]] = []
        seen_block = False
        for op in _ops_in_order(func):
            data = meta.metadata(op)
            attr = self._block_from_metadata(op, data, diag)
            seq = meta.seq_nr(op)
            if meta.is_backward(op):
                pending.append((op, attr, seq))
                continue
            if attr is not None:
                op.attributes[BLOCK_ATTR] = attr
                seen_block = True
                if seq is not None:
                    by_seq_nr.setdefault(seq, attr)
            elif seq is not None and not seen_block:
                outside.add(seq)
        for op, attr, seq in pending:
            # The forward op decides: autograd traces the backward after the whole forward,
            # so the block a backward op was traced in is whichever block was last active.
            if seq in by_seq_nr:
                attr = by_seq_nr[seq]
            elif seq in outside:
                continue  # the backward of an op outside any block stays outside
            if attr is None and self.inherit_from_producers:
                attr = _producer_block(op)
            if attr is not None:
                op.attributes[BLOCK_ATTR] = attr

    @staticmethod
    def _block_from_metadata(op: ir.Operation, data: dict[str, ir.Attribute], diag: Diagnostics) -> ir.Attribute | None:
        if meta.BLOCK not in data:
            return None
        user_id = data[meta.BLOCK]
        if not isinstance(user_id, ir.StringAttr) or not ir.StringAttr(user_id).value:
            diag.error(op, f"block metadata '{meta.BLOCK}' must be a non-empty string, got {user_id}")
            return None
        ipu_id = UNASSIGNED_IPU
        if meta.IPU in data:
            value = data[meta.IPU]
            if not isinstance(value, ir.IntegerAttr) or isinstance(value, ir.BoolAttr):
                diag.error(op, f"block '{ir.StringAttr(user_id).value}': '{meta.IPU}' must be an integer, got {value}")
                return None
            ipu_id = ir.IntegerAttr(value).value
            if ipu_id < 0:
                diag.error(op, f"block '{ir.StringAttr(user_id).value}': ipu_id must be >= 0, got {ipu_id}")
                return None
        return make_block_attr(ir.StringAttr(user_id).value, ipu_id)


def _producer_block(op: ir.Operation) -> ir.Attribute | None:
    """The block of the producers of ``op``'s operands when they all agree on one; a
    gradient summed from several blocks (a value used by layers on different IPUs) gets
    none, and ipu-assign-stages places it after its last operand."""
    found: ir.Attribute | None = None
    for operand in op.operands:
        owner = operand.owner
        if isinstance(owner, ir.Block):
            continue
        producer = owner.operation if hasattr(owner, "operation") else owner
        if BLOCK_ATTR in producer.attributes:
            if found is not None and producer.attributes[BLOCK_ATTR] != found:
                return None
            found = producer.attributes[BLOCK_ATTR]
    return found


def _functions(module: ir.Operation) -> list[ir.Operation]:
    return [op.operation for op in module.regions[0].blocks[0].operations if op.operation.name == "func.func"]


def _ops_in_order(func: ir.Operation) -> list[ir.Operation]:
    ops: list[ir.Operation] = []

    def visit(op: ir.Operation) -> ir.WalkResult:
        if op != func:
            ops.append(op)
        return ir.WalkResult.ADVANCE

    func.walk(visit, ir.WalkOrder.PRE_ORDER)
    return ops
