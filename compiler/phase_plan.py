"""Phased execution (``SerialPhasedExecution`` / ``ParallelPhasedExecution``): the stages and
phases of a step, for ``ipu-assign-stages``.

Every explicit stage of the strategy is a forward stage (in phase order); the backward ops
of forward stage i run in their own stage 2S - 1 - i (S stages), on the same IPU, so each
stage belongs to one phase. Forward phase k runs backward in phase 2N - 2 - k (N forward
phases, the last one shared by the end of the forward pass and the start of the backward
pass) or 2N - k with ``useSeparateBackwardPhase`` (SEMANTICS "Phased execution": 0, 1, 2
run backward as 4, 3, 2, or 6, 5, 4). The result is a ``#pipeline.plan`` of the phased
kind and a ``#pipeline.phases`` (liveness, forward phases, the phase of each stage) that
``pipeline-schedule`` follows to move the tensors crossing a phase boundary.
"""

from __future__ import annotations

from collections.abc import Callable

from torch_mlir import ir

from ipu_mlir.dialects.ipu import Strategy, StrategyKind
from ipu_mlir.dialects.pipeline import PHASES_ATTR, Phases, Plan, ScheduleKind, set_plan
from ipu_mlir.support.target import MAX_IPUS_PER_PROCESS

from .pass_base import Diagnostics


def backward_phase(phase: int, forward_phases: int, separate: bool) -> int:
    """The phase running the backward pass of forward phase ``phase``."""
    return (2 * forward_phases - phase) if separate else (2 * forward_phases - 2 - phase)


def _name(strategy: Strategy) -> str:
    return "SerialPhasedExecution" if strategy.kind == StrategyKind.SERIAL_PHASED else "ParallelPhasedExecution"


def assign_phases(func: ir.Operation, ops: list[ir.Operation], strategy: Strategy, order: list[str],
                  block_ipu: dict[str, int], annotate: Callable[..., None], diag: Diagnostics) -> None:
    """Give every op of ``func`` its stage and IPU under a phased ``strategy`` and set the
    plan and phases on ``func``; each broken rule is an error naming the phase and the fix.
    ``order``: the model's blocks in execution order; ``block_ipu``: their ``ipu_id``s;
    ``annotate``: ``AssignStages._annotate``."""
    name = _name(strategy)
    stage_of: dict[str, int] = {}
    ipu_of_stage: list[int] = []
    known = ", ".join(f"'{b}'" for b in order) or "none"
    for index, ((blocks, ipu), phase) in enumerate(zip(strategy.stages, strategy.phases, strict=True)):
        for block in blocks:
            if block not in order:
                diag.error(func, f"{name}: phase {phase} names block '{block}', which the model does not have (its "
                                 f"blocks: {known}); use the user_id of a poptorch.Block / BeginBlock of the model")
            stage_of[block] = index
        chosen = ipu if ipu >= 0 else next((block_ipu[b] for b in blocks if b in block_ipu), -1)
        if chosen < 0:
            diag.error(func, f"{name}: the stage of blocks {list(blocks)} in phase {phase} has no IPU; give its "
                             f"IPUs with strategy.phase({phase}).ipus(...), or Block(..., ipu_id=n)")
        ipu_of_stage.append(chosen)
    for block in order:
        if block not in stage_of:
            diag.error(func, f"{name}: block '{block}' is in no phase; add it to a Stage of a Phase")
    if diag.failed:
        return
    _check_phase_ipus(func, strategy, ipu_of_stage, diag)
    if diag.failed:
        return
    previous: tuple[int, str] | None = None
    for block in order:  # phases run one after another: their blocks come in phase order
        stage = stage_of[block]
        if previous is not None and stage < previous[0]:
            diag.error(func, f"{name}: block '{block}' of phase {strategy.phases[stage]} runs after block "
                             f"'{previous[1]}' of phase {strategy.phases[previous[0]]}; phases run in order: put the "
                             "blocks in phases (and the stages of a phase) in execution order")
            return
        previous = (stage, block)
    count = len(strategy.stages)
    num_ipus = max(ipu_of_stage) + 1
    replicas = strategy.replication_factor
    total = num_ipus * replicas
    rounded = 1 << (total - 1).bit_length()
    if max(ipu_of_stage) >= MAX_IPUS_PER_PROCESS or rounded > MAX_IPUS_PER_PROCESS:
        diag.error(func, f"{name}: the model uses {total} IPUs, more than the {MAX_IPUS_PER_PROCESS} one process can drive; "
                         "use fewer IPUs")
        return
    if total != rounded:
        if not strategy.auto_round_num_ipus or replicas & (replicas - 1):
            diag.error(func, f"{name}: the model uses {total} IPUs ({num_ipus} per replica x {replicas} replicas), "
                             "which is not a power of 2; use a power of 2, or Options().autoRoundNumIPUs(True)")
            return
        num_ipus = rounded // replicas
    ipu_of = {block: ipu_of_stage[stage] for block, stage in stage_of.items()}
    index_of = {stage: stage for stage in range(count)}
    annotate(func, ops, stage_of, ipu_of, index_of, count, diag,
             backward_of=lambda index: 2 * count - 1 - index, outside_ipu=ipu_of_stage[0])
    if diag.failed:
        return
    forward_phases = max(strategy.phases) + 1
    stage_phases = list(strategy.phases)
    if strategy.training:
        stage_phases += [backward_phase(strategy.phases[count - 1 - b], forward_phases, strategy.separate_backward_phase)
                         for b in range(count)]
    kind = ScheduleKind.PHASED_SERIAL if strategy.kind == StrategyKind.SERIAL_PHASED else ScheduleKind.PHASED_PARALLEL
    set_plan(func, Plan(kind, count, len(stage_phases), num_ipus))
    func.attributes[PHASES_ATTR] = Phases(strategy.liveness, forward_phases, tuple(stage_phases)).attr()


