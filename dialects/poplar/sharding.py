"""Replicated tensor sharding (PopTorch's ``TensorLocationSettings.useReplicatedTensorSharding``):
a ``poplar.variable`` that holds only its replica's part of a tensor.

``poplar.replica_shard = #poplar.replica_shard<array<i64: 4, 300>, 2 : i64>`` on a variable
says: the tensor has the shape ``array<i64: ...>`` (here 1200 elements) and is sharded across
R replicas (here 2). Flattened and zero-padded to R * s elements, s = ceil(elements / R),
replica r holds elements [r * s, (r + 1) * s): the variable's type is ``tensor<s x elt>``
(here ``tensor<600xf32>``), so it takes 1/R of the bytes on each replica. The host writes a
sharded variable part by part (replica r its part) and reads it back by concatenating the
parts of every replica, dropping the padding, and reshaping.

Written by ``poplar-build-program`` from the same attribute on the function argument, which
``ipu-insert-training`` sets on the optimizer state it shards (reduce-scattered gradients,
``ipu.replica_shard`` / ``ipu.replica_unshard``).
"""

import dataclasses
import math
from typing import Self

from torch_mlir import ir

from ipu_mlir.support.ir_build import i64

from .._base import I64ArrayAttr
from .base import Poplar

REPLICA_SHARD_ATTR = "poplar.replica_shard"  # on a poplar.variable or a func argument: #poplar.replica_shard


class ReplicaShardAttr(Poplar.Attribute, name="replica_shard"):
    """The whole tensor a sharded variable is one replica's part of:
    ``#poplar.replica_shard<array<i64: 4, 300>, 2 : i64>`` (its shape, the replicas it is
    sharded across). Read it with :meth:`ReplicaShard.from_attr`."""

    shape: I64ArrayAttr
    replicas: ir.IntegerAttr


@dataclasses.dataclass(frozen=True)
class ReplicaShard:
    """What ``#poplar.replica_shard`` says, checked."""

    shape: tuple[int, ...]
    replicas: int

    @property
    def elements(self) -> int:
        return math.prod(self.shape)

    @property
    def part(self) -> int:
        """Elements each replica holds (s = ceil(elements / R))."""
        return -(-self.elements // self.replicas)

    @property
    def padded(self) -> int:
        """The flattened tensor's length with the padding (R * s)."""
        return self.part * self.replicas

    def attr(self) -> ir.Attribute:
        return ReplicaShardAttr.get(ir.DenseI64ArrayAttr.get(list(self.shape)), i64(self.replicas))

    @classmethod
    def from_attr(cls, attr: ir.Attribute) -> Self:
        if not isinstance(attr, ReplicaShardAttr):
            raise ValueError(f"'{REPLICA_SHARD_ATTR}' must be a #poplar.replica_shard<array<i64: shape...>, replicas>, "
                             f"got {attr}")
        shape = attr.shape.maybe_downcast() if hasattr(attr.shape, "maybe_downcast") else attr.shape
        replicas = attr.replicas.maybe_downcast() if hasattr(attr.replicas, "maybe_downcast") else attr.replicas
        if not isinstance(shape, ir.DenseI64ArrayAttr):
            raise ValueError(f"'{REPLICA_SHARD_ATTR}' shape must be an array<i64>, got {shape}")
        if not isinstance(replicas, ir.IntegerAttr) or isinstance(replicas, ir.BoolAttr):
            raise ValueError(f"'{REPLICA_SHARD_ATTR}' replicas must be an integer, got {replicas}")
        dims, count = tuple(int(d) for d in shape), ir.IntegerAttr(replicas).value
        if any(d < 0 for d in dims):
            raise ValueError(f"'{REPLICA_SHARD_ATTR}' shape must have dims >= 0, got {list(dims)}")
        if count < 2:
            raise ValueError(f"'{REPLICA_SHARD_ATTR}' replicas must be >= 2 (one replica holds the whole tensor), "
                             f"got {count}")
        return cls(dims, count)


def replica_shard_of(variable: ir.Operation) -> ReplicaShard | None:
    """The sharding of a ``poplar.variable`` (None: every replica holds the whole tensor),
    checked against its type; ValueError if malformed."""
    if REPLICA_SHARD_ATTR not in variable.attributes:
        return None
    shard = ReplicaShard.from_attr(variable.attributes[REPLICA_SHARD_ATTR])
    shape = list(ir.RankedTensorType(variable.results[0].type).shape)
    if shape != [shard.part]:
        raise ValueError(f"a variable sharded as {list(shard.shape)} across {shard.replicas} replicas holds "
                         f"ceil({shard.elements} / {shard.replicas}) = {shard.part} elements: its type must be "
                         f"tensor<{shard.part}x...>, got shape {shape}")
    return shard
