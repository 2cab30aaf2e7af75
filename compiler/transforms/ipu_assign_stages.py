"""ipu-assign-stages: gives every op its pipeline stage and IPU from the execution strategy.

Input: Torch-dialect IR after ``ipu-annotate-blocks`` (``ipu.block`` on the ops of each
``poptorch.Block``) with an ``#ipu.strategy`` on the function (what the user
set with ``Options.setExecutionStrategy``, or the default when blocks exist). Output:
``pipeline.stage`` and ``pipeline.ipu`` on every op and a ``#pipeline.plan`` on the
function (its stage IPUs left for ``poplar-build-program``), for ``pipeline-schedule``. Every rule of SEMANTICS "Multi-IPU execution"
that can be checked here is a located error that names the block, the rule and the fix.
"""

from __future__ import annotations

import dataclasses
from typing import ClassVar

from torch_mlir import ir

from ipu_mlir.dialects.ipu import (
    ARGUMENTS,
    STRATEGY_ATTR,
    UNASSIGNED_IPU,
    AutoStage,
    RoleKind,
    Strategy,
    StrategyKind,
    block_of,
    read_roles,
    strategy_of,
)
from ipu_mlir.dialects.pipeline import Plan, ScheduleKind, set_plan
from ipu_mlir.dialects.pipeline_attrs import IPU_ATTR, STAGE_ATTR
from ipu_mlir.support.ir_build import i64
from ipu_mlir.support.target import MAX_IPUS_PER_PROCESS

from .. import location_metadata as meta
from ..pass_base import Diagnostics, ModulePass

MAX_IPUS = MAX_IPUS_PER_PROCESS
_SKIPPED = ("func.return",)


def _latest_producer(op: ir.Operation) -> tuple[int, int] | None:
    """(stage, IPU) of the latest-stage op producing an operand of ``op``, if any has one."""
    found = None
    for operand in op.operands:
        owner = operand.owner
        if not isinstance(owner, ir.Operation | ir.OpView):
            continue
        owner = owner.operation
        if STAGE_ATTR in owner.attributes:
            stage = ir.IntegerAttr(owner.attributes[STAGE_ATTR]).value
            if found is None or stage > found[0]:
                found = (stage, ir.IntegerAttr(owner.attributes[IPU_ATTR]).value)
    return found