def _check_phase_ipus(func: ir.Operation, strategy: Strategy, ipu_of_stage: list[int], diag: Diagnostics) -> None:
    """The stages of a phase on distinct IPUs; serial phases on one group of IPUs; parallel
    phases on the IPUs of their parity."""
    name = _name(strategy)
    by_phase: dict[int, list[int]] = {}
    for stage, phase in enumerate(strategy.phases):
        by_phase.setdefault(phase, []).append(stage)
    reference: tuple[int, list[int]] | None = None
    for phase, stages in sorted(by_phase.items()):
        ipus = [ipu_of_stage[s] for s in stages]
        blocks = [list(strategy.stages[s][0]) for s in stages]
        if len(set(ipus)) != len(ipus):
            diag.error(func, f"{name}: phase {phase} puts its stages {blocks} on IPUs {ipus}, but the stages of a phase run "
                             f"in parallel, each on its own IPU: give them different IPUs with "
                             f"strategy.phase({phase}).ipus(...), or put their blocks in one Stage")
            continue
        if strategy.kind == StrategyKind.SERIAL_PHASED:
            if reference is None:
                reference = (phase, sorted(ipus))
            elif sorted(ipus) != reference[1]:
                diag.error(func, f"{name}: phase {phase} runs on IPUs {sorted(ipus)} but phase {reference[0]} on IPUs "
                                 f"{reference[1]}; serial phases all run on one group of IPUs: give phase {phase} "
                                 f"the same IPUs with strategy.phase({phase}).ipus(...), or use ParallelPhasedExecution")
        else:
            wrong = [ipu for ipu in ipus if ipu % 2 != phase % 2]
            if wrong:
                kind = "even" if phase % 2 == 0 else "odd"
                diag.error(func, f"{name}: phase {phase} is {kind} but runs stages on IPU(s) {wrong}; parallel phases "
                                 f"alternate between two IPU groups, even phases on even IPUs and odd phases on odd "
                                 f"IPUs: give phase {phase} {kind} IPUs with strategy.phase({phase}).ipus(...), or use "
                                 "SerialPhasedExecution")
