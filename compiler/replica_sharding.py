"""Replicated tensor sharding (``TensorLocationSettings.useReplicatedTensorSharding``), as
``ipu-insert-training`` builds it with replicationFactor R > 1 (the module's
``#poplar.tensor_locations``).

A sharded tensor is the replica's part of it: flattened and zero-padded to R s elements
(s = ceil(n / R), as GCL pads), replica r keeps elements [r s, (r + 1) s). Per weight (of at
least its class's ``minElementsForReplicatedTensorSharding`` elements), three things can be
sharded (:class:`ShardPlan`):
- the optimizer state (the optimizer class sharded): the replica updates its part of the
  weight with its parts of the state. Its gradient is reduce-scattered (``ipu.replica_shard``
  kind sum / mean) instead of all-reduced, the replica takes its part of the weight (kind
  local), and the updated parts are all-gathered (``ipu.replica_unshard``) into the whole
  weight every replica holds for the next step;
- the weight itself (the weight class sharded): its variable holds the part. Each pass that
  reads it (the forward pass, the backward pass: the ops whose location says ``bwd``) gathers
  it once (``ipu.replica_unshard``) just before its first reader there, and the views of it
  that pass reads (``aten.t`` and the like) are rebuilt from that gather, so the whole weight
  is on chip only while a pass uses it, never across the turn from forward to backward. The
  update runs on parts, as PopART does: the gradient is reduce-scattered, and the replica's
  updated part is what it keeps (no gather after the update). The optimizer state of a
  sharded weight is sharded with it (an update on parts needs parts of the state);
- the gradient accumulator (the accumulator class sharded, gradient accumulation G > 1):
  each micro-batch's gradient is reduce-scattered before it is added, as PopART does with
  sharded accumulators (a replica's part of the sum over replicas cannot be made later from
  whole local sums it no longer holds). The update reads the reduced parts; one that runs on
  whole tensors gathers them. Sums are then taken over replicas first and micro-batches
  second, so results match the unsharded run within float rounding, not bit for bit.
Each sharded argument carries ``poplar.replica_shard`` (#poplar.replica_shard<weight shape,
R>), which ``poplar-build-program`` puts on its variable.

Not sharded: weights grouped across replicas (param.replicaGrouping: their groups hold
different values). LAMB refuses an update on parts: its trust ratio needs the norm of the
whole weight and update. A pipelined step of several stages refuses sharded weights and
accumulators: their collectives would run inside stages that run at once on several IPUs,
while the IPU Model's replicas meet for one collective at a time (runtime/replicas.py).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable
from typing import Any

from torch_mlir import ir

from ipu_mlir.dialects import ipu as ipu_d
from ipu_mlir.dialects._base import build
from ipu_mlir.dialects.ipu import ARGUMENTS, Optimizer, OptimizerType, read_roles
from ipu_mlir.dialects.pipeline import Plan
from ipu_mlir.dialects.pipeline_attrs import IPU_ATTR, STAGE_ATTR
from ipu_mlir.dialects.poplar import REPLICA_SHARD_ATTR, ReplicaShard, TensorLocation, TensorLocations
from ipu_mlir.dialects.poplar.gcl import CommGroup
from ipu_mlir.support.ir_build import i64, string

from . import location_metadata as meta
from .torch_ir import vtensor_shape_dtype


@dataclasses.dataclass(frozen=True)
class ShardPlan:
    """Which tensors of one weight are sharded across the replicas (see the module docstring)."""

    shard: ReplicaShard
    weight: bool = False
    state: bool = False
    accumulator: bool = False

    @property
    def on_parts(self) -> bool:
        """Whether the optimizer update runs on the replica's parts."""
        return self.weight or self.state


def plan_sharding(locations: TensorLocations, spec: Optimizer, params: dict[str, ir.Value], grads: dict[str, ir.Value],
                  groups: dict[str, ir.Attribute], replicas: int, accumulation: int) -> dict[str, ShardPlan]:
    """Weight name -> what is sharded of it (absent: nothing). ValueError for an optimizer
    whose update cannot run on parts (LAMB)."""
    if replicas < 2:
        return {}
    with_state = bool(spec.update_op.state_names(spec.flags))
    plans = {}
    for name in grads:
        shape, _ = vtensor_shape_dtype(params[name].type)
        if name in groups and CommGroup.from_attr(groups[name]).group_size(replicas) != replicas:
            continue  # grouped across replicas: each group updates its own value
        elements = math.prod(shape)

        def chosen(location: TensorLocation) -> bool:
            return location.sharded and elements >= location.min_elements_for_sharding

        weight = chosen(locations.weight)
        state = with_state and (weight or chosen(locations.optimizer))
        accumulator = accumulation > 1 and chosen(locations.accumulator)
        if weight or state or accumulator:
            plans[name] = ShardPlan(ReplicaShard(tuple(shape), replicas), weight, state, accumulator)
    on_parts = sorted(name for name, plan in plans.items() if plan.on_parts)
    if on_parts and spec.kind == OptimizerType.LAMB:
        weights = any(plans[name].weight for name in on_parts)
        what = "the weights" if weights else "the optimizer state"
        setter = " and ".join(([] if not weights else ["setWeightLocation"]) +
                              (["setOptimizerLocation"] if locations.optimizer.sharded else []))
        raise ValueError(f"replicated tensor sharding of {what} ({', '.join(on_parts)}) is not available for LAMB: "
                         "its trust ratio needs the norms of the whole weight and update, which no replica holds. "
                         f"Remove useReplicatedTensorSharding() from {setter}, or raise "
                         "minElementsForReplicatedTensorSharding above these weights' sizes")
    return plans


