"""Weights grouped across replicas: ``param.replicaGrouping(comm_group_type, shards,
variable_retrieval_mode)`` (seed 003, "Grouping tensor weights across replicas").

Each replica group holds its own value of the weight. On the host the parameter has one
more leading dimension than the model computes with: one value per group
(``[groups, ...]``), or one per replica (``[R, ...]``) after a read back with
``VariableRetrievalMode.AllReplicas``. The model is captured with the per-replica shape,
each replica receives its group's value, the gradient is reduced within the group only,
and ``copyWeightsToHost`` returns the value of the first replica of each group
(``OnePerGroup``) or of every replica (``AllReplicas``).
"""

from __future__ import annotations

import contextlib
import dataclasses
import weakref
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import torch

from .enums import CommGroupType, VariableRetrievalMode

if TYPE_CHECKING:
    from ._executor import PoplarExecutor


@dataclasses.dataclass(frozen=True)
class WeightGrouping:
    """One weight's grouping: the arrangement, the replicas per group (``shards``) and
    how it is read back."""

    kind: CommGroupType
    shards: int
    retrieval: VariableRetrievalMode

    def group_count(self, replicas: int) -> int:
        if self.kind is CommGroupType.All:
            return 1
        if self.kind is CommGroupType.NoGrouping:
            return replicas
        return replicas // self.shards

    def group_of(self, rank: int, replicas: int) -> int:
        """The group holding replica ``rank`` (numbered as CommGroupType says)."""
        if self.kind is CommGroupType.All:
            return 0
        if self.kind is CommGroupType.NoGrouping:
            return rank
        if self.kind is CommGroupType.Consecutive:
            return rank // self.shards
        return rank % self.group_count(replicas)

    def comm_group(self) -> tuple[str, int]:
        """The compiler's replica group (``#poplar.comm_group`` kind and size)."""
        return {
            CommGroupType.All: ("all", 0),
            CommGroupType.NoGrouping: ("none", 0),
            CommGroupType.Consecutive: ("consecutive", self.shards),
            CommGroupType.Orthogonal: ("orthogonal", self.shards),
        }[self.kind]

    @property
    def per_replica(self) -> bool:
        """The host value has a leading group (or replica) dimension."""
        return self.kind is not CommGroupType.All


class _ReplicaGroupingMethod:
    """``param.replicaGrouping(...)`` on each parameter of a wrapped model. It holds its
    wrapper weakly; a copy or a pickle of the parameter gets a method that is not bound to
    any wrapper (wrapping the model again binds a new one)."""

    def __init__(self, executor: PoplarExecutor | None, name: str) -> None:
        self._executor = None if executor is None else weakref.ref(executor)
        self._name = name

    def __reduce__(self) -> tuple[Any, tuple]:
        return _ReplicaGroupingMethod, (None, self._name)

    def __deepcopy__(self, memo: dict) -> _ReplicaGroupingMethod:  # noqa: ARG002
        return _ReplicaGroupingMethod(None, self._name)

    def __call__(self, comm_group_type: CommGroupType, shards: int,
                 variable_retrieval_mode: VariableRetrievalMode = VariableRetrievalMode.OnePerGroup) -> None:
        label = f"{self._name}.replicaGrouping"
        executor = None if self._executor is None else self._executor()
        if executor is None or executor._destroyed:
            raise RuntimeError(f"{label}(...): this parameter belongs to no live PopTorch model (a copy, a loaded "
                               "pickle, or its wrapper was destroyed); wrap the model with poptorch.trainingModel / "
                               "inferenceModel and call replicaGrouping on the wrapped model's parameter")
        if executor._compiled is not None:
            raise RuntimeError(f"{label}(...): the model is already compiled, so its weights' replica groups are fixed; "
                               "call replicaGrouping on the wrapped model's parameters before its first call or "
                               ".compile(...)")
        kind = CommGroupType.parse(comm_group_type, label)
        retrieval = VariableRetrievalMode.parse(variable_retrieval_mode, label)
        if isinstance(shards, bool) or not isinstance(shards, int) or shards < 1:
            raise ValueError(f"{label}({kind.name}, {shards!r}, ...): shards is the number of replicas in each group, "
                             "an int of 1 or more")
        executor._replica_groupings[self._name] = WeightGrouping(kind, shards, retrieval)


