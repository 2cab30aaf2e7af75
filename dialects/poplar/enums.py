"""The enumerations of the ``poplar`` dialect's graph ops and of the program that
``poplar-build-program`` builds, declared once: the IR spells a member by its value and
every reader parses it with ``DialectEnum.parse``, whose error lists the valid values."""

from ..enums import DialectEnum


class VariableKind(DialectEnum):
    """What a ``poplar.variable`` holds (its ``kind``): the only source of a variable's
    role, for the passes and the IPU Model alike (names say nothing)."""

    # State: kept on the device from one run to the next.
    WEIGHT = "weight"  # a trainable parameter, named by its module path
    BUFFER = "buffer"  # a module buffer (BatchNorm running statistics) or a lifted constant
    OPTIMIZER_STATE = "optimizer_state"  # velocity, moments, step counts
    ACCUMULATOR = "accumulator"  # a gradient accumulator, or the micro-batch count
    SCALAR = "scalar"  # a hyper-parameter the host can change between runs
    # One micro-batch's data: a pipeline keeps one per micro-batch in flight.
    INPUT = "input"  # filled from the input's host stream
    ANCHOR = "anchor"  # an output's value, read by its device-to-host stream
    EXCHANGE = "exchange"  # an IPU's copy of a value computed on another IPU
    # Per run, across micro-batches.
    SUM = "sum"  # OutputMode.Sum: an output summed over the run's iterations
    # Within a step: the values a device loop carries from one iteration to the next, a
    # conditional's results, and the values of the step its bodies read (poptorch.for_loop / cond).
    LOOP = "loop"

    @property
    def outlives_a_run(self) -> bool:
        """The variable is state: it keeps its value from one run to the next."""
        return self in _STATE

    @property
    def holds_one_micro_batch(self) -> bool:
        """Each micro-batch has its own value (an input, an output anchor, an exchange buffer)."""
        return self in _ONE_MICRO_BATCH


_STATE = frozenset({VariableKind.WEIGHT, VariableKind.BUFFER, VariableKind.OPTIMIZER_STATE,
                    VariableKind.ACCUMULATOR, VariableKind.SCALAR})
_ONE_MICRO_BATCH = frozenset({VariableKind.INPUT, VariableKind.ANCHOR, VariableKind.EXCHANGE})


class StreamDirection(DialectEnum):
    """The direction of a ``poplar.host_stream``."""

    HOST_TO_DEVICE = "host_to_device"  # an input: one element per program_stream_copy
    DEVICE_TO_HOST = "device_to_host"  # an output


class SyncKind(DialectEnum):
    """What a ``poplar.program_sync`` synchronises."""

    INTERNAL = "internal"  # the tiles of one IPU
    EXTERNAL = "external"  # all IPUs
    GLOBAL = "global"


class CopyMode(DialectEnum):
    """How a ``poplar.program_copy`` writes its destination (``poplar.copy_mode``, set by
    ``poplar-share-buffers``; absent means ``copy``)."""

    COPY = "copy"  # the destination's buffer receives the source's elements
    SHARE = "share"  # the destination takes the source's buffer (no other value holds it)


class OutputMode(DialectEnum):
    """Which iterations' outputs ``poplar-build-program``'s main program streams to the host
    (``poptorch.OutputMode``)."""

    ALL = "all"  # every iteration's
    FINAL = "final"  # the last iteration's
    SUM = "sum"  # their sum
    EVERY_N = "every_n"  # those of iterations n-1, 2n-1, ... (the return period n)


class CommGroupKind(DialectEnum):
    """How a collective's ``#poplar.comm_group`` splits the replicas into groups
    (PopTorch's ``CommGroupType``; see ``dialects/poplar/gcl.py``)."""

    ALL = "all"  # one group of every replica (CommGroupType.All)
    CONSECUTIVE = "consecutive"  # groups of `size` consecutive replicas (Consecutive)
    ORTHOGONAL = "orthogonal"  # groups of `size` replicas R/size apart (Orthogonal)
    NONE = "none"  # each replica alone (NoGrouping)