def check_pipelined(plans: dict[str, ShardPlan], plan: Plan | None) -> None:
    """ValueError when a pipelined step (several stages) would gather sharded weights or
    reduce-scatter into sharded accumulators inside its stages."""
    inside = sorted(name for name, item in plans.items() if item.weight or item.accumulator)
    if not inside or plan is None or not plan.pipelined or plan.num_stages < 2:
        return
    classes = " and ".join(what for what, used in (("weights", any(plans[n].weight for n in inside)),
                                                  ("gradient accumulators", any(plans[n].accumulator for n in inside)))
                           if used)
    raise ValueError(f"replicated tensor sharding of the {classes} ({', '.join(inside)}) is not available with "
                     f"PipelinedExecution ({plan.num_stages} stages): their gathers and reduce-scatters would run "
                     "inside the pipeline's stages, and the IPU Model's replicas meet for one collective at a time, "
                     "an order that stages running at once on several IPUs cannot keep. Use ShardedExecution, or "
                     "shard only the optimizer state (setOptimizerLocation), whose collectives run in the weight "
                     "update")


def sharded_arguments(plans: dict[str, ShardPlan], state_names: list[str]) -> dict[str, ReplicaShard]:
    """Argument name -> its sharding: a sharded weight, its state, its accumulator."""
    found = {}
    for name, plan in plans.items():
        if plan.weight:
            found[name] = plan.shard
        if plan.state:
            found.update({f"{name}/{state}": plan.shard for state in state_names})
        if plan.accumulator:
            found[f"{name}/accum"] = plan.shard
    return found


# Torch ops that give another view of their first operand: rebuilt from a weight's gather.
_TORCH_VIEWS = frozenset({
    "torch.aten.t", "torch.aten.transpose.int", "torch.aten.permute", "torch.aten.view", "torch.aten.reshape",
    "torch.aten._unsafe_view", "torch.aten.unsqueeze", "torch.aten.squeeze", "torch.aten.squeeze.dim",
    "torch.aten.expand", "torch.aten.detach", "torch.aten.alias", "torch.aten.flatten.using_ints",
    "torch.aten.slice.Tensor", "torch.aten.select.int", "torch.aten.numpy_T", "torch.aten.view_as",
})


def _owner(use_owner: Any) -> ir.Operation:
    return use_owner.operation if hasattr(use_owner, "operation") else use_owner


def _top_level(op: ir.Operation, block: ir.Block) -> ir.Operation:
    """The op of ``block`` that is ``op`` or holds it."""
    while op.parent is not None and op.block != block:
        op = _owner(op.parent)
    return op


def gather_weight(block: ir.Block, param: ir.Value, shard: ReplicaShard) -> None:
    """Make ``param`` (an argument of ``block``'s function, the whole weight) the replica's
    part of it, gathered once for each pass reading it (forward, backward): an
    ``ipu.replica_unshard`` just before the pass's first reader, from which every reader of
    the pass and the views of the weight it reads (rebuilt there, when the pass does not make
    them itself) take the whole weight. The original views are erased."""
    whole = param.type
    ops = [op.operation for op in block.operations]
    position = {hash(op): index for index, op in enumerate(ops)}
    # Readers of the weight through chains of views: (views from the weight, reader, operand).
    leaves: list[tuple[tuple[ir.Operation, ...], ir.Operation, int]] = []
    views: dict[int, ir.Operation] = {}

    def visit(value: ir.Value, chain: tuple[ir.Operation, ...]) -> None:
        for use in list(value.uses):
            owner = _owner(use.owner)
            if owner.name in _TORCH_VIEWS and use.operand_number == 0 and hash(owner) in position:
                views[hash(owner)] = owner
                visit(owner.results[0], (*chain, owner))
            else:
                leaves.append((chain, owner, use.operand_number))

    visit(param, ())
    for backward in (False, True):
        group = [(chain, owner, operand) for chain, owner, operand in leaves if meta.is_backward(owner) == backward]
        if not group:
            continue
        first = ops[min(position[hash(_top_level(owner, block))] for _, owner, _ in group)]
        gather = build(ipu_d.ReplicaUnshardOp, param, i64(shard.replicas), whole, loc=first.location,
                       ip=ir.InsertionPoint(first)).operation
        _copy_labels(first, gather)
        made: dict[int, ir.Value] = {}  # view op -> its copy for this pass
        for chain, owner, operand in group:
            value = gather.results[0]
            for view in chain:
                if hash(view) not in made:
                    made[hash(view)] = _copy_view(view, value, first, position, backward, gather)
                value = made[hash(view)]
            owner.operands[operand] = value
    for view in sorted(views.values(), key=lambda op: position[hash(op)], reverse=True):
        view.erase()  # every use now reads a copy; no handle of it is read again
    views.clear()
    param.set_type(part_type(whole, shard))


