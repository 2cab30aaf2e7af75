"""Replicated tensor sharding in the ``ipu`` dialect: the two ops ``ipu-insert-training``
inserts around an optimizer update whose state is sharded across the replicas
(``TensorLocationSettings.useReplicatedTensorSharding`` on the optimizer state, with
replicationFactor R > 1).

``ipu.replica_shard`` takes a tensor of n elements to this replica's part of it: flattened,
zero-padded to R * s (s = ceil(n / R)), replica r gets elements [r s, (r + 1) s). With kind
``"sum"`` or ``"mean"`` the part is of the reduction over the replicas (a reduce-scatter of
the gradient, instead of an all-reduce); with ``"local"`` it is of the replica's own value
(its part of a weight every replica holds whole). ``ipu.replica_unshard`` is the inverse: the
replicas' parts gathered in rank order, the padding dropped and the tensor reshaped (the
updated weight, whole on every replica again). Registered on the ``Ipu`` dialect.
"""

import math
from typing import Any

from torch_mlir import ir
from torch_mlir.dialects import ext

from ipu_mlir.support.torch_types import vtensor_shape_dtype

from ._base import Rules
from .ipu_base import Ipu, IpuOp, check_arity

SHARD_KINDS = ("sum", "mean", "local")


def _shape_and_element(type_: ir.Type) -> tuple[list[int], str] | None:
    """Static shape and element type text of a builtin ranked tensor or a ``!torch.vtensor``."""
    if isinstance(type_, ir.RankedTensorType):
        tensor = ir.RankedTensorType(type_)
        return list(tensor.shape), str(tensor.element_type)
    return vtensor_shape_dtype(type_)


def _shard_types(v: Rules, whole: ir.Value, part: ir.Value, replicas: int, op: str) -> None:
    """``part`` is the rank-1 part (ceil(n / R) elements) of ``whole`` (n elements), one element type."""
    a, b = _shape_and_element(whole.type), _shape_and_element(part.type)
    v.require(a is not None and b is not None and all(d >= 0 for d in a[0] + b[0]),
              f"{op}: needs statically shaped tensors, got {whole.type} and {part.type}")
    (shape, element), (part_shape, part_element) = a, b
    v.require(element == part_element, f"{op}: element types differ: {element} and {part_element}")
    expected = -(-math.prod(shape) // replicas)
    v.require(part_shape == [expected], f"{op}: the part of a tensor of shape {shape} ({math.prod(shape)} elements) "
                                        f"across {replicas} replicas has shape [{expected}] (ceil(n / R)), got {part_shape}")


class ReplicaShardOp(IpuOp, name="replica_shard"):
    """This replica's part of a tensor sharded across the replicas.

    Semantics: the input (n elements) flattened and zero-padded to R * s elements
    (s = ceil(n / R), R = ``replication_factor`` >= 2); replica r gets elements [r s, (r + 1) s)
    of the sum (``kind = "sum"``) or the mean (``"mean"``) over the replicas, or of its own
    input (``"local"``). Lowered to ``poplar.gcl_reduce_scatter`` (op add, mean or local)
    over all replicas.

    Example:
      %1 = "ipu.replica_shard"(%0) {kind = "mean", replication_factor = 2 : i64} : (tensor<3x3xf32>) -> tensor<5xf32>
    """

    input: ext.Operand[Any]
    kind: ir.StringAttr
    replication_factor: ir.IntegerAttr
    output: ext.Result[Any]

    def check(self, v: Rules) -> None:
        check_arity(v, self, 1, 1)
        v.string("kind", choices=SHARD_KINDS)
        replicas = v.int("replication_factor", min=2)
        _shard_types(v, self.input, self.output, replicas, "replica_shard")


class ReplicaUnshardOp(IpuOp, name="replica_unshard"):
    """The whole tensor from the parts every replica holds (the inverse of ``ipu.replica_shard``).

    Semantics: the R = ``replication_factor`` (>= 2) replicas' parts (s elements each)
    concatenated in rank order, the first n elements of the result's shape kept (the padding
    dropped) and reshaped to it; every replica gets the result. Lowered to
    ``poplar.gcl_all_gather`` over all replicas, a slice and a reshape.

    Example:
      %1 = "ipu.replica_unshard"(%0) {replication_factor = 2 : i64} : (tensor<5xf32>) -> tensor<3x3xf32>
    """

    input: ext.Operand[Any]
    replication_factor: ir.IntegerAttr
    output: ext.Result[Any]

    def check(self, v: Rules) -> None:
        check_arity(v, self, 1, 1)
        replicas = v.int("replication_factor", min=2)
        _shard_types(v, self.output, self.input, replicas, "replica_unshard")