def install(executor: PoplarExecutor) -> None:
    """Give every parameter of the wrapped model its ``replicaGrouping`` method."""
    for name, param in executor._model.named_parameters():
        param.replicaGrouping = _ReplicaGroupingMethod(executor, name)


def check(executor: PoplarExecutor, replicas: int) -> None:
    """The groupings fit ``replicas`` and each grouped parameter has its group dimension."""
    params = dict(executor._model.named_parameters())
    for name, grouping in executor._replica_groupings.items():
        label = f"{name}.replicaGrouping({grouping.kind.name}, {grouping.shards})"
        if grouping.kind in (CommGroupType.Consecutive, CommGroupType.Orthogonal) and replicas % grouping.shards:
            raise ValueError(f"{label}: {grouping.shards} replicas per group do not divide the {replicas} replicas; "
                             f"use a factor of {replicas}")
        if not grouping.per_replica:
            continue
        groups, shape = grouping.group_count(replicas), tuple(params[name].shape)
        if not shape or shape[0] not in (groups, replicas):
            raise ValueError(
                f"{label}: the parameter must hold one value per replica group on its first dimension "
                f"([{groups}, ...] for {groups} groups of the {replicas} replicas), but its shape is {list(shape)}; "
                f"give it the shape [{groups}, *per_replica_shape]")


@contextlib.contextmanager
def per_replica_shapes(executor: PoplarExecutor) -> Iterator[None]:
    """While the model is captured, each grouped parameter holds one replica's value (the
    shape the model computes with); its full value comes back afterwards."""
    params = dict(executor._model.named_parameters())
    saved: dict[str, torch.Tensor] = {}
    try:
        for name, grouping in executor._replica_groupings.items():
            if grouping.per_replica:
                saved[name] = params[name].data
                params[name].data = saved[name][0]
        yield
    finally:
        for name, data in saved.items():
            params[name].data = data


def owner(executor: PoplarExecutor, variable: str) -> WeightGrouping | None:
    """The grouping of device variable ``variable``: a grouped weight's, or that of the
    weight whose optimizer state or accumulator it is (``<weight>/<state>``)."""
    groupings = executor._replica_groupings
    if not groupings:
        return None
    grouping = groupings.get(variable)
    if grouping is None and "/" in variable:
        grouping = groupings.get(variable.rpartition("/")[0])
    return grouping if grouping is not None and grouping.per_replica else None


def split(grouping: WeightGrouping, value: torch.Tensor, ranks: list[int], replicas: int) -> list[torch.Tensor]:
    """Each local replica's value of a grouped variable from its host value: one per group,
    or one per replica."""
    per_replica = value.shape[0] == replicas and value.shape[0] != grouping.group_count(replicas)
    return [value[rank if per_replica else grouping.group_of(rank, replicas)].clone() for rank in ranks]


def join(grouping: WeightGrouping, values: dict[int, torch.Tensor], replicas: int) -> torch.Tensor:
    """A grouped variable's host value from every replica's (by global rank): the first
    replica of each group (OnePerGroup) or every replica (AllReplicas)."""
    if grouping.retrieval is VariableRetrievalMode.AllReplicas:
        return torch.stack([values[rank] for rank in range(replicas)])
    firsts: dict[int, int] = {}
    for rank in range(replicas):
        firsts.setdefault(grouping.group_of(rank, replicas), rank)
    return torch.stack([values[firsts[group]] for group in sorted(firsts)])


def compile_groups(executor: PoplarExecutor) -> dict[str, tuple[str, int]]:
    """Parameter name -> the compiler's replica group, for the grouped weights."""
    return {name: grouping.comm_group() for name, grouping in executor._replica_groupings.items()
            if grouping.kind is not CommGroupType.All}


__all__: list[Any] = []