@dataclasses.dataclass(frozen=True)
class AssignStages(ModulePass):
    """Assign each op its pipeline stage and IPU from the blocks and the execution strategy.

    Rules (each a located error):
    - with poptorch.Block, every op after the first block must be inside a block (ops
      before the first block run on IPU 0, in stage 0);
    - blocks run in the order they are declared: a block cannot come back after another;
    - every block is in exactly one stage of the strategy, and every stage names known blocks;
    - stages of a pipelined strategy run in increasing order;
    - a weight used on two IPUs is an error (layers sharing weights must share an IPU);
    - the number of IPUs (IPUs per replica x replicas) must be a power of 2 (or
      ``auto_round_num_ipus`` rounds it up) and at most 64;
    - pipelined training needs gradient_accumulation >= 2p - 1, pipelined inference
      needs device_iterations >= p, for p forward stages.
    Backward ops take the stage 2p - 2 - s of their forward stage s (the last forward
    stage and the first backward stage are one), on the same IPU; the backward of ops
    before the first block runs in stage 2p - 2 on IPU 0; a backward op reading a value
    of a later stage (a gradient summed over uses in several blocks) runs in that stage,
    on its IPU.

    Arguments: none (the strategy is the function's ``#ipu.strategy``).
    """

    name: ClassVar[str] = "ipu-assign-stages"

    def run(self, module: ir.Operation, diag: Diagnostics) -> None:
        for op in module.regions[0].blocks[0].operations:
            func = op.operation
            if func.name != "func.func":
                continue
            try:
                strategy = strategy_of(func)
            except ValueError as error:
                diag.error(func, f"ipu-assign-stages: {error}")
                continue
            if strategy is not None:
                self._assign(func, strategy, diag)

    def _assign(self, func: ir.Operation, strategy: Strategy, diag: Diagnostics) -> None:
        ops = [op.operation for op in func.regions[0].blocks[0].operations if op.operation.name not in _SKIPPED]
        forward = [op for op in ops if not meta.is_backward(op)]
        # Blocks in execution order, and the rule that they are declared in that order.
        order: list[str] = []
        block_ipu: dict[str, int] = {}
        first_block_seen = False
        for op in forward:
            block = block_of(op)
            if block is None:
                if first_block_seen and not _is_constant(op):
                    diag.error(op, f"'{op.name}' runs after the first poptorch.Block but is in no block; with "
                                   "Block every later op must be inside one: widen the Block, or use "
                                   "poptorch.BeginBlock, whose block lasts until the next one")
                continue
            first_block_seen = True
            user_id, ipu = block
            if order and order[-1] != user_id and user_id in order:
                diag.error(op, f"block '{user_id}' is used again after block '{order[-1]}'; blocks must run in "
                               "the order they are declared: give the later code its own block")
                continue
            if not order or order[-1] != user_id:
                order.append(user_id)
            if ipu != UNASSIGNED_IPU:
                block_ipu.setdefault(user_id, ipu)
        if diag.failed:
            return
        if strategy.phased:
            from ..phase_plan import assign_phases  # the phased strategies' stages and phases

            assign_phases(func, ops, strategy, order, block_ipu, self._annotate, diag)
            if not diag.failed:
                self._check_shared_weights(func, diag)
                del func.attributes[STRATEGY_ATTR]
            return
        stage_of, ipu_of = self._stages(func, strategy, order, block_ipu, diag)
        if diag.failed:
            return
        for user_id in order:
            if ipu_of[user_id] >= MAX_IPUS:
                diag.error(func, f"block '{user_id}' is placed on IPU {ipu_of[user_id]}, but one process drives at most "
                                 f"{MAX_IPUS} IPUs (ids 0 to {MAX_IPUS - 1}); use a smaller ipu_id, or distributed "
                                 "execution (several processes) for more IPUs")
                return
        # Stages must increase along the forward program in a pipeline.
        if strategy.kind == StrategyKind.PIPELINED:
            previous: tuple[int, str] | None = None
            for user_id in order:
                if previous is not None and stage_of[user_id] < previous[0]:
                    diag.error(func, f"block '{user_id}' is in stage {stage_of[user_id]} but runs after block "
                                     f"'{previous[1]}' of stage {previous[0]}; in PipelinedExecution stages run in "
                                     "increasing order: put the blocks in stages in execution order")
                    return
                previous = (stage_of[user_id], user_id)
        if strategy.kind == StrategyKind.SHARDED:
            stage_of = _merge_sharded(order, stage_of, ipu_of)
        before_first = any(not _is_constant(op) and block_of(op) is None for op in _before_first_block(forward))
        forward_stages = sorted(set(stage_of.values()) | ({0} if before_first or not order else set()))
        p = len(forward_stages)
        index_of = {stage: index for index, stage in enumerate(forward_stages)}
        num_ipus = max([ipu_of[b] for b in order] + [0]) + 1
        replicas = strategy.replication_factor
        total = num_ipus * replicas
        rounded = 1 << (total - 1).bit_length()  # the next power of 2 (total >= 1)
        if rounded > MAX_IPUS:
            diag.error(func, f"the model uses {total} IPUs ({num_ipus} per replica x {replicas} replicas), more than "
                             f"the {MAX_IPUS} one process can drive; use distributed execution (several processes) or "
                             "fewer IPUs")
            return
        if total != rounded:
            if replicas & (replicas - 1):  # autoRoundNumIPUs cannot help: do not suggest it
                diag.error(func, f"the model uses {total} IPUs ({num_ipus} per replica x {replicas} replicas), which is "
                                 f"not a power of 2, and replicationFactor({replicas}) is not one either: "
                                 "autoRoundNumIPUs rounds the IPUs of a replica up, never the replicas; use a "
                                 "power-of-2 replicationFactor")
                return
            if not strategy.auto_round_num_ipus:
                diag.error(func, f"the model uses {total} IPUs ({num_ipus} per replica x {replicas} replicas), which is "
                                 "not a power of 2; use a power of 2, or Options().autoRoundNumIPUs(True) to round up "
                                 "and leave the extra IPUs idle")
                return
            num_ipus = rounded // replicas
        if strategy.kind == StrategyKind.PIPELINED and p > 1:
            if strategy.training and strategy.gradient_accumulation < 2 * p - 1:
                diag.error(func, f"pipelined training over {p} stages needs gradientAccumulation >= 2 x {p} - 1 = "
                                 f"{2 * p - 1}, got {strategy.gradient_accumulation}; raise "
                                 "Options.Training.gradientAccumulation or use fewer stages")
                return
            if not strategy.training and strategy.device_iterations < p:
                diag.error(func, f"pipelined inference over {p} stages needs deviceIterations >= {p}, got "
                                 f"{strategy.device_iterations}; raise Options.deviceIterations or use fewer stages")
                return
        self._annotate(func, ops, stage_of, ipu_of, index_of, p, diag)
        if diag.failed:
            return
        self._check_shared_weights(func, diag)
        num_stages = 2 * p - 1 if strategy.training else p
        set_plan(func, Plan(ScheduleKind.parse(strategy.kind, "strategy kind"), p, num_stages, num_ipus))
        del func.attributes[STRATEGY_ATTR]

    def _stages(self, func: ir.Operation, strategy: Strategy, order: list[str], block_ipu: dict[str, int],
                diag: Diagnostics) -> tuple[dict[str, int], dict[str, int]]:
        """Stage and IPU of every block."""
        stage_of: dict[str, int] = {}
        ipu_of: dict[str, int] = {}
        if strategy.stages:
            for index, (blocks, ipu) in enumerate(strategy.stages):
                for block in blocks:
                    if block in stage_of:
                        diag.error(func, f"block '{block}' is in two stages ({stage_of[block]} and {index}); "
                                         "a block belongs to exactly one stage")
                        continue
                    if block not in order:
                        known = ", ".join(f"'{b}'" for b in order) or "none"
                        diag.error(func, f"stage {index} names block '{block}', which the model does not have "
                                         f"(its blocks: {known})")
                        continue
                    stage_of[block] = index
                    chosen = ipu if ipu >= 0 else block_ipu.get(block, -1)
                    if chosen < 0:
                        diag.error(func, f"block '{block}' has no IPU: give Block(..., ipu_id=...) or Stage(...).ipu(n)")
                        continue
                    ipu_of[block] = chosen
            for block in order:
                if block not in stage_of and not diag.failed:
                    diag.error(func, f"block '{block}' is not in any stage of the execution strategy; add it to a "
                                     "Stage, or let an AutoStage place the blocks")
            return stage_of, ipu_of
        for position, block in enumerate(order):
            ipu = block_ipu.get(block, UNASSIGNED_IPU)
            if strategy.auto_stage == AutoStage.AUTO_INCREMENT:
                stage_of[block] = position
                ipu_of[block] = ipu if ipu >= 0 else position
            else:  # same_as_ipu
                if ipu < 0:
                    diag.error(func, f"block '{block}' has no ipu_id, so AutoStage.SameAsIpu cannot place it; give "
                                     "Block(..., ipu_id=n) or use Stage(...).ipu(n)")
                    continue
                stage_of[block] = ipu
                ipu_of[block] = ipu
        return stage_of, ipu_of

    def _annotate(self, func: ir.Operation, ops: list[ir.Operation], stage_of: dict[str, int], ipu_of: dict[str, int],
                  index_of: dict[int, int], p: int, diag: Diagnostics, backward_of=None,
                  outside_ipu: int = 0) -> None:
        """``backward_of(i)``: the stage of the backward ops of forward stage i (default
        2p - 2 - i, the last forward stage shared); ``outside_ipu``: the IPU of the ops
        before the first block."""
        backward_of = backward_of or (lambda index: 2 * p - 2 - index)
        current_stage, current_ipu = 0, outside_ipu
        seen_block = False
        # Forward ops before the first block run in stage 0 on IPU 0, their backward ops
        # (the same seq_nr) in the last stage, 2p - 2, on IPU 0.
        outside = {meta.seq_nr(op) for op in _before_first_block([op for op in ops if not meta.is_backward(op)])
                   if block_of(op) is None} - {None}
        for op in ops:
            block = block_of(op)
            backward = meta.is_backward(op)
            if block is not None and block[0] in stage_of:
                forward_index = index_of[stage_of[block[0]]]
                ipu = ipu_of[block[0]]
                stage = backward_of(forward_index) if backward else forward_index
                seen_block = True
            elif backward and block is None and meta.seq_nr(op) in outside:
                stage, ipu = backward_of(0), outside_ipu
            elif backward and block is None and (latest := _latest_producer(op)) is not None:
                # A gradient op of no block (autograd summing the gradients of a value
                # used in several blocks) runs once its last operand is ready.
                stage, ipu = latest
            elif seen_block or backward:
                stage, ipu = current_stage, current_ipu  # follow the code around it
            else:
                stage, ipu = 0, outside_ipu  # before the first block: stage 0 (on IPU 0 unless phased)
            if backward and (latest := _latest_producer(op)) is not None and latest[0] > stage:
                # A gradient summed over several uses (a skip connection) is tagged with
                # one use's block by autograd; it can only run once every operand is ready.
                stage, ipu = latest
            op.attributes[STAGE_ATTR] = i64(stage)
            op.attributes[IPU_ATTR] = i64(ipu)
            current_stage, current_ipu = stage, ipu

    def _check_shared_weights(self, func: ir.Operation, diag: Diagnostics) -> None:
        body = func.regions[0].blocks[0]
        try:
            roles = read_roles(func, ARGUMENTS)
        except ValueError as error:
            diag.error(func, f"ipu-assign-stages: {error}")
            return
        for arg, role in zip(body.arguments, roles, strict=True):
            if role is None or role.kind != RoleKind.PARAMETER:
                continue
            ipus = sorted({ir.IntegerAttr(use.owner.attributes[IPU_ATTR]).value for use in arg.uses
                           if IPU_ATTR in use.owner.attributes})
            if len(ipus) > 1:
                diag.error(func, f"weight '{role.name}' is used on IPUs {ipus}; layers that share weights must be on the "
                                 "same IPU: put them in blocks on one IPU")


def _before_first_block(ops: list[ir.Operation]) -> list[ir.Operation]:
    found = []
    for op in ops:
        if block_of(op) is not None:
            break
        found.append(op)
    return found


def _merge_sharded(order: list[str], stage_of: dict[str, int], ipu_of: dict[str, int]) -> dict[str, int]:
    """ShardedExecution: consecutive stages on the same IPU become one."""
    merged: dict[str, int] = {}
    current, previous_stage, previous_ipu = -1, None, None
    for block in sorted(order, key=lambda b: (stage_of[b], order.index(b))):
        if stage_of[block] != previous_stage:
            if ipu_of[block] != previous_ipu:
                current += 1
            previous_stage, previous_ipu = stage_of[block], ipu_of[block]
        merged[block] = current
    return merged


def _is_constant(op: ir.Operation) -> bool:
    """Ops that need no block: constants, and identities the training frontend adds
    (detached model outputs); they follow the stage of the code around them."""
    return op.name.startswith("torch.constant.") or op.name in (
        "torch.prim.ListConstruct", "torch.vtensor.literal", "torch.aten.detach", "torch.aten.alias")
