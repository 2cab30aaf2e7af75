"""Where the IPU Model keeps data between and during runs: the tensors each emulated IPU
holds (:class:`DeviceStore`), the host side of the streams of one run (:class:`HostIO`),
and what each variable of the graph is (:class:`VariableInfo`, :func:`role_of`).
"""

from __future__ import annotations

import dataclasses
import enum

import torch
from torch_mlir import ir


class VariableRole(enum.Enum):
    """What a ``poplar.variable`` holds, as the runtime treats it."""

    INPUT = "input"  # filled from a host stream for each micro-batch
    ANCHOR = "anchor"  # an output anchor: the value the host stream reads
    OUTPUT = "output"  # another output, e.g. a sum over the device iterations
    EXCHANGE = "exchange"  # an inter-IPU buffer: its IPU's copy of another IPU's value
    ACTIVATION = "activation"  # another value of one micro-batch
    STATE = "state"  # weights, buffers, optimizer state, accumulators, scalars

    @property
    def outlives_a_run(self) -> bool:
        """The variable is state: it keeps its value from one run to the next."""
        return self is VariableRole.STATE

    @property
    def holds_one_micro_batch(self) -> bool:
        """Each micro-batch has its own value (a pipeline keeps one per micro-batch in flight)."""
        return self in (VariableRole.INPUT, VariableRole.ACTIVATION, VariableRole.EXCHANGE, VariableRole.ANCHOR)


_ROLE_OF_KIND = {"input": VariableRole.INPUT, "output": VariableRole.OUTPUT, "activation": VariableRole.ACTIVATION}


def role_of(variable: ir.Operation) -> VariableRole:
    """The role of a ``poplar.variable``, from its ``kind`` and its ``name``: the only
    place that reads a role from a name (the ``anchor.`` and ``exchange.`` prefixes that
    poplar-build-program gives output anchors and inter-IPU buffers)."""
    name = ir.StringAttr(variable.attributes["name"]).value
    kind = ir.StringAttr(variable.attributes["kind"]).value
    if name.startswith("anchor."):
        return VariableRole.ANCHOR
    if name.startswith("exchange."):
        return VariableRole.EXCHANGE
    return _ROLE_OF_KIND.get(kind, VariableRole.STATE)


@dataclasses.dataclass(frozen=True)
class VariableInfo:
    name: str
    kind: str
    ipu: int
    shape: tuple[int, ...]
    dtype: torch.dtype
    role: VariableRole

    @property
    def nbytes(self) -> int:
        count = 1
        for d in self.shape:
            count *= d
        return count * torch.empty((), dtype=self.dtype).element_size()


@dataclasses.dataclass(frozen=True)
class StreamInfo:
    name: str
    direction: str
    shape: tuple[int, ...]
    dtype: torch.dtype


class DeviceStore:
    """The tensors held by one emulated IPU, by variable name."""

    def __init__(self, ipu: int, device: torch.device | str | None = None) -> None:
        self.ipu = ipu
        # A device chosen by the user (even the CPU) makes the runtime move tensors at
        # the IPU's boundaries (host streams, inter-IPU copies, constants).
        self.placed = device is not None
        self.device = torch.device("cpu" if device is None else device)
        self.tensors: dict[str, torch.Tensor] = {}

    def allocate(self, info: VariableInfo) -> torch.Tensor:
        tensor = torch.zeros(info.shape, dtype=info.dtype, device=self.device)
        self.tensors[info.name] = tensor
        return tensor

    def put(self, name: str, tensor: torch.Tensor) -> None:
        """Hold ``tensor`` as variable ``name``, moved to this IPU's device."""
        self.tensors[name] = tensor.to(self.device)


class HostIO:
    """Per-run host side of the streams: input queues and output lists."""

    __slots__ = ("inputs", "positions", "outputs")

    def __init__(self, inputs: dict[str, list[torch.Tensor]], output_names: list[str]) -> None:
        self.inputs = inputs
        self.positions = dict.fromkeys(inputs, 0)
        self.outputs: dict[str, list[torch.Tensor]] = {name: [] for name in output_names}

    def pop(self, stream: str) -> torch.Tensor:
        position = self.positions[stream]
        queue = self.inputs[stream]
        if position >= len(queue):
            raise RuntimeError(f"host stream '{stream}' ran out of data after {position} elements")
        self.positions[stream] = position + 1
        return queue[position]
