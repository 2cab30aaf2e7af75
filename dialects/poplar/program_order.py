"""The order a ``poplar.graph``'s programs run their ops in, shared by the passes that plan
execution (``poplar-fuse-linear``, ``poplar-plan-in-place``, ``poplar-share-pool-indices``)
and the IPU Model's decoder, so that both see the same straight-line sequences.

A *run block* is the list of ops one program block runs in order: a function body, the
``main`` sequence, or the body of a nested ``program_repeat`` / ``program_sequence``. A
function whose body holds a ``pipeline.schedule`` runs the ops of its ``pipeline.stage``
regions, flattened in stage order (program order within a stage).

A program whose region has no block (the generic form ``({ })``, which verifies) runs
nothing: it has no run block.
"""

from collections.abc import Iterator

from torch_mlir import ir

# Program ops whose region is a nested run block.
NESTED_PROGRAMS = ("poplar.program_repeat", "poplar.program_sequence")


def scheduled_ops(block: ir.Block) -> list[tuple[ir.Operation, int]] | None:
    """The ops of the ``pipeline.stage`` regions of the ``pipeline.schedule`` in ``block``
    with their stage, in the schedule's order (None when ``block`` has no schedule)."""
    for op in block.operations:
        op = op.operation
        if op.name == "pipeline.schedule":
            return [(inner.operation, ir.IntegerAttr(stage.operation.attributes["stage_id"]).value)
                    for stage in op.regions[0].blocks[0].operations
                    for inner in stage.operation.regions[0].blocks[0].operations]
    return None


def run_block(block: ir.Block) -> list[ir.Operation]:
    """The ops ``block`` runs, in order: its own ops, or its schedule's stage ops sorted
    by stage (a stable sort: program order within a stage)."""
    scheduled = scheduled_ops(block)
    if scheduled is None:
        return [op.operation for op in block.operations]
    return [op for op, _ in sorted(scheduled, key=lambda pair: pair[1])]


def run_blocks(graph: ir.Operation) -> Iterator[list[ir.Operation]]:
    """Every run block of ``graph``: each function body and the ``main`` sequence, then
    the nested program blocks inside them."""
    for op in graph.regions[0].blocks[0].operations:
        op = op.operation
        if op.name in ("poplar.function", "poplar.program_sequence"):
            for block in op.regions[0].blocks:  # none for a region without a block
                yield from _nested(run_block(block))


def _nested(ops: list[ir.Operation]) -> Iterator[list[ir.Operation]]:
    yield ops
    for op in ops:
        if op.name in NESTED_PROGRAMS:
            for block in op.regions[0].blocks:
                yield from _nested(run_block(block))


def graphs_of(module: ir.Operation) -> Iterator[ir.Operation]:
    """The ``poplar.graph`` ops at the top level of ``module``."""
    for op in module.regions[0].blocks[0].operations:
        if op.operation.name == "poplar.graph":
            yield op.operation
