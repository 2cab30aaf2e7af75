"""The enumerations of the PopTorch API (section 11.8 of the API reference, plus those
referenced elsewhere in it). Options, strategies, ops and the data loader take these
values; ``parse`` turns a member or its name into a member and lists the choices on error.
"""

from __future__ import annotations

import enum
from typing import Any, Self

__all__ = [
    "AutoStage",
    "CommGroupType",
    "ConnectionType",
    "DataLoaderMode",
    "HalfFloatCastingBehavior",
    "Liveness",
    "MatMulSerializationMode",
    "MeanReductionStrategy",
    "MultiConvPlanType",
    "OutputMode",
    "OverlapMode",
    "ReductionType",
    "SharingStrategy",
    "SyncPattern",
    "VariableRetrievalMode",
]


def format_value(value: Any) -> str:
    """Show an enum member as ``Enum.Member`` (as a user writes it), anything else by repr."""
    if isinstance(value, enum.Enum):
        return f"{type(value).__name__}.{value.name}"
    return repr(value)


class _ParsableEnum:
    """Mixin giving every PopTorch enum a ``parse`` that accepts a member or its name."""

    @classmethod
    def choices(cls) -> list[str]:
        """Names of the members, in declaration order."""
        return [member.name for member in cls]  # type: ignore[attr-defined]

    @classmethod
    def parse(cls, value: Any, what: str | None = None) -> Self:
        """Return the member for ``value``: a member, or a member name (any case).

        String-valued enums also accept their value (for example ``"reducing_dim"``).
        Integers are refused even for integer enums, so that a value of one enum cannot
        be passed where another is expected. ``what`` names the argument in messages.
        """
        label = what or cls.__name__
        if isinstance(value, cls):
            return value
        if isinstance(value, str):
            for member in cls:  # type: ignore[attr-defined]
                if member.name.lower() == value.lower() or member.value == value:
                    return member
            raise ValueError(
                f"{label}: {value!r} is not a poptorch.{cls.__name__}. "
                f"Valid choices are {', '.join(cls.choices())}."
            )
        raise TypeError(
            f"{label}: expected a poptorch.{cls.__name__} ({', '.join(cls.choices())}), "
            f"got {value!r} of type {type(value).__name__}. "
            f"Pass a member such as poptorch.{cls.__name__}.{cls.choices()[0]}."
        )


class OutputMode(_ParsableEnum, enum.IntEnum):
    """Which results a model returns to the host after a run.

    All: one result per batch. Final: the last batch only. EveryN: every N-th batch,
    N being ``output_return_period``. Sum: the sum over all batches. Default: All for
    inference, Final for training.
    """

    All = 0
    Final = 1
    EveryN = 2
    Sum = 3
    Default = 4


class ConnectionType(_ParsableEnum, enum.IntEnum):
    """When to attach to the IPU: Always (default), OnDemand, or Never."""

    Always = 0
    OnDemand = 1
    Never = 2


class SyncPattern(_ParsableEnum, enum.IntEnum):
    """How IPUs synchronise with each other and the host: Full (default),
    SinglePipeline or ReplicaAndLadder."""

    Full = 0
    SinglePipeline = 1
    ReplicaAndLadder = 2


class ReductionType(_ParsableEnum, enum.IntEnum):
    """How values are reduced: Sum, Mean, or NoReduction."""

    Sum = 0
    Mean = 1
    NoReduction = 2


class MeanReductionStrategy(_ParsableEnum, enum.IntEnum):
    """When the division of a Mean reduction happens over accumulation and replicas.

    Running keeps a running mean; Post divides once after reducing; PostAndLoss is
    deprecated legacy behaviour.
    """

    Running = 0
    Post = 1
    PostAndLoss = 2


class AutoStage(_ParsableEnum, enum.IntEnum):
    """How stages are assigned to blocks when a strategy is given no explicit stages.

    SameAsIpu: stage id = the block's IPU id (default). AutoIncrement: each new block
    gets the next stage id.
    """

    SameAsIpu = 0
    AutoIncrement = 1


class Liveness(_ParsableEnum, enum.IntEnum):
    """Where tensors stay between the phases of a phased execution.

    AlwaysLive: on the IPU. OffChipAfterFwd: off chip after the forward pass.
    OffChipAfterFwdNoOverlap: the same without overlapping loads and stores.
    OffChipAfterEachPhase: off chip after every phase.
    """

    AlwaysLive = 0
    OffChipAfterFwd = 1
    OffChipAfterFwdNoOverlap = 2
    OffChipAfterEachPhase = 3


class CommGroupType(_ParsableEnum, enum.IntEnum):
    """How replicas are grouped for an input or a per-replica variable.

    All: one group holding every replica (not valid for inputs). Consecutive: groups of
    consecutive replicas. Orthogonal: groups taken across the replica order with a
    stride. NoGrouping: every replica on its own.
    """

    All = 0
    Consecutive = 1
    Orthogonal = 2
    NoGrouping = 3


class VariableRetrievalMode(_ParsableEnum, enum.IntEnum):
    """How a grouped variable is read back: OnePerGroup or AllReplicas."""

    OnePerGroup = 0
    AllReplicas = 1


class DataLoaderMode(_ParsableEnum, enum.IntEnum):
    """How ``poptorch.DataLoader`` reads the dataset: Sync, Async or AsyncRebatched."""

    Sync = 0
    Async = 1
    AsyncRebatched = 2


class SharingStrategy(_ParsableEnum, enum.IntEnum):
    """How the dataset is handed to a data-loading worker process:
    SharedMemory, FileSystem, Fork or ForkServer."""

    SharedMemory = 0
    FileSystem = 1
    Fork = 2
    ForkServer = 3


class OverlapMode(_ParsableEnum, enum.Enum):
    """How far host I/O of a tensor overlaps computation: NoOverlap,
    OverlapAccumulationLoop or OverlapDeviceIterationLoop."""

    NoOverlap = "no_overlap"
    OverlapAccumulationLoop = "overlap_accumulation_loop"
    OverlapDeviceIterationLoop = "overlap_device_iteration_loop"


class MatMulSerializationMode(_ParsableEnum, enum.Enum):
    """Which dimension ``serializedMatMul`` splits for A (m x n) @ B (n x p):
    InputChannels (m), ReducingDim (n), OutputChannels (p), or Disabled."""

    InputChannels = "input_channels"
    ReducingDim = "reducing_dim"
    OutputChannels = "output_channels"
    Disabled = "none"


class MultiConvPlanType(_ParsableEnum, enum.IntEnum):
    """How a ``poptorch.MultiConv`` runs its convolutions: Parallel (default) or Serial."""

    Parallel = 0
    Serial = 1


class HalfFloatCastingBehavior(_ParsableEnum, enum.IntEnum):
    """How ops mixing float16 and float32 inputs are cast (``Precision.halfFloatCasting``).

    Default: PopTorch's behaviour (cast to float16). FloatDowncastToHalf: cast to float16.
    HalfUpcastToFloat: cast to float32, as PyTorch does.
    """

    Default = 0
    FloatDowncastToHalf = 1
    HalfUpcastToFloat = 2
