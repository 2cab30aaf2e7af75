"""Collective ``poplar`` ops (GCL): reductions, scatters, gathers and broadcasts across the
replicas of a replicated graph, each within the replica groups of its ``group``
(``#poplar.comm_group``, PopLibs' ``gcl::CommGroup``).

A graph with ``replication_factor`` R runs R replicas (ranks 0..R-1) of the same program;
a collective runs on every replica, and each replica meets the others of its group. The
groups of ``#poplar.comm_group<kind, size>`` (:meth:`CommGroup.groups`), for group size k:

- ``"all"``: one group of every replica (``size`` is ignored: 0);
- ``"consecutive"``: R/k groups of k consecutive ranks, [0..k-1], [k..2k-1], ...;
- ``"orthogonal"``: m = R/k groups of k ranks m apart, [0, m, 2m, ...], [1, m+1, ...], ...;
- ``"none"``: R groups of one replica each (``size`` is ignored: 0).

A replica's rank in its group (its position in the group's list) orders gathers and
scatters. The verifiers check the group against the enclosing ``poplar.graph``'s
``replication_factor``; an op outside a graph checks what it can without R.
"""

import dataclasses
from typing import Self

from torch_mlir import ir

from ipu_mlir.support.ir_build import i64, string

from .._base import Rules, RuleViolation
from .base import Poplar, PoplarOp, Tensor, TensorResult
from .enums import CommGroupKind

REDUCTIONS = ("add", "mean", "mul", "min", "max")  # popops::CollectiveOperator, by our spelling
GROUP_ATTR = "group"


class CommGroupAttr(Poplar.Attribute, name="comm_group"):
    """The replica groups a collective runs within: ``#poplar.comm_group<"consecutive", 2 : i64>``.

    Parameters: the kind (``CommGroupKind``: "all", "consecutive", "orthogonal", "none")
    and the replicas per group (>= 1 for "consecutive" and "orthogonal"; 0 for "all" and
    "none", whose size follows from the kind). Read it with :meth:`CommGroup.from_attr`.
    """

    kind: ir.StringAttr
    size: ir.IntegerAttr

    @classmethod
    def build(cls, kind: CommGroupKind | str, size: int) -> ir.Attribute:
        """The attribute of ``CommGroup(kind, size)`` (a size is dropped, as 0, for "all" and "none")."""
        return CommGroup(CommGroupKind.parse(kind, "a comm group's kind"), size).attr()


@dataclasses.dataclass(frozen=True)
class CommGroup:
    """What ``#poplar.comm_group`` says (see :class:`CommGroupAttr`; PopTorch's ``CommGroup``)."""

    kind: CommGroupKind
    size: int = 0  # replicas per group: used by "consecutive" and "orthogonal" only

    @property
    def sized(self) -> bool:
        """The group size comes from ``size`` (not from the kind)."""
        return self.kind in (CommGroupKind.CONSECUTIVE, CommGroupKind.ORTHOGONAL)

    def attr(self) -> ir.Attribute:
        return CommGroupAttr.get(string(self.kind.value), i64(self.size if self.sized else 0))

    @classmethod
    def from_attr(cls, attr: ir.Attribute) -> Self:
        """The checked group of ``attr``; ValueError naming what is wrong."""
        if not isinstance(attr, CommGroupAttr):
            raise ValueError(f"must be a #poplar.comm_group<kind, size> (kind one of: {CommGroupKind.choices()}), got {attr}")
        kind_attr, size_attr = attr.kind, attr.size  # parameters come back as plain ir.Attribute
        try:
            text = ir.StringAttr(kind_attr).value
        except ValueError:
            raise ValueError(f"kind must be a string, got {kind_attr}") from None
        kind = CommGroupKind.parse(text, "kind")
        try:
            size = ir.IntegerAttr(size_attr).value
        except ValueError:
            raise ValueError(f"size must be an integer, got {size_attr}") from None
        group = cls(kind, size)
        if group.sized and size < 1:
            raise ValueError(f"size must be >= 1 for kind \"{kind}\" (replicas per group), got {size}")
        if not group.sized and size != 0:
            raise ValueError(f"size must be 0 for kind \"{kind}\" (the kind alone sets the groups), got {size}")
        return group

    def group_size(self, replicas: int) -> int:
        """Replicas per group in a graph of ``replicas``; ValueError if the group does not fit."""
        if replicas < 1:
            raise ValueError(f"the replication factor must be >= 1, got {replicas}")
        if self.kind == CommGroupKind.ALL:
            return replicas
        if self.kind == CommGroupKind.NONE:
            return 1
        if self.size < 1:
            raise ValueError(f"a \"{self.kind}\" comm group needs a size >= 1 (replicas per group), got {self.size}")
        if replicas % self.size:
            raise ValueError(f"a \"{self.kind}\" comm group of size {self.size} must divide the replication factor "
                             f"{replicas} (replicas per group x groups = replicas)")
        return self.size

    def groups(self, replicas: int) -> list[list[int]]:
        """The replica groups of a graph of ``replicas``, each in group rank order."""
        size = self.group_size(replicas)
        count = replicas // size
        if self.kind == CommGroupKind.ORTHOGONAL:
            return [[first + count * index for index in range(size)] for first in range(count)]
        return [list(range(first * size, (first + 1) * size)) for first in range(count)]


