"""The phase schedule of a phased step (``SerialPhasedExecution`` / ``ParallelPhasedExecution``),
for ``pipeline-schedule``.

Phases run one after another and the stages of a phase in parallel on their IPUs; the
step stays a flat list of ops in program order (forward phases, then backward phases),
each labelled with its stage and ``pipeline.phase``. A value read in a later phase than
the one computing it stays on its IPU (an inter-IPU copy when the reader is on another
IPU, already made by ``poplar-build-program``) or goes through streaming memory, as the
``#pipeline.phases`` liveness says:
- ``always_live``: nothing moves off chip;
- ``off_chip_after_fwd``: a forward value read by the backward pass is stored
  (``pipeline.remote_store``) right after it is computed, and loaded
  (``pipeline.remote_load``) at the start of each backward phase reading it;
- ``off_chip_after_fwd_no_overlap``: the same, each load just before its first reader
  (loads never overlap the phase's other work);
- ``off_chip_after_each_phase``: every value read in a later phase is stored after it is
  computed and loaded at the start of each later phase reading it.
The original value then dies in the phase computing it, so the IPU holds a crossing value
only in the phases that use it (the memory plan's temporaries). Each moved value has a
``poplar.remote_buffer`` of its IPU (named ``phase<k>.<n>``, k the phase computing it), which
the memory plan counts as streaming memory and the IPU Model holds in the IPU's off-chip store.
"""

from __future__ import annotations

import math

from torch_mlir import ir

from ipu_mlir.dialects import pipeline as pipeline_d
from ipu_mlir.dialects._base import build
from ipu_mlir.dialects.pipeline import PHASE_ATTR, Liveness, Phases, Plan
from ipu_mlir.dialects.pipeline_attrs import IPU_ATTR, STAGE_ATTR, ipu_of
from ipu_mlir.dialects.poplar import POPLAR_VIEWS
from ipu_mlir.support.ir_build import i64, string

from . import location_metadata as meta

_KEPT = ("poplar.variable", "poplar.constant")  # always live: never moved


def schedule_phases(step: ir.Operation, plan: Plan, phases: Phases) -> None:
    """Label every op of ``step`` (staged already) with its phase and move the values
    crossing a phase boundary as ``phases.liveness`` says. Raises ValueError when the
    plan and the phases disagree."""
    if len(phases.stage_phases) != plan.num_stages:
        raise ValueError(f"'{pipeline_d.PHASES_ATTR}' names the phase of {len(phases.stage_phases)} stages but the "
                         f"plan has {plan.num_stages}")
    block = step.regions[0].blocks[0]
    ops = [op.operation for op in block.operations]
    phase_list = [phases.stage_phases[_stage(op)] for op in ops]
    for op, phase in zip(ops, phase_list, strict=True):
        op.attributes[PHASE_ATTR] = i64(phase)
    if phases.liveness == Liveness.ALWAYS_LIVE:
        return
    first_of_phase: dict[int, int] = {}  # phase -> index of its first op
    for index, phase in enumerate(phase_list):
        first_of_phase.setdefault(phase, index)
    forward = plan.forward_stages
    moves: list[tuple[str, int, ir.Value, dict[tuple[int, int], list[tuple[int, ir.Operation, int]]]]] = []
    for index, op in enumerate(ops):
        if op.name in _KEPT:
            continue
        source_phase, source_stage = phase_list[index], _stage(op)
        for result in op.results:
            if not isinstance(result.type, ir.RankedTensorType):
                continue
            # The later phases reading the value, by (phase, reader IPU): (position of the
            # top-level reader, the op using the value, operand number) of each use.
            readers: dict[tuple[int, int], list[tuple[int, ir.Operation, int]]] = {}
            for use in list(result.uses):
                owner = use.owner.operation if hasattr(use.owner, "operation") else use.owner
                top = _top_level(owner, block)
                at = _position(ops, top, index)
                if at is None or phase_list[at] <= source_phase:
                    continue
                if phases.liveness != Liveness.OFF_CHIP_AFTER_EACH_PHASE and not (source_stage < forward <= _stage(top)):
                    continue  # OffChipAfterFwd*: only forward values read by the backward pass
                readers.setdefault((phase_list[at], ipu_of(top)), []).append((at, owner, use.operand_number))
            if readers:
                moves.append((f"phase{source_phase}.{len(moves)}", index, result, readers))
    # Stores first, each right after the op computing its value; then the loads, so a load
    # placed where a phase starts follows the stores of the phase before.
    for buffer, index, result, _ in moves:
        op = ops[index]
        store = _store(step, buffer, result, op, ops[index + 1] if index + 1 < len(ops) else None)
        _label(store, _stage(op), ipu_of(op), phase_list[index])
    for buffer, index, result, readers in moves:
        for (phase, ipu), uses in sorted(readers.items(), key=lambda item: item[0]):
            first_reader = min(at for at, _, _ in uses)
            at = first_of_phase[phase]  # prefetched when the phase starts
            if phases.liveness == Liveness.OFF_CHIP_AFTER_FWD_NO_OVERLAP or at <= index:
                at = first_reader
            reader = ops[first_reader]
            load = _load(buffer, ipu, result, uses, reader, ops[at])
            _label(load, _stage(reader), ipu, phase)


