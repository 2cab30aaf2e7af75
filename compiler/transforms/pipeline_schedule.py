"""pipeline-schedule: gives every op of a multi-IPU step function its pipeline stage.

Input: a ``poplar.graph`` (after ``poplar-build-program``) whose ``step`` function has a
``pipeline.plan`` (``kind``, ``forward_stages``, ``stage_ipus``) and compute ops carrying
``pipeline.stage`` (from ``ipu-assign-stages``). Output: every op of ``step`` carries
``pipeline.stage``: the ops the compiler added (host reads, inter-IPU copies, gradient
accumulation, write-backs) get the stage their data puts them in, and the plan gets the
schedule's length for its micro-batch count. The IPU Model runs each stage of each
micro-batch from these attributes: a pipelined plan overlaps stages of successive
micro-batches (ramp-up, steady state, ramp-down; ``runtime/schedule.py``), a sharded
one runs them in order.

Fails when a value would be read before the stage that computes it, or when a variable
that outlives a micro-batch (weight, accumulator, state) is written in one stage and
used in another: no stage order could run such a step as a pipeline.
"""

from __future__ import annotations

import dataclasses
from typing import ClassVar

from torch_mlir import ir

from ..ir_walk import operands_within
from ..pass_base import Diagnostics, ModulePass
from ..pipeline_attrs import DATA_MOVES, PLAN_ATTR, STAGE_ATTR, holds_one_micro_batch


@dataclasses.dataclass(frozen=True)
class PipelineSchedule(ModulePass):
    """Assign every op of a staged step function its pipeline stage and check the stage order.

    Ops without ``pipeline.stage`` take it from their data: an accumulation or a counter
    runs in the latest stage of its operands (stage 0 with none), an inter-IPU copy or a
    host read in the stage of the first op reading its destination, a write-back with
    the value it copies, a sync in stage 0. Variables of kind ``input`` and
    ``activation`` and the output anchors hold one micro-batch's data; all others
    outlive a micro-batch.

    A graph without a ``pipeline.plan`` on ``step`` (one IPU) is left unchanged.
    """

    name: ClassVar[str] = "pipeline-schedule"

    def run(self, module: ir.Operation, diag: Diagnostics) -> None:
        for graph in module.regions[0].blocks[0].operations:
            graph = graph.operation
            if graph.name != "poplar.graph":
                continue
            for op in graph.regions[0].blocks[0].operations:
                op = op.operation
                if op.name == "poplar.function" and PLAN_ATTR in op.attributes:
                    self._schedule(graph, op, diag)

    def _schedule(self, graph: ir.Operation, step: ir.Operation, diag: Diagnostics) -> None:
        per_micro_batch = set()
        for op in graph.regions[0].blocks[0].operations:
            op = op.operation
            if op.name == "poplar.variable":
                kind = ir.StringAttr(op.attributes["kind"]).value
                name = ir.StringAttr(op.attributes["name"]).value
                if holds_one_micro_batch(kind, name):
                    per_micro_batch.add(op.results[0])
        ops = [op.operation for op in step.regions[0].blocks[0].operations]
        kind = ir.StringAttr(ir.DictAttr(step.attributes[PLAN_ATTR])["kind"]).value
        try:
            # A sharded step runs in program order, one micro-batch at a time: its stages
            # only need labels, not the pipeline's ordering rules.
            labels = stage_labels(ops, per_micro_batch, check=kind == "pipelined")
        except StageError as error:
            diag.error(error.op, f"pipeline-schedule: {error}")
            return
        for op in ops:
            op.attributes[STAGE_ATTR] = ir.IntegerAttr.get(ir.IntegerType.get_signless(64), labels[hash(op)])
        stages = len(ir.DenseI64ArrayAttr(ir.DictAttr(step.attributes[PLAN_ATTR])["stage_ipus"]))
        if labels and max(labels.values()) >= stages:
            diag.error(step, f"pipeline-schedule: an op is in stage {max(labels.values())} but the plan has {stages} stages")


class StageError(ValueError):
    """The ops of a step function cannot be cut into stages that run in stage order."""

    def __init__(self, op: ir.Operation, message: str) -> None:
        super().__init__(message)
        self.op = op


def _int(op: ir.Operation, name: str) -> int | None:
    return ir.IntegerAttr(op.attributes[name]).value if name in op.attributes else None