def comm_group_of(op: ir.Operation, attr_name: str = GROUP_ATTR) -> CommGroup:
    """The checked ``#poplar.comm_group`` of ``op``'s ``attr_name``; ValueError if missing or malformed."""
    operation = getattr(op, "operation", op)
    if attr_name not in operation.attributes:
        raise ValueError(f"'{operation.name}' has no '{attr_name}' (#poplar.comm_group)")
    try:
        return CommGroup.from_attr(operation.attributes[attr_name])
    except ValueError as error:
        raise ValueError(f"'{operation.name}' attribute '{attr_name}' {error}") from None


def replication_factor_of(op: ir.Operation) -> int | None:
    """The ``replication_factor`` of the ``poplar.graph`` enclosing ``op``, None outside a
    graph (or while the graph's attribute is malformed: its own verifier reports that)."""
    graph = getattr(op, "operation", op).parent
    while graph is not None and graph.name != "poplar.graph":
        graph = graph.parent
    if graph is None or "replication_factor" not in graph.attributes:
        return None
    attr = graph.attributes["replication_factor"]
    if not isinstance(attr, ir.IntegerAttr) or isinstance(attr, ir.BoolAttr) or ir.IntegerAttr(attr).value < 1:
        return None
    return ir.IntegerAttr(attr).value


def _group_size(v: Rules, op: PoplarOp) -> tuple[CommGroup, int | None]:
    """The op's group and its size in the enclosing graph (None: unknown outside a graph)."""
    if not v.has(GROUP_ATTR):
        raise RuleViolation(f"requires attribute '{GROUP_ATTR}' (#poplar.comm_group<kind, size>)")
    try:
        group = CommGroup.from_attr(op.operation.attributes[GROUP_ATTR])
    except ValueError as error:
        raise RuleViolation(f"attribute '{GROUP_ATTR}' {error}") from None
    if group.kind == CommGroupKind.NONE:
        return group, 1
    replicas = replication_factor_of(op.operation)
    if replicas is None:
        return group, (group.size if group.sized else None)
    try:
        return group, group.group_size(replicas)
    except ValueError:
        raise RuleViolation(f"attribute '{GROUP_ATTR}' {group.attr()}: size {group.size} must divide the graph's "
                            f"replication_factor {replicas}") from None


def _shape(v: Rules, value: ir.Value, what: str) -> list[int]:
    shape = list(v.ranked(value, what).shape)
    v.require(all(dim >= 0 for dim in shape), f"{what} must have a static shape, got {value.type}")
    return shape


def _same_element(v: Rules, op: PoplarOp) -> None:
    element, result = (ir.RankedTensorType(x.type).element_type for x in (op.input, op.result))
    v.require(element == result, f"result element type {result} must equal input element type {element}")


class AllReduceOp(PoplarOp, name="gcl_all_reduce"):
    """Reduces a tensor across the replicas of each group; every replica of the group gets
    the result (``gcl::allReduceCrossReplica``).

    Semantics: ``op`` is ``"add"``, ``"mean"``, ``"mul"``, ``"min"`` or ``"max"``
    (``popops::CollectiveOperator``), applied elementwise over the group's values;
    ``group`` (``#poplar.comm_group``) must fit the graph's ``replication_factor``.

    Example:
      %r = "poplar.gcl_all_reduce"(%g) {op = "mean", group = #poplar.comm_group<"all", 0 : i64>}
           : (tensor<4xf32>) -> tensor<4xf32>
    """

    input: Tensor
    op: ir.StringAttr
    group: CommGroupAttr
    result: TensorResult

    def check(self, v: Rules) -> None:
        v.string("op", choices=REDUCTIONS)
        _group_size(v, self)
        v.require(self.input.type == self.result.type, f"result type {self.result.type} must equal input type {self.input.type}")


