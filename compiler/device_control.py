"""Device loops and conditionals as Poplar programs (``poplar-build-program`` calls this
on each function it builds, then on each function this makes).

``ipu.for_loop`` (``dialects/ipu_control.py``) becomes::

    copy(initial_i, <f>.<loop>.carried.i)            # one "loop" variable per carried value
    copy(captured_j, <f>.<loop>.captured.j)          # values of the step the body reads
    poplar.program_repeat {count} { poplar.program_call "<f>.<loop>.body" }

where the function ``<f>.<loop>.body`` holds the body's ops (reading the variables) and
ends by copying each yielded value into its carried variable (through a temporary when
a yielded value may alias another carried variable, so every copy reads the values of
the same iteration). ``ipu.if`` becomes ``poplar.program_if`` over calls of
``<f>.<cond>.then`` / ``.else``, each copying its yields into the result variables. An
``ipu.region_result`` reads its variable once the program has run. Constants the bodies
read are cloned into them; values of the graph (weights, inputs) are read directly.
"""

from __future__ import annotations

from torch_mlir import ir

from ipu_mlir.dialects import poplar as pd
from ipu_mlir.dialects._base import build
from ipu_mlir.dialects.ipu_control import region_values
from ipu_mlir.dialects.poplar import POPLAR_VIEWS, VariableKind
from ipu_mlir.support.ir_build import i64, string


def first_control_flow(function: ir.Operation) -> ir.Operation | None:
    """The first ``ipu.for_loop`` or ``ipu.if`` of ``function``'s body, if any."""
    return next((op.operation for op in function.regions[0].blocks[0].operations
                 if op.operation.name in ("ipu.for_loop", "ipu.if")), None)


def expand_control_flow(graph_block: ir.Block, function: ir.Operation) -> None:
    """Replace every ``ipu.for_loop`` / ``ipu.if`` of ``function`` (a ``poplar.function``
    of ``graph_block``) by variables, copies and programs; recursively into the new bodies."""
    prefix = ir.StringAttr(function.attributes["name"]).value
    # Looked up afresh after each expansion, never from a list made before it: expanding
    # erases ops of this block (the ``ipu.region_result`` readers), and another Python
    # handle of an erased op is not invalidated; reading it reads freed memory (a crash).
    while (op := first_control_flow(function)) is not None:
        if op.name == "ipu.for_loop":
            created = _expand_loop(graph_block, function, prefix, op)
        else:
            created = _expand_if(graph_block, function, prefix, op)
        for new_function in created:
            expand_control_flow(graph_block, new_function)


def _name(op: ir.Operation, attribute: str = "name") -> str:
    return ir.StringAttr(op.attributes[attribute]).value


def _variable(graph_block: ir.Block, where: ir.Operation, name: str, type_: ir.Type) -> ir.Value:
    """A new "loop" variable, before the graph's first function (every function reads it)."""
    before = next(op.operation for op in graph_block.operations if op.operation.name == "poplar.function")
    with where.location, ir.InsertionPoint(before):
        return build(pd.VariableOp, string(name), string(VariableKind.LOOP), i64(0), ir.DenseI64ArrayAttr.get([]),
                     type_).result


def _new_function(before: ir.Operation, name: str) -> tuple[ir.Operation, ir.Block]:
    with before.location, ir.InsertionPoint(before):
        function = build(pd.FunctionOp, string(name)).operation
    return function, function.regions[0].blocks.append()


def _results(op: ir.Operation) -> list[tuple[int, ir.Operation]]:
    """The ``ipu.region_result`` ops reading ``op`` (after it, in its block), with their index."""
    name = _name(op)
    found = []
    for candidate in op.block.operations:
        candidate = candidate.operation
        if candidate.name == "ipu.region_result" and _name(candidate, "region") == name:
            found.append((ir.IntegerAttr(candidate.attributes["index"]).value, candidate))
    return found


def _defined_inside(region: ir.Region) -> set[ir.Value]:
    values: set[ir.Value] = set()

    def visit(op: ir.Operation) -> ir.WalkResult:
        values.update(op.results)
        for inner_region in op.regions:
            for inner_block in inner_region.blocks:
                values.update(inner_block.arguments)
        return ir.WalkResult.ADVANCE

    for block in region.blocks:
        values.update(block.arguments)
        for op in block.operations:
            op.operation.walk(visit)
    return values


def _uses_within(region: ir.Region) -> list[tuple[ir.Operation, int, ir.Value]]:
    """(op, operand index, value) of every operand of every op nested in ``region``."""
    found: list[tuple[ir.Operation, int, ir.Value]] = []

    def visit(op: ir.Operation) -> ir.WalkResult:
        found.extend((op, index, value) for index, value in enumerate(op.operands))
        return ir.WalkResult.ADVANCE

    for block in region.blocks:
        for op in block.operations:
            op.operation.walk(visit)
    return found


