"""Where the IPU Model keeps data between and during runs: the tensors each emulated IPU
holds (:class:`DeviceStore`), the host side of the streams of one run (:class:`HostIO`),
and what each variable and stream of the graph is (:class:`VariableInfo`: its
:class:`~ipu_mlir.dialects.poplar.VariableKind`, read from the IR; :class:`StreamInfo`).
"""

from __future__ import annotations

import dataclasses

import torch

from ipu_mlir.dialects.poplar import StreamDirection, VariableKind


@dataclasses.dataclass(frozen=True)
class VariableInfo:
    name: str
    kind: VariableKind  # what it holds: the only source of its role
    ipu: int
    shape: tuple[int, ...]
    dtype: torch.dtype

    @property
    def nbytes(self) -> int:
        count = 1
        for d in self.shape:
            count *= d
        return count * torch.empty((), dtype=self.dtype).element_size()


@dataclasses.dataclass(frozen=True)
class StreamInfo:
    name: str
    direction: StreamDirection
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
