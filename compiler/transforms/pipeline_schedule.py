"""pipeline-schedule: cuts a multi-IPU step function into pipeline stages.

Input: a ``poplar.graph`` (after ``poplar-build-program``) whose ``step`` function has a
``#pipeline.plan`` (schedule kind, forward stages, stage IPUs) and compute ops carrying
``pipeline.stage`` (from ``ipu-assign-stages``). Every op of ``step`` gets a
``pipeline.stage``: the ops the compiler added (host reads, inter-IPU copies, gradient
accumulation, write-backs) get the stage their data puts them in. A sharded step stays
a flat list of labelled ops, run in order.

A pipelined step becomes one ``pipeline.schedule`` holding a ``pipeline.stage`` region
per stage (with its IPU), and values cross stages only through explicit ops:
- an inter-IPU copy of a computed value becomes ``pipeline.send`` at the end of the
  stage computing it and ``pipeline.recv`` in the stage reading it (the exchange buffer
  goes);
- a value a later stage of the same IPU reads is kept by ``pipeline.stash`` and taken
  back by ``pipeline.restore`` (``depth`` = the stages in between, which is how many
  later micro-batches push their own copy meanwhile; a value read by several later
  stages is stashed hop by hop); views and constants are rebuilt in the reading stage;
- with ``recompute=true`` (PopTorch's pipelined recomputation), a backward stage
  recomputes the forward activations it needs from the stage's inputs and the values
  marked by ``poptorch.recomputationCheckpoint``, which are the only ones stashed with
  random results (a new draw would change the dropout mask) and values computed from
  state the step updates.
The schedule's micro-batch count comes from the loop calling the step (G for training,
D for inference). The IPU Model runs the stages of successive micro-batches overlapped
(ramp-up, steady state, ramp-down; ``artifact/schedule.py``).

Fails when a value would be read before the stage that computes it, or when a variable
that outlives a micro-batch (weight, accumulator, state) is written in one stage and
used in another: no stage order could run such a step as a pipeline.
"""

from __future__ import annotations

import dataclasses
from typing import ClassVar

from torch_mlir import ir

from ipu_mlir.dialects import pipeline as pipeline_d
from ipu_mlir.dialects._base import build
from ipu_mlir.dialects.pipeline import Plan, ScheduleKind, plan_of
from ipu_mlir.dialects.pipeline_attrs import CHECKPOINT_ATTR, DATA_MOVES, IPU_ATTR, STAGE_ATTR
from ipu_mlir.dialects.poplar import POPLAR_VIEWS, VariableKind, variable_kind
from ipu_mlir.dialects.poplar.program_order import graphs_of
from ipu_mlir.support.ir_build import boolean, i64, string
from ipu_mlir.support.ir_walk import operands_within

from ..pass_base import Diagnostics, ModulePass
from ..phase_moves import schedule_phases
from ..poplar_execution import producer as defining_op


