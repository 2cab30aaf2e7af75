"""Replicated tensor sharding of optimizer state, as ``ipu-insert-training`` builds it.

With replicationFactor R > 1 and ``TensorLocationSettings.useReplicatedTensorSharding`` on
the optimizer state (the module's ``#poplar.tensor_locations``), each weight with at least
``minElementsForReplicatedTensorSharding`` elements whose update keeps state has its state
split across the replicas: replica r keeps elements [r s, (r + 1) s) of each state tensor,
flattened and zero-padded to R s (s = ceil(n / R), as GCL pads). Its gradient is
reduce-scattered (``ipu.replica_shard`` kind sum / mean) instead of all-reduced, the replica
takes its part of the weight (kind local), updates that part with its part of the state, and
the updated parts are all-gathered into the whole weight (``ipu.replica_unshard``), which
every replica holds for the next step. Each sharded state argument carries
``poplar.replica_shard`` (#poplar.replica_shard<weight shape, R>), which
``poplar-build-program`` puts on its variable.

Not sharded: weights grouped across replicas (param.replicaGrouping: their groups hold
different values) and updates without state (SGD without momentum). LAMB is refused: its
trust ratio needs the norm of the whole weight and update.
"""

from __future__ import annotations

import math

from torch_mlir import ir

from ipu_mlir.dialects import ipu as ipu_d
from ipu_mlir.dialects._base import build
from ipu_mlir.dialects.ipu import ARGUMENTS, Optimizer, OptimizerType, read_roles
from ipu_mlir.dialects.poplar import REPLICA_SHARD_ATTR, ReplicaShard, TensorLocations
from ipu_mlir.dialects.poplar.gcl import CommGroup
from ipu_mlir.support.ir_build import i64, string

from .torch_ir import vtensor_shape_dtype


def sharded_weights(locations: TensorLocations, spec: Optimizer, params: dict[str, ir.Value], grads: dict[str, ir.Value],
                    groups: dict[str, ir.Attribute], replicas: int) -> dict[str, ReplicaShard]:
    """Weight name -> the sharding of its optimizer state (empty: nothing sharded).
    ValueError for an optimizer whose update cannot run on parts (LAMB)."""
    settings = locations.optimizer
    if replicas < 2 or not settings.sharded or not spec.update_op.state_names(spec.flags):
        return {}
    found = {}
    for name in grads:
        shape, _ = vtensor_shape_dtype(params[name].type)
        if name in groups and CommGroup.from_attr(groups[name]).group_size(replicas) != replicas:
            continue  # grouped across replicas: each group updates its own value
        if math.prod(shape) >= settings.min_elements_for_sharding:
            found[name] = ReplicaShard(tuple(shape), replicas)
    if found and spec.kind == OptimizerType.LAMB:
        raise ValueError(f"replicated tensor sharding of the optimizer state ({', '.join(sorted(found))}) is not "
                         "available for LAMB: its trust ratio needs the norms of the whole weight and update, which "
                         "no replica holds. Remove useReplicatedTensorSharding() from setOptimizerLocation, or raise "
                         "minElementsForReplicatedTensorSharding above these weights' sizes")
    return found


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