def _capture(graph_block: ir.Block, function: ir.Operation, regions: list[ir.Region], base: str,
             copy_before: ir.Operation, bodies: list[ir.Block]) -> None:
    """Make the values of ``function`` that ``regions`` read reachable from their new
    functions (``bodies``, one per region): constants are cloned into each body, any other
    value is copied into a "loop" variable before ``copy_before``."""
    captured: dict[ir.Value, ir.Value] = {}
    for region, body in zip(regions, bodies, strict=True):
        inside = _defined_inside(region)
        clones: dict[ir.Value, ir.Value] = {}
        for op, index, value in _uses_within(region):
            if value in inside:
                continue
            owner = value.owner
            if isinstance(owner, ir.Block):
                continue  # a block argument of the graph (none) or of an enclosing op: left as it is
            owner = owner.operation
            if owner.parent is not None and owner.parent.name == "poplar.graph":
                continue  # a variable or a constant of the graph: every function reads it
            if owner.name == "poplar.constant":
                if value not in clones:
                    clone = owner.clone(ir.InsertionPoint.at_block_begin(body))
                    clones[value] = clone.results[0]
                op.operands[index] = clones[value]
                continue
            if value not in captured:
                captured[value] = _variable(graph_block, function, f"{base}.captured.{len(captured)}", value.type)
                with copy_before.location, ir.InsertionPoint(copy_before):
                    build(pd.CopyOp, value, captured[value])
            op.operands[index] = captured[value]


def _move_ops(region: ir.Region, body: ir.Block) -> None:
    for op in [op.operation for op in region.blocks[0].operations]:
        if len(body.operations):
            op.move_after(body.operations[len(body.operations) - 1].operation)
        else:
            op.move_before(_placeholder(body))
            body.operations[len(body.operations) - 1].operation.erase()


def _placeholder(body: ir.Block) -> ir.Operation:
    with ir.Location.unknown(), ir.InsertionPoint(body):
        return build(pd.SyncOp, string(pd.SyncKind.INTERNAL)).operation


def _root(value: ir.Value) -> ir.Value:
    """The tensor ``value`` is a view of (itself if it is no view)."""
    while not isinstance(value.owner, ir.Block) and value.owner.operation.name in POPLAR_VIEWS \
            and len(value.owner.operation.operands):
        value = value.owner.operation.operands[0]
    return value


def _expand_loop(graph_block: ir.Block, function: ir.Operation, prefix: str, loop: ir.Operation) -> list[ir.Operation]:
    base = f"{prefix}.{_name(loop)}"
    count = ir.IntegerAttr(loop.attributes["count"]).value
    region = loop.regions[0]
    carried = {index: ops[0] for index, ops in region_values(region, "ipu.carried").items()}
    yields = {index: ops[0] for index, ops in region_values(region, "ipu.region_yield").items()}
    variables = {index: _variable(graph_block, function, f"{base}.carried.{index}", op.results[0].type)
                 for index, op in sorted(carried.items())}
    with loop.location, ir.InsertionPoint(loop):
        for index, op in sorted(carried.items()):
            build(pd.CopyOp, op.operands[0], variables[index])
    for index, op in carried.items():
        op.results[0].replace_all_uses_with(variables[index])
        op.erase()
    body_function, body = _new_function(function, f"{base}.body")
    _capture(graph_block, function, [region], base, loop, [body])
    _move_ops(region, body)
    # The next iteration's values: each yield into its variable, all read before any is written.
    pending = [(index, op.operands[0]) for index, op in sorted(yields.items())]
    carried_values = set(variables.values())
    staged = []
    with loop.location, ir.InsertionPoint(body):
        for index, value in pending:
            if value == variables[index]:
                continue  # the body returns the carried value unchanged
            if _root(value) in carried_values:
                temporary = _variable(graph_block, function, f"{base}.next.{index}", value.type)
                build(pd.CopyOp, value, temporary)
                value = temporary
            staged.append((index, value))
        for index, value in staged:
            build(pd.CopyOp, value, variables[index])
    for op in yields.values():
        op.erase()
    with loop.location, ir.InsertionPoint(loop):
        repeat = build(pd.RepeatOp, i64(count)).operation
        with ir.InsertionPoint(repeat.regions[0].blocks.append()):
            build(pd.CallOp, string(f"{base}.body"))
    for index, result in _results(loop):
        result.results[0].replace_all_uses_with(variables[index])
        result.erase()
    loop.erase()
    return [body_function]


def _expand_if(graph_block: ir.Block, function: ir.Operation, prefix: str, conditional: ir.Operation) -> list[ir.Operation]:
    base = f"{prefix}.{_name(conditional)}"
    regions = [conditional.regions[0], conditional.regions[1]]
    branch_yields = [{index: ops[0] for index, ops in region_values(region, "ipu.region_yield").items()}
                     for region in regions]
    variables = {index: _variable(graph_block, function, f"{base}.result.{index}", op.operands[0].type)
                 for index, op in sorted(branch_yields[0].items())}
    created, bodies = [], []
    for suffix in ("then", "else"):
        new_function, body = _new_function(function, f"{base}.{suffix}")
        created.append(new_function)
        bodies.append(body)
    _capture(graph_block, function, regions, base, conditional, bodies)
    for region, body, yields in zip(regions, bodies, branch_yields, strict=True):
        _move_ops(region, body)
        with conditional.location, ir.InsertionPoint(body):
            for index, op in sorted(yields.items()):
                build(pd.CopyOp, op.operands[0], variables[index])
        for op in yields.values():
            op.erase()
    with conditional.location, ir.InsertionPoint(conditional):
        program = build(pd.IfOp, conditional.operands[0]).operation
    for region_index, suffix in ((0, "then"), (1, "else")):
        with conditional.location, ir.InsertionPoint(program.regions[region_index].blocks.append()):
            build(pd.CallOp, string(f"{base}.{suffix}"))
    for index, result in _results(conditional):
        result.results[0].replace_all_uses_with(variables[index])
        result.erase()
    conditional.erase()
    return created