@dataclasses.dataclass(frozen=True)
class PipelineSchedule(ModulePass):
    """Assign every op of a staged step function its pipeline stage and check the stage order.

    Ops without ``pipeline.stage`` take it from their data: an accumulation or a counter
    runs in the latest stage of its operands (stage 0 with none), an inter-IPU copy or a
    host read in the stage of the first op reading its destination, a write-back with
    the value it copies, a sync in stage 0. Variables of kind ``input``, ``anchor`` and
    ``exchange`` hold one micro-batch's data; all others outlive a micro-batch.

    A pipelined step is sorted by stage, and values read by a later stage of the same
    IPU go through ``pipeline.stash`` / ``pipeline.restore`` (views are recomputed).

    A graph without a ``#pipeline.plan`` on ``step`` (one IPU) is left unchanged.

    Arguments:
      recompute: pipelined training recomputes forward activations in the backward
        stages instead of stashing them, except stage inputs, values marked with
        ``poptorch.recomputationCheckpoint`` and results of random ops.
      device-iterations, gradient-accumulation: D and G, recorded on the schedule
        (0, the default: read from the loops around the step's call in main).
    """

    name: ClassVar[str] = "pipeline-schedule"
    recompute: bool = False
    device_iterations: int = 0
    gradient_accumulation: int = 0

    def run(self, module: ir.Operation, diag: Diagnostics) -> None:
        for graph in graphs_of(module):
            for op in graph.regions[0].blocks[0].operations:
                op = op.operation
                plan = plan_of(op) if op.name == "poplar.function" else None
                if plan is not None:
                    self._schedule(graph, op, plan, diag)

    def _schedule(self, graph: ir.Operation, step: ir.Operation, plan: Plan, diag: Diagnostics) -> None:
        if not len(step.regions[0].blocks):  # a step whose region has no block runs nothing
            return
        per_micro_batch = {op.results[0] for op in (o.operation for o in graph.regions[0].blocks[0].operations)
                           if op.name == "poplar.variable" and variable_kind(op).holds_one_micro_batch}
        ops = [op.operation for op in step.regions[0].blocks[0].operations]
        try:
            # A sharded step runs in program order, one micro-batch at a time: its stages
            # only need labels, not the pipeline's ordering rules.
            labels = stage_labels(ops, per_micro_batch, check=plan.pipelined)
        except StageError as error:
            diag.error(error.op, f"pipeline-schedule: {error}")
            return
        for op in ops:
            op.attributes[STAGE_ATTR] = i64(labels[hash(op)])
        stage_ipus = list(plan.stage_ipus)
        if labels and max(labels.values()) >= len(stage_ipus):
            diag.error(step, f"pipeline-schedule: an op is in stage {max(labels.values())} but the plan has {len(stage_ipus)} stages")
            return
        if plan.kind.is_phased:  # phases one after another, crossing values moved as the liveness says
            try:
                phases = pipeline_d.phases_of(step)
                if phases is None:
                    raise ValueError(f"a phased plan needs '{pipeline_d.PHASES_ATTR}' (ipu-assign-stages sets it)")
                schedule_phases(step, plan, phases)
            except ValueError as error:
                diag.error(step, f"pipeline-schedule: {error}")
            return
        if plan.pipelined:
            ops.sort(key=lambda op: _int(op, STAGE_ATTR))  # stable: program order within a stage
            for before, op in zip(ops, ops[1:], strict=False):
                op.move_after(before)
            forward = plan.forward_stages
            recompute = self.recompute and plan.training  # backward stages exist
            block = step.regions[0].blocks[0]
            _send_and_receive(block, ops, stage_ipus)
            ops = [op.operation for op in block.operations]
            try:
                _Stasher(stage_ipus, per_micro_batch, forward if recompute else None).run(ops)
            except StageError as error:
                diag.error(error.op, f"pipeline-schedule: {error}")
                return
            if len(stage_ipus) > 1:
                _build_regions(graph, step, stage_ipus, plan.training, self.device_iterations,
                               self.gradient_accumulation)


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
        if stage is not None and stage < 0:
            raise StageError(op, f"'{op.name}' has {STAGE_ATTR} = {stage}, but stages are numbered from 0 "
                                 "(ipu-assign-stages sets them)")
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
        destination = _written_variable(op)
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
        destination = _written_variable(op)
        if destination is None:
            sources = operands_within(op)
        else:  # a stream copy reads the host, a copy its first operand
            sources = list(op.operands)[:1] if op.name == "poplar.program_copy" else []
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


