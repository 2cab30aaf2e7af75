"""The C++ of the collectives (``poplar.gcl_*``): one GCL cross-replica call each
(``gcl/Collectives.hpp``), with the op's ``#poplar.comm_group`` as a ``gcl::CommGroup`` and
its reduction as a ``popops::CollectiveOperator``. Registered in ``compute.EMITTERS``.

GCL has no "none" group type: a group of one replica is ``CommGroup(CONSECUTIVE, 1)``; "all"
is ``CommGroup(ALL, 0)``. ``allGatherCrossReplica`` returns the gathered tensors stacked
along a new dim 0 (one per group rank), reshaped here to our concatenation along dim 0;
``reduceScatterCrossReplica`` reduces the flattened tensor and gives group rank i the i-th
of g equal parts, which for a dim 0 divisible by g is rows [i n/g, (i+1) n/g).
"""

from __future__ import annotations

from typing import Any

from ipu_mlir.dialects.poplar import CommGroupKind, comm_group_of

from .compute import _dims, emits
from .errors import CodegenError

_OPERATORS = {"add": "ADD", "mean": "MEAN", "mul": "MUL", "min": "MIN", "max": "MAX"}
_GROUP_TYPES = {CommGroupKind.ALL: "ALL", CommGroupKind.CONSECUTIVE: "CONSECUTIVE", CommGroupKind.ORTHOGONAL: "ORTHOGONAL",
                CommGroupKind.NONE: "CONSECUTIVE"}


def comm_group(cx: Any, op: Any) -> str:
    """The op's ``#poplar.comm_group`` as a ``gcl::CommGroup`` expression."""
    try:
        group = comm_group_of(op.operation)
    except ValueError as error:
        raise CodegenError(f"{cx.where(op)}: {error}") from None
    size = 1 if group.kind == CommGroupKind.NONE else group.size
    return f"gcl::CommGroup(gcl::CommGroupType::{_GROUP_TYPES[group.kind]}, {size})"


def _operator(cx: Any, op: Any) -> str:
    kind = cx.attr(op, "op")
    if kind == "local" and op.operation.name == "poplar.gcl_reduce_scatter":  # each replica its own part
        return "popops::CollectiveOperator::LOCAL"
    if kind not in _OPERATORS:
        raise CodegenError(f"{cx.where(op)}: reduction '{kind}' has no popops::CollectiveOperator "
                           f"(emitted: {', '.join(_OPERATORS)})")
    return f"popops::CollectiveOperator::{_OPERATORS[kind]}"


@emits("poplar.gcl_all_reduce")
def emit_all_reduce(cx: Any, op: Any) -> list[str]:
    cx.uses_gcl = True
    x = cx.name(op.operands[0])
    return [f"poplar::Tensor {cx.define(op.results[0])} = gcl::allReduceCrossReplica(graph, {x}, {_operator(cx, op)}, "
            f"{cx.prog}, {comm_group(cx, op)}, {cx.debug(op)});"]


@emits("poplar.gcl_reduce_scatter")
def emit_reduce_scatter(cx: Any, op: Any) -> list[str]:
    cx.uses_gcl = True
    x = cx.name(op.operands[0])
    return [f"poplar::Tensor {cx.define(op.results[0])} = gcl::reduceScatterCrossReplica(graph, {x}.flatten(), "
            f"{_operator(cx, op)}, {cx.prog}, {comm_group(cx, op)}, {cx.debug(op)})"
            f".reshape({_dims(cx.shape(op.results[0]))});"]


@emits("poplar.gcl_all_gather")
def emit_all_gather(cx: Any, op: Any) -> list[str]:
    cx.uses_gcl = True
    x = cx.name(op.operands[0])
    return [f"poplar::Tensor {cx.define(op.results[0])} = gcl::allGatherCrossReplica(graph, {x}, {cx.prog}, "
            f"{comm_group(cx, op)}, {cx.debug(op)}).reshape({_dims(cx.shape(op.results[0]))});"]


@emits("poplar.gcl_broadcast")
def emit_broadcast(cx: Any, op: Any) -> list[str]:
    cx.uses_gcl = True
    x = cx.name(op.operands[0])
    return [f"poplar::Tensor {cx.define(op.results[0])} = gcl::broadcastCrossReplica(graph, {x}, {cx.prog}, "
            f"{comm_group(cx, op)}, {cx.attr(op, 'root')}, {cx.debug(op)});"]
