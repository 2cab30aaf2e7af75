"""poplar-plan-in-place: a variable's update ``v' = f(v, ...)`` copied back into ``v``
becomes ``poplar.popops_map_in_place`` on ``v``.

Input: a ``poplar.graph`` (after ``poplar-build-program`` and ``pipeline-schedule``).
Output: the same graph where each such ``popops_map`` and its ``program_copy`` are one
in-place map (``popops::mapInPlace``), and the map's other readers read ``v``. The IPU
Model then updates the variable's buffer in place, as eager optimizers update their
parameters (``param.add_(d, alpha=-lr)``).

An off-chip variable (``poplar.remote_buffer``, after ``poplar-place-tensors``) is updated in
place too: its write-back (a load, the copy, a store) goes, and one store follows the last
reader of the new value, so each new weight and velocity is stored as soon as it is made
instead of all of them being live until the step's end.
"""

from __future__ import annotations

import dataclasses
from typing import ClassVar

from torch_mlir import ir

from ipu_mlir.dialects import poplar as pd
from ipu_mlir.dialects._base import build
from ipu_mlir.dialects.poplar.program_order import graphs_of, run_blocks

from ..pass_base import Diagnostics, ModulePass
from ..poplar_execution import carry_attributes, producer, readers_in, views_of

_REMOTE_OPS = ("poplar.program_remote_load", "poplar.program_remote_store")

# The update expressions planned in place (operand 1 is the variable): the SGD step
# w - d * lr and w + d * s, momentum's v * m + g, a scaling and an accumulation.


@dataclasses.dataclass(frozen=True)
class _Update:
    map: ir.Operation
    copy: ir.Operation
    # An off-chip variable: its loads and stores after the map (erased), and the op after
    # which the one store of the new value goes (the last reader of the new value or the map).
    remote: tuple[ir.Operation, ...] = ()
    store_after: ir.Operation | None = None


@dataclasses.dataclass(frozen=True)
class PlanInPlace(ModulePass):
    """Run a variable's update in place when nothing needs its old value afterwards.

    Preconditions: a poplar.graph. Within one run block (a function body, with the
    stages of a pipeline.schedule flattened in stage order, or a program body), a
    popops_map of an update expression (see poplar.IN_PLACE_UPDATES) is planned in place on
    its first operand v when: v is a poplar.variable of the map's result type and no
    other operand; exactly one program_copy writes the result into v; no
    pipeline.stash keeps the result or a view of it (the next micro-batch's update
    would run first); and no op after the map but the copy reads v or a view of it.
    The copy is erased; the map's other readers read v, which then holds the result.

    An off-chip v (``poplar.remote_buffer``): the ops after the map reading v may also be
    its own remote loads and stores (at least one store: the write-back of the copy's run),
    and the map and the last reader of its result must be in one block (one pipeline
    stage). Those loads and stores are erased and one store of v follows that last reader:
    between the map's load and that store nothing else uses v, so the buffer gets the
    value the copy and its store gave it.

    Arguments: none.
    """

    name: ClassVar[str] = "poplar-plan-in-place"

    def run(self, module: ir.Operation, diag: Diagnostics) -> None:
        for graph in graphs_of(module):
            for ops in list(run_blocks(graph)):
                for update in _updates(ops):
                    _rewrite(update)


def _updates(ops: list[ir.Operation]) -> list[_Update]:
    position = {op: index for index, op in enumerate(ops)}
    readers = readers_in(ops)
    found = []
    for index, op in enumerate(ops):
        if op.name != "poplar.popops_map" or ir.StringAttr(op.attributes["expr"]).value not in pd.IN_PLACE_UPDATES:
            continue
        target, result = op.operands[0], op.results[0]
        definer = producer(target)
        if definer is None or definer.name != "poplar.variable" or target.type != result.type:
            continue
        if target in list(op.operands)[1:]:
            continue
        copies = [r for r in readers.get(result, []) if r.name == "poplar.program_copy" and r.operands[1] == target]
        if len(copies) != 1:
            continue
        copy = copies[0]
        if any(r.name == "pipeline.stash" for value in views_of(result, readers) for r in readers.get(value, [])):
            # A later stage reads the new value from a stash, but in a pipeline the next
            # micro-batch's update of the buffer runs first: keep a separate result.
            continue
        later = [r for value in views_of(target, readers) for r in readers.get(value, [])
                 if position[r] > index and r != copy]
        if not later:
            found.append(_Update(op, copy))
        elif (buffer := _remote_buffer(definer)) is not None:
            remote = _own_remote_ops(later, target, buffer)
            if remote is None:
                continue
            uses = [r for value in views_of(result, readers) for r in readers.get(value, [])
                    if r != copy and position[r] > index]
            last = max(uses, key=position.__getitem__, default=op)
            if last.parent != op.parent:
                continue  # another stage reads the new value: keep the write-back where it is
            found.append(_Update(op, copy, tuple(remote), last))
    return found


def _remote_buffer(variable: ir.Operation) -> str | None:
    if pd.REMOTE_BUFFER_ATTR not in variable.attributes:
        return None
    return ir.StringAttr(variable.attributes[pd.REMOTE_BUFFER_ATTR]).value


def _own_remote_ops(ops: list[ir.Operation], target: ir.Value, buffer: str) -> list[ir.Operation] | None:
    """``ops`` if they are all loads and stores of ``target`` from and to ``buffer``, at least
    one a store; None otherwise."""
    for op in ops:
        if op.name not in _REMOTE_OPS or op.operands[0] != target:
            return None
        if ir.StringAttr(op.attributes["buffer"]).value != buffer:
            return None
    if not any(op.name == "poplar.program_remote_store" for op in ops):
        return None
    return list(dict.fromkeys(ops))


def _rewrite(update: _Update) -> None:
    old = update.map
    operands = list(old.operands)
    sizes = list(ir.DenseI32ArrayAttr(old.attributes["operandSegmentSizes"]))
    in2, in3 = operands[1 : 1 + sizes[1]], operands[1 + sizes[1] :]
    with old.location, ir.InsertionPoint(old):
        new = build(pd.MapInPlaceOp, operands[0], in2, in3, old.attributes["expr"]).operation
    carry_attributes(old, new)
    update.copy.erase()
    store_after = new if update.store_after is None or update.store_after == old else update.store_after
    old.results[0].replace_all_uses_with(operands[0])
    old.erase()
    if update.remote:
        stores = [op for op in update.remote if op.name == "poplar.program_remote_store"]
        attributes = {"buffer": stores[0].attributes["buffer"]}
        if any(pd.IO_TILES_ATTR in op.attributes for op in stores):
            attributes[pd.IO_TILES_ATTR] = ir.UnitAttr.get()
        for name in ("pipeline.stage", "pipeline.ipu"):  # the stage of the op it follows
            if name in store_after.attributes:
                attributes[name] = store_after.attributes[name]
        for op in update.remote:
            op.erase()
        with ir.InsertionPoint(store_after):
            store = ir.Operation.create("poplar.program_remote_store", operands=[operands[0]],
                                        attributes=attributes, loc=store_after.location)
        store.move_after(store_after)