class _Stasher:
    """Makes the values a pipelined step carries from one stage to a later one explicit.

    Walks the step in stage order. A compute op of stage ``b`` reading a value that stage
    ``d < b`` defined (an op result, or a micro-batch variable written in stage ``d``)
    reads instead: a clone of the view that made it (views cost nothing); with
    recomputation, for a backward reader of a forward value, a clone of the op that
    computed it (recursively, down to the stage's inputs, checkpoints and random
    results); otherwise the result of a ``pipeline.restore`` paired with a
    ``pipeline.stash`` in the stage that has the value. A value read by several later
    stages is stashed from one to the next (``d -> b1 -> b2``), so it is kept once.
    Inter-IPU copies have become send/recv pairs (:func:`_send_and_receive`).
    """

    def __init__(self, stage_ipus: list[int], per_micro_batch: set[ir.Value], forward_stages: int | None) -> None:
        self.stage_ipus = stage_ipus
        self.per_micro_batch = per_micro_batch
        self.forward_stages = forward_stages  # None: no recomputation
        self.defined: dict[ir.Value, tuple[int, ir.Operation]] = {}  # value -> (stage, op after which it exists)
        self.resolved: dict[tuple[ir.Value, int], ir.Value] = {}
        self.origin: dict[ir.Value, ir.Value] = {}  # a restored or rebuilt value -> the value it stands for
        # value -> (stage, the copy restored there, the restore) of its latest reading stage
        self.chain: dict[ir.Value, tuple[int, ir.Value, ir.Operation]] = {}
        self.count = 0
        self.written: set[ir.Value] = set()  # variables the step writes (state, accumulators)

    def run(self, ops: list[ir.Operation]) -> None:
        for op in ops:
            if op.name in DATA_MOVES:
                self.written.add(_written_variable(op))
            elif op.name == "poplar.popops_scaled_add_to":
                self.written.add(op.operands[0])
        for op in ops:
            stage = _int(op, STAGE_ATTR)
            if op.name in DATA_MOVES:
                destination = _written_variable(op)
                if destination is not None and destination in self.per_micro_batch and destination not in self.defined:
                    self.defined[destination] = (stage, op)
                source = op.operands[0] if op.name == "poplar.program_copy" else None
                owner = defining_op(source) if source is not None else None
                if owner is not None and owner.parent == op.parent and self._crosses(source, stage):
                    # A copy within one IPU (an inter-IPU one is a send by now) of a value
                    # from an earlier stage: it reads the value from a stash.
                    op.operands[0] = self._resolve(source, stage, op)
                continue
            direct = list(op.operands)
            for value in direct:  # a micro-batch variable no data move writes: kept from its first reader
                if value in self.per_micro_batch and value not in self.defined:
                    self.defined[value] = (stage, op)
            for value in operands_within(op):
                if value not in direct and self._crosses(value, stage):
                    raise StageError(op, f"'{op.name}' in pipeline stage {stage} reads a value of an earlier stage "
                                         "inside a nested region, which the pipeline cannot stash; use "
                                         "poptorch.ShardedExecution")
            for index, value in enumerate(direct):
                if self._crosses(value, stage):
                    op.operands[index] = self._resolve(value, stage, op)
            for result in op.results:
                self.defined[result] = (stage, op)

    def _crosses(self, value: ir.Value, stage: int) -> bool:
        return value in self.defined and self.defined[value][0] < stage

    def _resolve(self, value: ir.Value, stage: int, reader: ir.Operation) -> ir.Value:
        """What ``reader`` (in ``stage``) reads instead of ``value`` from an earlier stage."""
        key = (value, stage)
        if key not in self.resolved:
            producer = self.defined[value][1]
            if producer.name in POPLAR_VIEWS or producer.name == "poplar.constant" or self._recomputes(value, producer, stage):
                self.resolved[key] = self._clone(value, producer, stage, reader)
            else:
                self.resolved[key] = self._restore(value, stage, reader)
        return self.resolved[key]

    def _recomputes(self, value: ir.Value, producer: ir.Operation, stage: int) -> bool:
        if self.forward_stages is None or stage < self.forward_stages or self.defined[value][0] >= self.forward_stages:
            return False  # only backward stages recompute forward activations
        if producer.name in (*DATA_MOVES, "pipeline.recv") or value in self.per_micro_batch or len(producer.regions):
            return False  # a stage input (host read, value from another IPU)
        if producer.name.startswith("poplar.poprand") or producer.name.startswith("poplar.program_"):
            return False  # a new random draw would differ; programs have effects
        if any(operand in self.written and operand not in self.per_micro_batch for operand in producer.operands):
            return False  # it reads state that later micro-batches update before this stage runs
        kept = list(ir.DenseI64ArrayAttr(producer.attributes[CHECKPOINT_ATTR])) if CHECKPOINT_ATTR in producer.attributes else []
        return ir.OpResult(value).result_number not in kept

    def _clone(self, value: ir.Value, producer: ir.Operation, stage: int, reader: ir.Operation) -> ir.Value:
        clone = producer.clone(ip=ir.InsertionPoint(reader))
        clone.attributes[STAGE_ATTR] = i64(stage)
        for index, operand in enumerate(list(clone.operands)):
            operand = self.origin.get(operand, operand)  # the producer may read a restore of its own stage
            if self._crosses(operand, stage):
                clone.operands[index] = self._resolve(operand, stage, clone)
        for old, new in zip(producer.results, clone.results, strict=True):
            self.resolved[(old, stage)] = new
            self.origin[new] = old
        return clone.results[ir.OpResult(value).result_number]

    def _restore(self, value: ir.Value, stage: int, reader: ir.Operation) -> ir.Value:
        """Stash ``value`` (or the copy an earlier reading stage restored) and restore it before ``reader``.
        The stash and its restore count against the IPU that holds the value."""
        held_stage, definer = self.defined[value]
        ipu = self.stage_ipus[held_stage]
        held = value
        if value in self.chain:
            held_stage, held, definer = self.chain[value]
        depth = stage - held_stage
        stash_id = string(f"stash.{self.count}")
        self.count += 1
        stash = build(pipeline_d.StashOp, stash_id, i64(depth), held, loc=definer.location, ip=ir.InsertionPoint(definer))
        stash.operation.move_after(definer)
        _label(stash.operation, held_stage, ipu)
        restore = build(pipeline_d.RestoreOp, stash_id, i64(depth), held.type, loc=reader.location, ip=ir.InsertionPoint(reader))
        _label(restore.operation, stage, ipu)
        self.chain[value] = (stage, restore.result, restore.operation)
        self.origin[restore.result] = value
        return restore.result


def _label(op: ir.Operation, stage: int, ipu: int) -> None:
    op.attributes[STAGE_ATTR] = i64(stage)
    op.attributes[IPU_ATTR] = i64(ipu)