def stage_labels(ops: list[ir.Operation], per_micro_batch: set[ir.Value], check: bool = True) -> dict[int, int]:
    """The stage of every op of a step function, keyed by ``hash(op)``.

    Ops lowered from the model carry ``pipeline.stage``. The others take a stage from
    their data: an accumulation or a counter runs in the latest stage of its operands
    (stage 0 with none), an inter-IPU copy or a host read runs in the stage of the
    first op that reads its destination, and a copy into a variable runs with the
    value it copies. ``per_micro_batch`` holds the variables that carry one
    micro-batch's data (inputs, exchange buffers, output anchors); every other
    variable outlives a micro-batch and must be written in the one stage that reads
    it. Raises :class:`StageError` when a value would be read before the stage that
    computes it."""
    labels: dict[int, int] = {}
    producer: dict[ir.Value, int] = {}
    deferred: list[ir.Operation] = []
    for op in ops:
        stage = _int(op, STAGE_ATTR)
        if stage is None and op.name in DATA_MOVES:
            deferred.append(op)
            continue
        if stage is None:
            stage = max((producer.get(v, 0) for v in operands_within(op)), default=0)
        labels[hash(op)] = stage
        for result in op.results:
            producer[result] = stage
    readers: dict[ir.Value, list[int]] = {}
    for op in ops:
        if hash(op) in labels:
            for value in operands_within(op):
                readers.setdefault(value, []).append(labels[hash(op)])
    for op in deferred:
        if op.name == "poplar.program_sync":
            labels[hash(op)] = 0
            continue
        operands = list(op.operands)
        destination = operands[-1] if op.name == "poplar.program_copy" else operands[0]
        is_read = op.name == "poplar.program_stream_copy" and destination not in producer and destination in readers
        if op.name == "poplar.program_copy" and destination in per_micro_batch and destination in readers:
            labels[hash(op)] = min(readers[destination])  # exchange into the consumer
        elif is_read:
            labels[hash(op)] = min(readers[destination])  # host read where it is first used
        else:
            labels[hash(op)] = max((producer.get(v, 0) for v in operands), default=0)
        if destination in per_micro_batch:  # e.g. an input returned as an output follows its read
            producer[destination] = max(producer.get(destination, 0), labels[hash(op)])
    if check:
        _check(ops, labels, per_micro_batch)
    return labels


def _check(ops: list[ir.Operation], labels: dict[int, int], per_micro_batch: set[ir.Value]) -> None:
    written: dict[ir.Value, int] = {}
    readers: dict[ir.Value, set[int]] = {}
    persistent_writes: dict[ir.Value, tuple[set[int], ir.Operation]] = {}
    for op in ops:
        stage = labels[hash(op)]
        operands = list(op.operands)
        if op.name == "poplar.program_stream_copy":
            sources, destination = [], operands[0]
        elif op.name == "poplar.program_copy":
            sources, destination = operands[:1], operands[1]
        else:
            sources, destination = operands_within(op), None
        for value in sources:
            if written.get(value, -1) > stage:
                raise StageError(op, f"'{op.name}' in pipeline stage {stage} reads a value computed in stage "
                                     f"{written[value]}, so the step cannot run stage by stage; put the layers that "
                                     "use it in the same poptorch.Block or a later one, or use poptorch.ShardedExecution")
            readers.setdefault(value, set()).add(stage)
        for result in op.results:
            written[result] = stage
        if destination is not None:
            written[destination] = stage
            if destination not in per_micro_batch:
                persistent_writes.setdefault(destination, (set(), op))[0].add(stage)
    for variable, (stages, writer) in persistent_writes.items():
        others = (readers.get(variable, set()) | stages) - {min(stages)}
        if others:
            owner = variable.owner.operation
            name = ir.StringAttr(owner.attributes["name"]).value if "name" in owner.attributes else "a variable"
            raise StageError(writer, f"'{name}' is updated in pipeline stage {min(stages)} and used in stage(s) "
                                     f"{', '.join(map(str, sorted(others)))}: in a pipeline, stages of different "
                                     "micro-batches run at once, so one stage would see another micro-batch's "
                                     "update; keep the layers that read and update it in one poptorch.Block, or "
                                     "use poptorch.ShardedExecution")