def _copy_view(view: ir.Operation, source: ir.Value, first: ir.Operation, position: dict[int, int], backward: bool,
               gather: ir.Operation) -> ir.Value:
    """``view`` applied to ``source`` (the gather or a copied view): where ``view`` is, if that
    follows the gather (its other operands are defined there), else just before ``first``.
    A view of the other pass takes the pass's location and stage."""
    at = view if position[hash(view)] > position[hash(first)] else first
    named = [view.attributes[i] for i in range(len(view.attributes))]
    attributes = {entry.name: entry.attr for entry in named}
    other_pass = meta.is_backward(view) != backward
    copy = ir.Operation.create(view.name, results=[r.type for r in view.results],
                               operands=[source, *list(view.operands)[1:]], attributes=attributes,
                               loc=gather.location if other_pass else view.location, ip=ir.InsertionPoint(at))
    if other_pass:
        _copy_labels(gather, copy)
    return copy.results[0]


def _copy_labels(source: ir.Operation, target: ir.Operation) -> None:
    """The pipeline stage and IPU of ``source`` (from ipu-assign-stages), on ``target``."""
    for name in (STAGE_ATTR, IPU_ATTR):
        if name in source.attributes:
            target.attributes[name] = source.attributes[name]
        elif name in target.attributes:
            del target.attributes[name]


def reduce_accumulated(accumulated: dict[str, ir.Value], plans: dict[str, ShardPlan], scatter: bool,
                       reduce: Callable[[dict[str, ir.Value], dict[str, ShardPlan]], dict[str, ir.Value]]
                       ) -> dict[str, ir.Value]:
    """The accumulated gradients (in ``@update``, at the current insertion point) reduced across
    the replicas as the update takes them. ``reduce(gradients, scattered)`` reduces whole ones
    (those in ``scattered`` reduce-scattered). A sharded accumulator already holds the replica's
    part of the reduction: kept for an update on parts, gathered whole for an update on whole
    tensors or when clipping or loss scaling needs whole gradients (``scatter`` false)."""
    on_parts = {name: plan for name, plan in plans.items() if plan.on_parts}
    reduced = reduce({name: value for name, value in accumulated.items()
                      if not (name in plans and plans[name].accumulator)}, on_parts if scatter else {})
    result = {}
    for name, value in accumulated.items():
        plan = plans.get(name)
        if plan is None or not plan.accumulator:
            result[name] = reduced[name]
        elif scatter and plan.on_parts:
            result[name] = value
        else:
            dtype = vtensor_shape_dtype(value.type)[1]
            whole = ir.Type.parse(f"!torch.vtensor<[{','.join(str(d) for d in plan.shard.shape)}],{dtype}>")
            result[name] = unshard(value, whole, plan.shard)
    return result


def part_type(type_: ir.Type, shard: ReplicaShard, dtype: str | None = None) -> ir.Type:
    """``!torch.vtensor<[s],dtype>``: one replica's part of a tensor of ``type_``."""
    return ir.Type.parse(f"!torch.vtensor<[{shard.part}],{dtype or vtensor_shape_dtype(type_)[1]}>")


def shard(value: ir.Value, kind: str, shard_of: ReplicaShard) -> ir.Value:
    """This replica's part of ``value`` (at the current insertion point): of the sum or mean
    over the replicas (``kind`` sum / mean) or of its own value (local)."""
    return build(ipu_d.ReplicaShardOp, value, string(kind), i64(shard_of.replicas), part_type(value.type, shard_of)).result


def unshard(value: ir.Value, whole: ir.Type, shard_of: ReplicaShard) -> ir.Value:
    """The whole tensor (of type ``whole``) from every replica's part ``value``."""
    return build(ipu_d.ReplicaUnshardOp, value, i64(shard_of.replicas), whole).result


def mark_sharded_arguments(func: ir.Operation, shards: dict[str, ReplicaShard]) -> None:
    """Give each argument named in ``shards`` (a sharded state tensor) its ``poplar.replica_shard``."""
    roles = read_roles(func, ARGUMENTS)
    if not any(role is not None and role.name in shards for role in roles):
        return
    entries = []
    for index, role in enumerate(roles):
        entry = ir.DictAttr(ir.ArrayAttr(func.attributes[ARGUMENTS])[index])
        values = {entry[i].name: entry[i].attr for i in range(len(entry))}
        if role is not None and role.name in shards:
            values[REPLICA_SHARD_ATTR] = shards[role.name].attr()
        entries.append(ir.DictAttr.get(values))
    func.attributes[ARGUMENTS] = ir.ArrayAttr.get(entries)