def _written_variable(op: ir.Operation) -> ir.Value | None:
    """The variable a data move writes or sends to the host (None for a sync)."""
    operands = list(op.operands)
    if op.name == "poplar.program_copy":
        return operands[1]
    return operands[0] if op.name == "poplar.program_stream_copy" else None


def _send_and_receive(block: ir.Block, ops: list[ir.Operation], stage_ipus: list[int]) -> None:
    """Turn each inter-IPU copy of a value computed in the step into a ``pipeline.send``
    in the stage that computes it and a ``pipeline.recv`` in the stage of the copy; the
    readers of the exchange buffer read the received value, and a buffer nothing reads
    any more goes."""
    for op in ops:
        if op.name != "poplar.program_copy":
            continue
        source, buffer = op.operands[0], op.operands[1]
        owner, variable = defining_op(source), defining_op(buffer)
        if owner is None or owner.parent != op.parent or variable is None or variable.name != "poplar.variable":
            continue  # not a value of this step, or not into a variable
        if variable_kind(variable) != VariableKind.EXCHANGE:
            continue
        src_stage, dst_stage = _int(owner, STAGE_ATTR), _int(op, STAGE_ATTR)
        src_ipu, dst_ipu = _int(owner, IPU_ATTR), ir.IntegerAttr(variable.attributes["ipu"]).value
        if src_ipu is None or src_ipu == dst_ipu:
            continue
        channel = variable.attributes["name"]
        send = build(pipeline_d.SendOp, source, channel, i64(src_ipu), i64(dst_ipu), loc=op.location, ip=ir.InsertionPoint(op))
        send.operation.move_after(owner)
        _label(send.operation, src_stage, src_ipu)
        recv = build(pipeline_d.RecvOp, channel, i64(src_ipu), i64(dst_ipu), buffer.type, loc=op.location, ip=ir.InsertionPoint(op))
        _label(recv.operation, dst_stage, dst_ipu)
        for use in list(buffer.uses):
            reader = use.owner.operation if hasattr(use.owner, "operation") else use.owner
            if reader != op and reader.parent == op.parent:
                reader.operands[use.operand_number] = recv.result
        op.erase()
        if not list(buffer.uses):
            variable.erase()


def _build_regions(graph: ir.Operation, step: ir.Operation, stage_ipus: list[int], training: bool,
                   device_iterations: int, gradient_accumulation: int) -> None:
    """Move the ops of a pipelined step into ``pipeline.stage`` regions of one
    ``pipeline.schedule``; values cross stages only through send/recv and stash/restore.
    D and G not given (0) come from the loops calling the step: G for training (inside
    the device-iteration loop), D for inference."""
    block = step.regions[0].blocks[0]
    ops = [op.operation for op in block.operations]
    inner, outer = _trip_counts(graph, ir.StringAttr(step.attributes["name"]).value)
    iterations, accumulation = (outer, inner) if training else (inner, 1)
    iterations = device_iterations or iterations
    accumulation = (gradient_accumulation or accumulation) if training else 1
    num_ipus = ir.IntegerAttr(graph.attributes["num_ipus"]).value
    loc = step.location
    schedule = build(pipeline_d.ScheduleOp, string(ScheduleKind.PIPELINED), i64(len(stage_ipus)), i64(num_ipus),
                     boolean(training), i64(iterations), i64(accumulation), loc=loc, ip=ir.InsertionPoint(block))
    body = schedule.operation.regions[0].blocks.append()
    bodies = []
    for stage, ipu in enumerate(stage_ipus):
        region_op = build(pipeline_d.StageOp, i64(stage), i64(ipu), loc=loc, ip=ir.InsertionPoint(body))
        bodies.append(region_op.operation.regions[0].blocks.append())
    for op in ops:
        op.detach_from_parent()
        ir.InsertionPoint(bodies[_int(op, STAGE_ATTR)]).insert(op)


def _trip_counts(graph: ir.Operation, callee: str) -> tuple[int, int]:
    """The trip counts of the innermost and the next loop around the call of ``callee`` in main."""
    def search(block: ir.Block, counts: list[int]) -> list[int] | None:
        for op in block.operations:
            op = op.operation
            if op.name == "poplar.program_call" and ir.StringAttr(op.attributes["callee"]).value == callee:
                return counts
            here = counts + [ir.IntegerAttr(op.attributes["count"]).value] if op.name == "poplar.program_repeat" else counts
            for region in op.regions:
                for inner in region.blocks:
                    found = search(inner, here)
                    if found is not None:
                        return found
        return None

    for op in graph.regions[0].blocks[0].operations:
        op = op.operation
        if op.name == "poplar.program_sequence":
            blocks = op.regions[0].blocks  # none: a main with no block calls nothing
            counts = (search(blocks[0], []) if len(blocks) else None) or []
            return (counts[-1] if counts else 1, counts[-2] if len(counts) > 1 else 1)
    return 1, 1