class ReduceScatterOp(PoplarOp, name="gcl_reduce_scatter"):
    """Reduces a tensor across the replicas of each group and gives each replica one slice
    of the result along dim 0 (``gcl::reduceScatterCrossReplica``).

    Semantics: ``op`` as for ``gcl_all_reduce``, or ``"local"``
    (``CollectiveOperator::LOCAL``: no reduction, each replica takes its part of its own
    input, as a replica takes its part of a weight it shards). With group size g, dim 0 of the input
    (rank >= 1) must be divisible by g; the replica of group rank i gets rows
    [i*n/g, (i+1)*n/g) of the reduction: the result is the input's type with dim 0 / g.

    Example:
      %r = "poplar.gcl_reduce_scatter"(%g) {op = "add", group = #poplar.comm_group<"consecutive", 2 : i64>}
           : (tensor<8x3xf32>) -> tensor<4x3xf32>
    """

    input: Tensor
    op: ir.StringAttr
    group: CommGroupAttr
    result: TensorResult

    def check(self, v: Rules) -> None:
        v.string("op", choices=(*REDUCTIONS, "local"))
        _, size = _group_size(v, self)
        shape, result = _shape(v, self.input, "input"), _shape(v, self.result, "result")
        v.require(len(shape) >= 1, f"input must have rank >= 1 (it is scattered along dim 0), got {self.input.type}")
        _same_element(v, self)
        v.require(len(result) == len(shape) and result[1:] == shape[1:],
                  f"result shape {result} must be the input shape {shape} with dim 0 divided by the group size")
        if size is not None:
            v.require(shape[0] % size == 0, f"input dim 0 ({shape[0]}) must be divisible by the group size {size}")
            v.require(result[0] * size == shape[0], f"result dim 0 must be input dim 0 / group size = "
                                                    f"{shape[0]} / {size} = {shape[0] // size}, got {result[0]}")
        else:  # group of every replica outside a graph: some whole group size
            v.require(result[0] > 0 and shape[0] % result[0] == 0 or shape[0] == result[0] == 0,
                      f"result dim 0 ({result[0]}) must divide input dim 0 ({shape[0]}): input dim 0 / group size")


class AllGatherOp(PoplarOp, name="gcl_all_gather"):
    """Gathers a tensor from every replica of each group, concatenated along dim 0 in
    group rank order; every replica of the group gets the result (``gcl::allGatherCrossReplica``).

    Semantics: with group size g, the result is the input's type (rank >= 1) with dim 0
    times g.

    Example:
      %r = "poplar.gcl_all_gather"(%x) {group = #poplar.comm_group<"orthogonal", 2 : i64>}
           : (tensor<4x3xf32>) -> tensor<8x3xf32>
    """

    input: Tensor
    group: CommGroupAttr
    result: TensorResult

    def check(self, v: Rules) -> None:
        _, size = _group_size(v, self)
        shape, result = _shape(v, self.input, "input"), _shape(v, self.result, "result")
        v.require(len(shape) >= 1, f"input must have rank >= 1 (it is gathered along dim 0), got {self.input.type}")
        _same_element(v, self)
        v.require(len(result) == len(shape) and result[1:] == shape[1:],
                  f"result shape {result} must be the input shape {shape} with dim 0 multiplied by the group size")
        if size is not None:
            v.require(result[0] == shape[0] * size, f"result dim 0 must be input dim 0 x group size = "
                                                    f"{shape[0]} x {size} = {shape[0] * size}, got {result[0]}")
        else:  # group of every replica outside a graph: some whole group size
            v.require(shape[0] > 0 and result[0] % shape[0] == 0 and result[0] > 0 or shape[0] == result[0] == 0,
                      f"result dim 0 ({result[0]}) must be a multiple of input dim 0 ({shape[0]}): input dim 0 x group size")


class CrossReplicaBroadcastOp(PoplarOp, name="gcl_broadcast"):
    """Gives every replica of each group the value of the group's replica of group rank
    ``root`` (``gcl::broadcastCrossReplica``).

    Semantics: ``root`` (i64) is a group rank, 0 <= root < group size; the result has the
    input's type.

    Example:
      %r = "poplar.gcl_broadcast"(%w) {root = 0 : i64, group = #poplar.comm_group<"all", 0 : i64>}
           : (tensor<4xf32>) -> tensor<4xf32>
    """

    input: Tensor
    root: ir.IntegerAttr
    group: CommGroupAttr
    result: TensorResult

    def check(self, v: Rules) -> None:
        root = v.int("root", min=0)
        _, size = _group_size(v, self)
        if size is not None:
            v.require(root < size, f"attribute 'root' must be a rank of the group: < the group size {size}, got {root}")
        v.require(self.input.type == self.result.type, f"result type {self.result.type} must equal input type {self.input.type}")
