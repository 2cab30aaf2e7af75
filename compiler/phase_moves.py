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

from torch_mlir import ir

from ipu_mlir.dialects import pipeline as pipeline_d
from ipu_mlir.dialects._base import build
from ipu_mlir.dialects.pipeline import PHASE_ATTR, Liveness, Phases, Plan
from ipu_mlir.dialects.pipeline_attrs import IPU_ATTR, STAGE_ATTR, ipu_of
from ipu_mlir.support.ir_build import i64, string

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
        with op.location:  # the streaming memory holding the value: a remote buffer of its IPU
            remote = ir.Operation.create("poplar.remote_buffer", attributes={
                "name": string(buffer), "type": ir.TypeAttr.get(result.type), "repeats": i64(1),
                IPU_ATTR: i64(ipu_of(op))}, ip=ir.InsertionPoint(step))
        del remote
        after = ops[index + 1] if index + 1 < len(ops) else None
        store = build(pipeline_d.RemoteStoreOp, string(buffer), i64(ipu_of(op)), result, loc=op.location,
                      ip=ir.InsertionPoint(after) if after is not None else ir.InsertionPoint(block))
        _label(store.operation, _stage(op), ipu_of(op), phase_list[index])
    for buffer, index, result, readers in moves:
        for (phase, ipu), uses in sorted(readers.items(), key=lambda item: item[0]):
            first_reader = min(at for at, _, _ in uses)
            at = first_of_phase[phase]  # prefetched when the phase starts
            if phases.liveness == Liveness.OFF_CHIP_AFTER_FWD_NO_OVERLAP or at <= index:
                at = first_reader
            reader = ops[first_reader]
            load = build(pipeline_d.RemoteLoadOp, string(buffer), i64(ipu), result.type, loc=reader.location,
                         ip=ir.InsertionPoint(ops[at]))
            _label(load.operation, _stage(reader), ipu, phase)
            for _, owner, operand in uses:
                owner.operands[operand] = load.result


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
