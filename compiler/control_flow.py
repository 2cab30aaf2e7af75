"""Imported ``poptorch.for_loop`` / ``poptorch.cond`` markers -> ``ipu.for_loop`` / ``ipu.if``
(run by ``ipu-raise-custom-ops`` before it raises the other poptorch ops).

The frontend traces a body once between a begin marker (whose results are the body's
inputs) and an end marker (whose operands are its outputs); see
``compiler/frontend/control_flow.py``. Here the body is the forward slice of the begin's
results up to the end: those ops move, in order, into the region of an ``ipu.for_loop``
(``ipu.if``: one region per branch) built where the end marker was. The inputs become
``ipu.carried``, the outputs ``ipu.region_yield`` and the end's results
``ipu.region_result`` (``dialects/ipu_control.py``). Ops of the body that do not depend
on its inputs (they read only weights or other values of the model) stay before the
region op: they compute the same value in every iteration.
"""

from __future__ import annotations

from torch_mlir import ir

from ipu_mlir.dialects import ipu as ipu_d
from ipu_mlir.dialects._base import build
from ipu_mlir.dialects.ipu_control import REGION_OPS
from ipu_mlir.support.ir_build import i64, string
from ipu_mlir.support.ir_walk import operands_within

from .pass_base import Diagnostics
from .torch_ir import NotConstant, constant_value

PREFIX = "torch.poptorch."
MARKERS = ("for_loop_begin", "for_loop_end", "cond_begin", "cond_end")


def marker_kind(op: ir.Operation) -> str | None:
    """``for_loop_begin`` ... for a control-flow marker, None for any other op."""
    if op.name != "torch.operator":
        return None
    name = ir.StringAttr(op.attributes["name"]).value
    kind = name.removeprefix(PREFIX)
    return kind if name.startswith(PREFIX) and kind in MARKERS else None


def _list_items(value: ir.Value) -> list[ir.Value] | None:
    """The elements of a ``torch.prim.ListConstruct`` result."""
    owner = value.owner
    if isinstance(owner, ir.Block) or owner.operation.name != "torch.prim.ListConstruct":
        return None
    return list(owner.operation.operands)


def _unpacked(op: ir.Operation) -> list[ir.Operation]:
    """The ``torch.prim.ListUnpack`` ops of a marker's list result."""
    return [use.owner for use in op.results[0].uses if use.owner.name == "torch.prim.ListUnpack"]


class _Failure(Exception):
    pass


def outline_control_flow(module: ir.Operation, diag: Diagnostics) -> None:
    """Outline every loop and conditional of every function (innermost first)."""
    for func in [op.operation for op in module.regions[0].blocks[0].operations if op.operation.name == "func.func"]:
        block = func.regions[0].blocks[0]
        ends = [op.operation for op in block.operations if marker_kind(op.operation) in ("for_loop_end", "cond_end")]
        for end in ends:  # an inner end comes before its outer one
            try:
                _outline(block, end, diag)
            except _Failure:
                return


def _const(op: ir.Operation, index: int, what: str, diag: Diagnostics) -> int:
    try:
        value = constant_value(op.operands[index])
    except NotConstant as error:
        diag.error(op, f"{what} must be a constant int, got {error}")
        raise _Failure from None
    if not isinstance(value, int):
        diag.error(op, f"{what} must be a constant int, got {value!r}")
        raise _Failure
    return value