def _store(step: ir.Operation, buffer: str, result: ir.Value, producer: ir.Operation,
           before: ir.Operation | None) -> ir.Operation:
    """A remote buffer ``buffer`` on the IPU of ``producer`` (declared before ``step``) and a
    ``pipeline.remote_store`` of ``result`` into it before ``before`` (None: at the block's end)."""
    ipu = ipu_of(producer)
    with producer.location:  # the streaming memory holding the value: a remote buffer of its IPU
        remote = ir.Operation.create("poplar.remote_buffer", attributes={
            "name": string(buffer), "type": ir.TypeAttr.get(result.type), "repeats": i64(1),
            IPU_ATTR: i64(ipu)}, ip=ir.InsertionPoint(step))
    del remote
    block = step.regions[0].blocks[0]
    store = build(pipeline_d.RemoteStoreOp, string(buffer), i64(ipu), result, loc=producer.location,
                  ip=ir.InsertionPoint(before) if before is not None else ir.InsertionPoint(block))
    return store.operation


def _load(buffer: str, ipu: int, result: ir.Value, uses: list[tuple[int, ir.Operation, int]], reader: ir.Operation,
          before: ir.Operation) -> ir.Operation:
    """A ``pipeline.remote_load`` of ``buffer`` onto ``ipu`` before ``before``, which every use in
    ``uses`` ((position, op, operand number)) reads instead of ``result``."""
    load = build(pipeline_d.RemoteLoadOp, string(buffer), i64(ipu), result.type, loc=reader.location,
                 ip=ir.InsertionPoint(before))
    for _, owner, operand in uses:
        owner.operands[operand] = load.result
    return load.operation


def _position(ops: list[ir.Operation], op: ir.Operation, start: int) -> int | None:
    """The index of ``op`` in ``ops`` (searched from ``start``: readers follow their producer)."""
    for index in range(start, len(ops)):
        if ops[index] == op:
            return index
    return None


def _stage(op: ir.Operation) -> int:
    return ir.IntegerAttr(op.attributes[STAGE_ATTR]).value


def _label(op: ir.Operation, stage: int, ipu: int, phase: int) -> None:
    op.attributes[STAGE_ATTR] = i64(stage)
    op.attributes[IPU_ATTR] = i64(ipu)
    op.attributes[PHASE_ATTR] = i64(phase)


def _top_level(op: ir.Operation, block: ir.Block) -> ir.Operation:
    """The op of ``block`` that is ``op`` or holds it."""
    while op.parent is not None and op.block != block:
        op = op.parent.operation if hasattr(op.parent, "operation") else op.parent
    return op


ACTIVATION_BUFFER = "activation."  # remote buffers of off-chip activations: activation.<n>


def move_activations(step: ir.Operation, min_elements: int) -> list[tuple[ir.Operation, ir.Operation]]:
    """Off-chip activations (``setActivationLocation(useOnChipStorage(False))``) in a training
    step that runs its ops in order (one IPU, or sharded over several; not pipelined, not
    phased). The forward pass is the ops before the first op the frontend marked backward
    (``bwd`` in its location). Each value a forward op computes (not a view of a variable or
    constant, at least ``min_elements`` elements) that an op of the backward pass or after it
    reads (the backward pass, the optimizer update, the step's output copies) is stored to a
    remote buffer of its IPU (``pipeline.remote_store``, after its last forward use, so an
    in-place write of the forward pass is kept) and loaded again (``pipeline.remote_load``,
    one per reading IPU) just before its first later reader, which with every later reader
    reads the load. On chip, the value then lives from its producer to its last forward use
    and from the load to its last reader, not across the turn from forward to backward.
    Returns the (store, load) pairs, one per load, in program order of the stores."""
    block = step.regions[0].blocks[0]
    ops = [op.operation for op in block.operations]
    turn = next((index for index, op in enumerate(ops) if meta.is_backward(op)), None)
    if turn is None:
        return []
    local: set[ir.Value] = set()  # forward values that alias no variable or constant
    for op in ops[:turn]:
        if op.name in _KEPT:
            continue
        if op.name in POPLAR_VIEWS and not all(operand in local for operand in op.operands):
            continue  # a view of a variable, a constant or a value from outside the step
        local.update(result for result in op.results if isinstance(result.type, ir.RankedTensorType))
    moved: list[tuple[ir.Operation, ir.Operation]] = []
    for index, op in enumerate(ops[:turn]):
        for result in op.results:
            if result not in local or math.prod(ir.RankedTensorType(result.type).shape) < min_elements:
                continue
            last_forward = index
            readers: dict[int, list[tuple[int, ir.Operation, int]]] = {}  # reader IPU -> its later uses
            for use in list(result.uses):
                owner = use.owner.operation if hasattr(use.owner, "operation") else use.owner
                at = _position(ops, _top_level(owner, block), index)
                if at is None:
                    continue
                if at < turn:
                    last_forward = max(last_forward, at)
                else:
                    readers.setdefault(ipu_of(ops[at]), []).append((at, owner, use.operand_number))
            if not readers:
                continue
            buffer = f"{ACTIVATION_BUFFER}{len(moved)}"
            after = ops[last_forward + 1]  # the turn itself at the latest
            store = _store(step, buffer, result, op, after)
            _copy_labels(op, store)
            for ipu, uses in sorted(readers.items()):
                reader = ops[min(at for at, _, _ in uses)]
                load = _load(buffer, ipu, result, uses, reader, reader)
                _copy_labels(reader, load)
                moved.append((store, load))
    return moved


def _copy_labels(source: ir.Operation, target: ir.Operation) -> None:
    """A store or load runs in the stage (and on the IPU) of the op it serves."""
    for name in (STAGE_ATTR, IPU_ATTR):
        if name in source.attributes:
            target.attributes[name] = source.attributes[name]