def _outline(block: ir.Block, end: ir.Operation, diag: Diagnostics) -> None:
    kind = marker_kind(end)
    loop = kind == "for_loop_end"
    region_id = _const(end, 1 if loop else 3, "the region id", diag)
    ops = [op.operation for op in block.operations]
    position = {op: i for i, op in enumerate(ops)}
    begin_kind = "for_loop_begin" if loop else "cond_begin"
    found = [op for op in ops[:position[end]] if marker_kind(op) == begin_kind
             and _const(op, 1, "the region id", diag) == region_id]
    # A begin whose results nothing reads was dropped by the export (the body does not
    # depend on its inputs): that body has no ops of its own.
    branches = [0] if loop else [0, 1]
    by_branch = {0: found} if loop else {b: [op for op in found if _const(op, 2, "the branch", diag) == b] for b in branches}
    if any(len(ops_) > 1 for ops_ in by_branch.values()) or len(found) > len(branches):
        diag.error(end, f"poptorch.{'for_loop' if loop else 'cond'} #{region_id}: found {len(found)} begin markers "
                        "(a compiler bug; please report it)")
        raise _Failure
    begins = [by_branch[b][0] if by_branch[b] else None for b in branches]
    outputs = [_list_items(end.operands[0])] if loop else [_list_items(end.operands[1]), _list_items(end.operands[2])]
    inputs = [_list_items(begin.operands[0]) if begin is not None else [] for begin in begins]
    if any(items is None for items in outputs + inputs):
        diag.error(end, "control-flow marker without a list of tensors (a compiler bug; please report it)")
        raise _Failure
    if loop and begins[0] is None:  # every iteration computes the same values: those the body returns
        _replace_end(end, outputs[0], loop)
        return
    # Operations hash by their operands, so membership is decided before anything changes.
    bodies = [_body(begin, ops, position, end) if begin is not None else [] for begin in begins]
    if not loop and set(bodies[0]) & set(bodies[1]):
        diag.error(end, "poptorch.cond: an op depends on the inputs of both branches")
        raise _Failure
    inside = set().union(*bodies)
    present = [begin for begin in begins if begin is not None]
    markers = {position[op] for op in (end, *present)} | {position[u.operation] for b in present for u in _unpacked(b)}
    first = min(position[b] for b in present) if present else position[end]
    for index, op in enumerate(ops[first:], start=first):
        if index in inside or index in markers:
            continue
        if op.name == "torch.prim.ListConstruct" and any(use.owner == end for r in op.results for use in r.uses):
            continue
        for operand in operands_within(op):
            owner = operand.owner
            if not isinstance(owner, ir.Block) and position.get(owner.operation) in inside:
                diag.error(op, f"poptorch.{'for_loop' if loop else 'cond'}: this op reads a value computed inside the "
                               "body, outside it; use the values the body returns")
                raise _Failure

    name = f"{'loop' if loop else 'cond'}{region_id}"
    with end.location, ir.InsertionPoint(end):
        if loop:
            count = _const(end, 2, "the iteration count", diag)
            region_op = build(ipu_d.ForLoopOp, string(name), i64(count), i64(len(outputs[0])))
        else:
            region_op = build(ipu_d.IfOp, end.operands[0], string(name), i64(len(outputs[0])))
    region_op = region_op.operation
    for branch, (begin, body, items, outs) in enumerate(zip(begins, bodies, inputs, outputs, strict=True)):
        region_block = region_op.regions[branch].blocks.append()
        with end.location, ir.InsertionPoint(region_block):
            carried = [build(ipu_d.CarriedOp, value, i64(i), value.type).result for i, value in enumerate(items)] \
                if loop else items
            yields = [build(ipu_d.RegionYieldOp, value, i64(i)).operation for i, value in enumerate(outs)]
        for unpack in _unpacked(begin) if begin is not None else []:
            for result, value in zip(unpack.results, carried, strict=True):
                result.replace_all_uses_with(value)
        for index in body:  # in block order, before the yields
            ops[index].move_before(yields[0])
    with end.location, ir.InsertionPoint(end):
        results = [build(ipu_d.RegionResultOp, string(name), i64(i), value.type).result
                   for i, value in enumerate(outputs[0])]
    begin_lists = [begin.operands[0].owner.operation for begin in present]
    for begin in present:
        for unpack in _unpacked(begin):
            unpack.erase()
        begin.erase()
    _erase_unused(begin_lists)
    _replace_end(end, results, loop)


def _replace_end(end: ir.Operation, values: list[ir.Value], loop: bool) -> None:
    """The end marker's results read ``values``; the marker and its lists go."""
    for unpack in _unpacked(end):
        for result, value in zip(unpack.results, values, strict=True):
            result.replace_all_uses_with(value)
        unpack.erase()
    lists = [end.operands[i].owner.operation for i in ((0,) if loop else (1, 2))]
    end.erase()
    _erase_unused(lists)


def _erase_unused(ops: list[ir.Operation]) -> None:
    # One list may feed two markers (cse merges equal lists: both branches' inputs [x]).
    # Each op once: another handle of an op erased through the first reads freed memory.
    for op in [op for index, op in enumerate(ops) if op not in ops[:index]]:
        if not any(True for r in op.results for _ in r.uses):
            op.erase()


def _body(begin: ir.Operation, ops: list[ir.Operation], position: dict, end: ir.Operation) -> list[int]:
    """The positions of the ops between ``begin`` and ``end`` that depend on the begin's
    results (the body), in block order."""
    tainted: set[ir.Value] = {r for unpack in _unpacked(begin) for r in unpack.results}
    names: set[str] = set()  # region ops already outlined in the body
    body: list[int] = []
    for index in range(position[begin] + 1, position[end]):
        op = ops[index]
        if marker_kind(op) is not None or op.name == "torch.prim.ListUnpack" and op.operands[0].owner == begin:
            continue
        depends = any(v in tainted for v in operands_within(op))
        if op.name == "ipu.region_result" and ir.StringAttr(op.attributes["region"]).value in names:
            depends = True
        if op.name == "torch.prim.ListConstruct" and any(use.owner == end for r in op.results for use in r.uses):
            continue
        if depends:
            body.append(index)
            tainted.update(op.results)
            if op.name in REGION_OPS:
                names.add(ir.StringAttr(op.attributes["name"]).value)
    return body
